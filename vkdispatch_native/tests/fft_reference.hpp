#pragma once
// What the FFT tests compare against: a float64 DFT of interleaved (real, imaginary) pairs, and
// the error of such pairs against it.
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

namespace vkdispatch::test {

using Complex = std::complex<double>;

/// ||got - want|| / ||want||, `got` holding interleaved pairs.
template <typename Real>
double relativeError(const std::vector<Real>& got, const std::vector<Complex>& want) {
    double diff = 0, norm = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        diff += std::norm(Complex(got[2 * i], got[2 * i + 1]) - want[i]);
        norm += std::norm(want[i]);
    }
    return std::sqrt(diff / norm);
}

/// numpy.fft.fftn (ifftn when `inverse`) of interleaved pairs forming an array of `shape`, along
/// `axes` (non-negative), in double precision: a DFT along each axis in turn.
template <typename Real>
std::vector<Complex> referenceFft(const std::vector<Real>& pairs,
                                  const std::vector<uint32_t>& shape,
                                  const std::vector<size_t>& axes, bool inverse) {
    std::vector<Complex> x(pairs.size() / 2);
    for (size_t i = 0; i < x.size(); ++i) x[i] = Complex(pairs[2 * i], pairs[2 * i + 1]);
    const double turn = (inverse ? 2 : -2) * std::acos(-1.0);
    for (size_t axis : axes) {
        const size_t n = shape[axis];
        size_t stride = 1;
        for (size_t a = axis + 1; a < shape.size(); ++a) stride *= shape[a];
        std::vector<Complex> line(n);
        for (size_t start = 0; start < x.size(); ++start) {
            if ((start / stride) % n != 0) continue;  // not the first element of a line
            for (size_t k = 0; k < n; ++k) {
                Complex sum = 0;
                for (size_t j = 0; j < n; ++j)
                    sum += x[start + j * stride] * std::polar(1.0, turn * double(j * k % n) / n);
                line[k] = inverse ? sum / double(n) : sum;
            }
            for (size_t k = 0; k < n; ++k) x[start + k * stride] = line[k];
        }
    }
    return x;
}

}  // namespace vkdispatch::test
