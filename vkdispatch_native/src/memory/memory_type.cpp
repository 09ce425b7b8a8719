#include "vkdispatch/memory_type.hpp"

#include <bitset>
#include <string>

#include "vkdispatch/errors.hpp"

namespace vkdispatch {

int chooseMemoryType(const std::vector<uint32_t>& type_flags, uint32_t allowed_bits,
                     uint32_t required, uint32_t preferred) {
    int best = -1;
    int best_score = -1;
    for (size_t i = 0; i < type_flags.size(); ++i) {
        const uint32_t flags = type_flags[i];
        if (!(allowed_bits & (1u << i)) || (flags & required) != required) continue;
        // Mapping device memory by accident is costly on discrete GPUs (small BAR windows).
        const bool unwanted_host = (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
                                   !((required | preferred) & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
        const int score = 2 * static_cast<int>(std::bitset<32>(flags & preferred).count()) +
                          (unwanted_host ? 0 : 1);
        if (score > best_score) {
            best = static_cast<int>(i);
            best_score = score;
        }
    }
    return best;
}

BoundBuffer createBoundBuffer(VkDevice device, const VkPhysicalDeviceMemoryProperties& memory,
                              uint64_t size, VkBufferUsageFlags usage, uint32_t required,
                              uint32_t preferred) {
    BoundBuffer out;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer buffer;
    VK_CHECK(vkCreateBuffer(device, &info, nullptr, &buffer),
             "creating a buffer of " + std::to_string(size) + " bytes");
    out.buffer = UniqueBuffer(device, buffer);

    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buffer, &req);
    std::vector<uint32_t> flags;
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
        flags.push_back(memory.memoryTypes[i].propertyFlags);
    const int type = chooseMemoryType(flags, req.memoryTypeBits, required, preferred);
    if (type < 0)
        throw Error("no memory type with flags 0x" + std::to_string(required) +
                    " can hold a buffer on this device");

    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = static_cast<uint32_t>(type);
    VkDeviceMemory mem;
    VK_CHECK(vkAllocateMemory(device, &alloc, nullptr, &mem),
             "allocating " + std::to_string(req.size) + " bytes of device memory");
    out.memory = UniqueMemory(device, mem);
    out.memory_flags = flags[type];
    VK_CHECK(vkBindBufferMemory(device, buffer, mem, 0), "binding buffer memory");
    if (out.memory_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        VK_CHECK(vkMapMemory(device, mem, 0, VK_WHOLE_SIZE, 0, &out.mapped), "mapping memory");
    return out;
}

}  // namespace vkdispatch
