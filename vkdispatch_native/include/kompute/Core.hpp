#pragma once
// What every Kompute header needs: Vulkan's C++ bindings (vulkan.hpp) over the loader the
// vkdispatch core uses. The core is built with VK_NO_PROTOTYPES (volk), so vulkan.hpp dispatches
// through its dynamic loader, which kp::Manager initialises from its instance.
#include <array>
#include <cstdint>
#include <vector>

#include "vkdispatch/vk.hpp"

#include <vulkan/vulkan.hpp>

namespace kp {

/// Workgroup counts of a dispatch (x, y, z).
using Workgroup = std::array<uint32_t, 3>;
/// Constants given as floats (the default type of specialization and push constants).
using Constants = std::vector<float>;

namespace detail {
/// Points vulkan.hpp's default dispatcher at `instance` (loader trampolines, so the function
/// pointers serve every device of every instance).
void loadVulkanHpp(VkInstance instance);
}  // namespace detail

}  // namespace kp
