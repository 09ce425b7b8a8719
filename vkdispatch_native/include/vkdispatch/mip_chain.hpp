#pragma once
// Mip levels made on the host: each level is the one above halved as a blit would halve it
// (linear: the finer level sampled bilinearly, or trilinearly, at the coarser level's texel
// centres, clamped to the edge; nearest for formats that are not filtered linearly). Made on
// the host because blits need a graphics queue and compute-only queues are common (NVIDIA's).
//
// Thread safety: pure functions.
#include <cstdint>
#include <vector>

#include "vkdispatch/vk.hpp"

namespace vkdispatch {

struct ImageSpec;

/// Extent of mip level `level` of `extent`: each axis halved `level` times, at least 1.
VkExtent3D mipExtent(const VkExtent3D& extent, uint32_t level) noexcept;

/// Levels 1 .. spec.mip_levels - 1, packed one after another (each as level 0 is packed:
/// layers, depth, rows, texels, channels), from `level0`, the packed texels of level 0.
/// Formats of 32-bit channels only (R32..R32G32B32A32, float, signed or unsigned); throws
/// InvalidArgumentError naming the format otherwise.
std::vector<uint8_t> hostMipLevels(const ImageSpec& spec, const uint8_t* level0, bool linear);

}  // namespace vkdispatch
