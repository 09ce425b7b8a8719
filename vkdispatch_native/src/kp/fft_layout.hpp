#pragma once
// How kp::OpFFT describes its transform to VkFFT: a complex array of `shape` (numpy's order: the
// last axis is contiguous) transformed along `axes`, as numpy.fft.fftn(x.reshape(shape), axes=axes)
// computes it. Pure logic (no device), so that it is tested on its own.
//
// VkFFT plans at most three dimensions, in the reverse order, and cannot plan a length of 1. So
// the axes before the first transformed one become VkFFT's batches (whole transforms laid out
// one after another); from there on, axes of length 1 are left out (they change no layout and
// transform as the identity), and the others are VkFFT's dimensions, those not transformed
// "omitted" (batched over in place).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vkdispatch/vkfft_application.hpp"

namespace kp::detail {

/// Everything a plan of kp::OpFFT depends on: its cache key.
struct FftLayout {
    uint32_t dimensions = 1;
    std::array<uint64_t, 3> size{1, 1, 1};  // VkFFT's order: size[0] is the contiguous axis
    std::array<bool, 3> omitted{};
    uint64_t batches = 1;
    vkdispatch::VkfftPrecision precision = vkdispatch::VkfftPrecision::Single;

    /// A complex-to-complex geometry whose inverse divides by the transformed lengths' product,
    /// as numpy's ifft does.
    vkdispatch::VkfftGeometry geometry() const;
    /// Complex values in the whole array (every batch).
    uint64_t points() const noexcept { return batches * size[0] * size[1] * size[2]; }
    bool operator==(const FftLayout& other) const noexcept;
};

/// The layout of `shape` transformed along `axes` (negative ones count from the end; empty: every
/// axis), in single precision. Throws vkdispatch::InvalidArgumentError naming `shape` or `axes`
/// for an empty shape, a length of 0, more than 2^32 - 1 values in all, an axis out of range or
/// given twice, transformed axes that all have length 1, or more than three axes of length > 1
/// from the first transformed one.
FftLayout fftLayout(const std::vector<uint32_t>& shape, const std::vector<int32_t>& axes);

/// "{8, 64}": a shape or axes list as error messages write it.
template <typename T>
std::string listText(const std::vector<T>& values) {
    std::string text = "{";
    for (size_t i = 0; i < values.size(); ++i)
        text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "}";
}

}  // namespace kp::detail
