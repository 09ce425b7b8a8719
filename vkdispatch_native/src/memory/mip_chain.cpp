#include "vkdispatch/mip_chain.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "vkdispatch/errors.hpp"
#include "vkdispatch/image.hpp"

namespace vkdispatch {
namespace {

// The layout of `format`'s texels; mip chains are computed for 32-bit components only.
TexelLayout texelsOf(VkFormat format) {
    const TexelLayout texels = texelLayout(format);
    if (texels.channels == 0 || texels.size != 4 * texels.channels)
        throw InvalidArgumentError("mip_levels: mip chains are made for formats of 32-bit "
                                   "channels, not " + formatName(format));
    return texels;
}

// Where coarse texel `j` of `coarse` samples the finer axis of `fine` texels: the two texels
// and the weight of the second (nearest: one texel, weight 0).
struct Tap {
    uint32_t first, second;
    double weight;
};

Tap tap(uint32_t j, uint32_t coarse, uint32_t fine, bool linear) {
    const double centre = (j + 0.5) * fine / coarse;  // in the finer level's texel edges
    const auto clampIndex = [fine](double i) {
        return static_cast<uint32_t>(std::clamp(i, 0.0, double(fine - 1)));
    };
    if (!linear) {
        const uint32_t index = clampIndex(std::floor(centre));
        return {index, index, 0.0};
    }
    const double position = centre - 0.5, low = std::floor(position);
    return {clampIndex(low), clampIndex(low + 1), position - low};
}

template <typename T>
void halve(const T* fine, const VkExtent3D& f, T* coarse, const VkExtent3D& c, uint32_t layers,
           uint32_t channels, bool linear) {
    std::vector<Tap> xs, ys, zs;
    for (uint32_t j = 0; j < c.width; ++j) xs.push_back(tap(j, c.width, f.width, linear));
    for (uint32_t j = 0; j < c.height; ++j) ys.push_back(tap(j, c.height, f.height, linear));
    for (uint32_t j = 0; j < c.depth; ++j) zs.push_back(tap(j, c.depth, f.depth, linear));
    const uint64_t fine_layer = uint64_t(f.width) * f.height * f.depth * channels;
    const uint64_t coarse_layer = uint64_t(c.width) * c.height * c.depth * channels;
    for (uint32_t layer = 0; layer < layers; ++layer) {
        const T* in = fine + layer * fine_layer;
        T* out = coarse + layer * coarse_layer;
        for (uint32_t z = 0; z < c.depth; ++z)
            for (uint32_t y = 0; y < c.height; ++y)
                for (uint32_t x = 0; x < c.width; ++x)
                    for (uint32_t ch = 0; ch < channels; ++ch) {
                        double sum = 0.0;
                        for (int corner = 0; corner < 8; ++corner) {
                            const Tap& tx = xs[x];
                            const Tap& ty = ys[y];
                            const Tap& tz = zs[z];
                            const bool bx = corner & 1, by = corner & 2, bz = corner & 4;
                            const double w = (bx ? tx.weight : 1 - tx.weight) *
                                             (by ? ty.weight : 1 - ty.weight) *
                                             (bz ? tz.weight : 1 - tz.weight);
                            if (w == 0.0) continue;
                            const uint64_t index =
                                ((uint64_t(bz ? tz.second : tz.first) * f.height +
                                  (by ? ty.second : ty.first)) * f.width +
                                 (bx ? tx.second : tx.first)) * channels + ch;
                            sum += w * double(in[index]);
                        }
                        out[((uint64_t(z) * c.height + y) * c.width + x) * channels + ch] =
                            static_cast<T>(sum);
                    }
    }
}

template <typename T>
void chain(const ImageSpec& spec, const uint8_t* level0, std::vector<uint8_t>& out,
           uint32_t channels, bool linear) {
    const uint64_t texel = sizeof(T) * channels;
    // A copy: the caller's bytes need not be aligned for T.
    std::vector<T> first(uint64_t(spec.extent.width) * spec.extent.height * spec.extent.depth *
                         spec.layers * channels);
    std::memcpy(first.data(), level0, first.size() * sizeof(T));
    const T* fine = first.data();
    uint64_t offset = 0;
    for (uint32_t level = 1; level < spec.mip_levels; ++level) {
        const VkExtent3D f = mipExtent(spec.extent, level - 1), c = mipExtent(spec.extent, level);
        T* coarse = reinterpret_cast<T*>(out.data() + offset);
        halve(fine, f, coarse, c, spec.layers, channels, linear);
        fine = coarse;
        offset += uint64_t(c.width) * c.height * c.depth * spec.layers * texel;
    }
}

}  // namespace

VkExtent3D mipExtent(const VkExtent3D& extent, uint32_t level) noexcept {
    const auto half = [level](uint32_t e) { return std::max(e >> level, 1u); };
    return {half(extent.width), half(extent.height), half(extent.depth)};
}

std::vector<uint8_t> hostMipLevels(const ImageSpec& spec, const uint8_t* level0, bool linear) {
    const TexelLayout texels = texelsOf(spec.format);
    uint64_t bytes = 0;
    for (uint32_t level = 1; level < spec.mip_levels; ++level) {
        const VkExtent3D e = mipExtent(spec.extent, level);
        bytes += uint64_t(e.width) * e.height * e.depth * spec.layers * 4 * texels.channels;
    }
    std::vector<uint8_t> out(bytes);
    switch (texels.kind) {
        case ComponentKind::Float:
            chain<float>(spec, level0, out, texels.channels, linear);
            break;
        case ComponentKind::Signed:
            chain<int32_t>(spec, level0, out, texels.channels, linear);
            break;
        case ComponentKind::Unsigned:
            chain<uint32_t>(spec, level0, out, texels.channels, linear);
            break;
    }
    return out;
}

}  // namespace vkdispatch
