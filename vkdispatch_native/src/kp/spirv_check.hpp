#pragma once
// Checks SPIR-V given to kp::Algorithm before it reaches vkCreateShaderModule: drivers (lavapipe
// among them) and the validation layer crash or fail with unrelated errors on a malformed module,
// so a bad one must be refused here, with a message that says what is wrong.
#include <cstdint>
#include <vector>

namespace kp::detail {

/// Throws vkdispatch::InvalidArgumentError naming `spirv` unless `words` is a module that
/// spirv-tools' validator accepts for Vulkan 1.`vulkan_minor` (block layouts are not checked:
/// which rules apply depends on device features the validator does not know).
void checkSpirv(const std::vector<uint32_t>& words, uint32_t vulkan_minor);

}  // namespace kp::detail
