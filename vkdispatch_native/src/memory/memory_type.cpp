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

int chooseMemoryType(const Device& device, uint32_t allowed_bits, uint32_t required,
                     uint32_t preferred) {
    const VkPhysicalDeviceMemoryProperties& memory = device.memoryProperties();
    std::vector<uint32_t> flags;
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
        flags.push_back(memory.memoryTypes[i].propertyFlags);
    return chooseMemoryType(flags, allowed_bits, required, preferred);
}

void shareAmong(VkBufferCreateInfo& info, const std::vector<uint32_t>& families) {
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (families.size() > 1) {
        info.sharingMode = VK_SHARING_MODE_CONCURRENT;
        info.queueFamilyIndexCount = static_cast<uint32_t>(families.size());
        info.pQueueFamilyIndices = families.data();
    }
}

BoundBuffer createBoundBuffer(Device& device, uint64_t size, VkBufferUsageFlags usage,
                              uint32_t required, uint32_t preferred,
                              const std::vector<uint32_t>& shared_by) {
    const VkDevice handle = device.handle();
    BoundBuffer out;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    shareAmong(info, shared_by);
    // The pool may hand out exportable memory (for CUDA views), which binds only to buffers
    // created for its handle types.
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = device.memoryPool().exportTypes();
    if (external.handleTypes != 0) info.pNext = &external;
    VkBuffer buffer;
    VK_CHECK(vkCreateBuffer(handle, &info, nullptr, &buffer),
             "creating a buffer of " + std::to_string(size) + " bytes");
    out.buffer = UniqueBuffer(handle, buffer);

    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(handle, buffer, &req);
    const int type = chooseMemoryType(device, req.memoryTypeBits, required, preferred);
    if (type < 0)
        throw Error("no memory type with flags 0x" + std::to_string(required) +
                    " can hold a buffer on this device");

    out.memory = device.memoryPool().allocate(req, static_cast<uint32_t>(type));
    out.memory_flags = device.memoryProperties().memoryTypes[type].propertyFlags;
    VK_CHECK(vkBindBufferMemory(handle, buffer, out.memory.memory(), out.memory.offset()),
             "binding buffer memory");
    return out;
}

}  // namespace vkdispatch
