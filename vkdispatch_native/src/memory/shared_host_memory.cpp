#include "vkdispatch/shared_host_memory.hpp"

#include <cstdlib>
#include <string>

#include "vkdispatch/errors.hpp"
#include "vkdispatch/memory_type.hpp"

namespace vkdispatch {
namespace {

constexpr auto kHostAllocation = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;

uint64_t roundUp(uint64_t value, uint64_t multiple) {
    return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

SharedHostMemory::SharedHostMemory(const std::vector<Device*>& devices, uint64_t size) {
    uint64_t alignment = 1;
    for (const Device* device : devices) {
        if (!reaches(*device))
            throw InvalidArgumentError("devices: '" + device->info().device_name +
                                       "' cannot import host memory "
                                       "(no VK_EXT_external_memory_host)");
        // Import alignments are powers of two: the largest is a multiple of every other.
        alignment = std::max(alignment, device->hostImportAlignment());
    }
    if (size == 0) throw InvalidArgumentError("size: expected at least 1 byte, got 0");
    m_size = roundUp(size, alignment);
    m_host = static_cast<uint8_t*>(std::aligned_alloc(alignment, m_size));
    if (m_host == nullptr)
        throw Error("allocating " + std::to_string(m_size) + " bytes of host memory");
    try {
        for (Device* device : devices) m_views.push_back(import(*device));
    } catch (...) {
        m_views.clear();
        std::free(m_host);
        throw;
    }
}

SharedHostMemory::~SharedHostMemory() {
    m_views.clear();
    std::free(m_host);
}

SharedHostMemory::View SharedHostMemory::import(Device& device) {
    const VkDevice handle = device.handle();
    VkMemoryHostPointerPropertiesEXT pointer{VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    VK_CHECK(vkGetMemoryHostPointerPropertiesEXT(handle, kHostAllocation, m_host, &pointer),
             "asking '" + device.info().device_name + "' which memory types import host memory");

    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = kHostAllocation;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.pNext = &external;
    info.size = m_size;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    shareAmong(info, device.queueFamilies());  // queues of any family copy through it
    VkBuffer buffer;
    VK_CHECK(vkCreateBuffer(handle, &info, nullptr, &buffer),
             "creating a buffer over imported host memory");
    View view{&device, UniqueMemory(), UniqueBuffer(handle, buffer)};

    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(handle, buffer, &req);
    const int type = chooseMemoryType(device, req.memoryTypeBits & pointer.memoryTypeBits,
                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (type < 0 || req.size > m_size)
        throw Error("'" + device.info().device_name + "' offers no memory type to import " +
                    std::to_string(m_size) + " bytes of host memory into");
    VkImportMemoryHostPointerInfoEXT host{VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
    host.handleType = kHostAllocation;
    host.pHostPointer = m_host;
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.pNext = &host;
    alloc.allocationSize = m_size;
    alloc.memoryTypeIndex = static_cast<uint32_t>(type);
    VkDeviceMemory memory;
    VK_CHECK(vkAllocateMemory(handle, &alloc, nullptr, &memory),
             "importing " + std::to_string(m_size) + " bytes of host memory into '" +
                 device.info().device_name + "'");
    view.memory = UniqueMemory(handle, memory);
    VK_CHECK(vkBindBufferMemory(handle, buffer, memory, 0), "binding imported host memory");
    return view;
}

VkBuffer SharedHostMemory::bufferOn(const Device& device) const {
    for (const View& view : m_views)
        if (view.device == &device) return view.buffer.get();
    throw InvalidArgumentError("device: '" + device.info().device_name +
                               "' is not one the memory was imported into");
}

}  // namespace vkdispatch
