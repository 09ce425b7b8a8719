#include "fft_layout.hpp"

#include <algorithm>
#include <tuple>

#include "vkdispatch/errors.hpp"

namespace kp::detail {
namespace {

using vkdispatch::InvalidArgumentError;

// VkFFT indexes with 32-bit integers (and a tensor has fewer elements anyway).
constexpr uint64_t kMaxPoints = UINT32_MAX;

void checkShape(const std::vector<uint32_t>& shape) {
    if (shape.empty())
        throw InvalidArgumentError("Kompute OpFFT: shape: at least one length, got {}");
    uint64_t points = 1;
    for (uint32_t length : shape) {
        if (length == 0)
            throw InvalidArgumentError("Kompute OpFFT: shape: every length must be >= 1, got " +
                                       listText(shape));
        points *= length;  // both <= kMaxPoints: no overflow
        if (points > kMaxPoints)
            throw InvalidArgumentError("Kompute OpFFT: shape: " + listText(shape) +
                                       " holds more than " + std::to_string(kMaxPoints) +
                                       " complex values, the most VkFFT transforms at once");
    }
}

// Per axis of an `ndim`-axis shape, whether `axes` transforms it (every axis when it is empty).
std::vector<bool> transformedAxes(const std::vector<int32_t>& axes, size_t ndim) {
    std::vector<bool> chosen(ndim, axes.empty());
    const int64_t n = static_cast<int64_t>(ndim);
    for (int32_t axis : axes) {
        if (axis < -n || axis >= n)
            throw InvalidArgumentError("Kompute OpFFT: axes: axis " + std::to_string(axis) +
                                       " is out of range for a shape of " + std::to_string(n) +
                                       " axes (valid: " + std::to_string(-n) + " to " +
                                       std::to_string(n - 1) + ")");
        const size_t index = static_cast<size_t>((axis + n) % n);
        if (chosen[index])
            throw InvalidArgumentError("Kompute OpFFT: axes: axis " + std::to_string(axis) +
                                       " is given twice (as " + std::to_string(index) +
                                       "); each axis is transformed once");
        chosen[index] = true;
    }
    return chosen;
}

}  // namespace

vkdispatch::VkfftGeometry FftLayout::geometry() const {
    vkdispatch::VkfftGeometry geometry;
    geometry.dimensions = dimensions;
    geometry.size = size;
    geometry.omitted = omitted;
    geometry.batches = batches;
    geometry.precision = precision;
    geometry.normalize = true;
    return geometry;
}

bool FftLayout::operator==(const FftLayout& other) const noexcept {
    return std::tie(dimensions, size, omitted, batches, precision) ==
           std::tie(other.dimensions, other.size, other.omitted, other.batches, other.precision);
}

FftLayout fftLayout(const std::vector<uint32_t>& shape, const std::vector<int32_t>& axes) {
    checkShape(shape);
    const std::vector<bool> chosen = transformedAxes(axes, shape.size());
    const size_t first =
        static_cast<size_t>(std::find(chosen.begin(), chosen.end(), true) - chosen.begin());
    FftLayout layout;
    for (size_t axis = 0; axis < first; ++axis) layout.batches *= shape[axis];
    std::vector<size_t> kept;  // the axes VkFFT sees, in numpy's order
    bool transforms = false;
    for (size_t axis = first; axis < shape.size(); ++axis) {
        if (shape[axis] == 1) continue;
        kept.push_back(axis);
        transforms = transforms || chosen[axis];
    }
    const std::string what = "shape " + listText(shape) + " with axes " +
                             (axes.empty() ? std::string("(all)") : listText(axes));
    if (!transforms)
        throw InvalidArgumentError("Kompute OpFFT: axes: every transformed axis of " + what +
                                   " has length 1 (the transform would be the identity)");
    if (kept.size() > 3)
        throw InvalidArgumentError(
            "Kompute OpFFT: shape: VkFFT transforms at most 3 axes of length > 1 from the "
            "first transformed one on (the axes before it are batches); " + what + " has " +
            std::to_string(kept.size()));
    layout.dimensions = static_cast<uint32_t>(kept.size());
    for (size_t position = 0; position < kept.size(); ++position) {
        const size_t d = kept.size() - 1 - position;  // VkFFT's 0 is numpy's last axis
        layout.size[d] = shape[kept[position]];
        layout.omitted[d] = !chosen[kept[position]];
    }
    return layout;
}

}  // namespace kp::detail
