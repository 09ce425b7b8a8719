#pragma once
// Pure choice of a Vulkan memory type, and creation of a buffer bound to memory of that type.
#include <cstdint>
#include <vector>

#include "vkdispatch/device.hpp"
#include "vkdispatch/handle.hpp"
#include "vkdispatch/memory_pool.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

/// Index of the memory type, among those in `allowed_bits`, that has every `required` flag and
/// most of the `preferred` ones; host-visible types are avoided unless asked for. -1 if none.
int chooseMemoryType(const std::vector<uint32_t>& type_flags, uint32_t allowed_bits,
                     uint32_t required, uint32_t preferred);

/// Index of the memory type of `device` for a resource allowing `allowed_bits`: as above.
int chooseMemoryType(const Device& device, uint32_t allowed_bits, uint32_t required,
                     uint32_t preferred);

/// Sets `info`'s sharing for a buffer the queues of `families` use: concurrent over them when
/// there are several (no ownership transfers), else exclusive to the one family that uses it.
void shareAmong(VkBufferCreateInfo& info, const std::vector<uint32_t>& families);

/// A VkBuffer bound to memory from its device's pool (memory.mapped() is its host address when
/// that memory is host-visible). Queues of every family in `shared_by` may use it without
/// ownership transfers (concurrent sharing) when it names more than one; otherwise it belongs
/// to the family that uses it.
struct BoundBuffer {
    MemoryPool::Lease memory;  // declared first: released after the buffer is destroyed
    UniqueBuffer buffer;
    uint32_t memory_flags = 0;
};

BoundBuffer createBoundBuffer(Device& device, uint64_t size, VkBufferUsageFlags usage,
                              uint32_t required, uint32_t preferred,
                              const std::vector<uint32_t>& shared_by = {});

}  // namespace vkdispatch
