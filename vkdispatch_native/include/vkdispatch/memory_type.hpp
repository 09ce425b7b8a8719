#pragma once
// Pure choice of a Vulkan memory type, and allocation of memory for a buffer.
#include <cstdint>
#include <vector>

#include "vkdispatch/handle.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

/// Index of the memory type, among those in `allowed_bits`, that has every `required` flag and
/// most of the `preferred` ones; host-visible types are avoided unless asked for. -1 if none.
int chooseMemoryType(const std::vector<uint32_t>& type_flags, uint32_t allowed_bits,
                     uint32_t required, uint32_t preferred);

/// A VkBuffer bound to its own allocation, mapped when its memory is host-visible.
struct BoundBuffer {
    UniqueBuffer buffer;
    UniqueMemory memory;
    void* mapped = nullptr;
    uint32_t memory_flags = 0;
};

BoundBuffer createBoundBuffer(VkDevice device, const VkPhysicalDeviceMemoryProperties& memory,
                              uint64_t size, VkBufferUsageFlags usage, uint32_t required,
                              uint32_t preferred);

}  // namespace vkdispatch
