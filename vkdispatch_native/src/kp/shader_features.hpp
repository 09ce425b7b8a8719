#pragma once
// The device features a SPIR-V module's capabilities need (float16_t arithmetic needs
// shaderFloat16, float16_t buffers storageBuffer16BitAccess, ...). A pipeline whose module
// declares a capability the device did not enable is invalid usage that drivers answer with a
// crash or garbage, so kp::Algorithm refuses it first, naming what is missing.
#include <cstdint>
#include <vector>

#include "vkdispatch/device_info.hpp"

namespace kp::detail {

/// Throws vkdispatch::InvalidArgumentError naming `spirv`, the device and, for each capability
/// of `words` that needs a feature `device` does not offer, the capability and the feature.
/// Covers the optional features vkdispatch's Device enables wherever they are offered (16- and
/// 64-bit arithmetic, 16-bit storage), so what `device` offers is what a device made by
/// vkdispatch has enabled; for a device made elsewhere it is an upper bound.
void checkShaderFeatures(const std::vector<uint32_t>& words,
                         const vkdispatch::DeviceInfo& device);

}  // namespace kp::detail
