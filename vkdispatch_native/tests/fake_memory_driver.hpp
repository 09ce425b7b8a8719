#pragma once
// A stand-in for the driver's memory calls, for memory pools tested without a device.
#include <cstdint>
#include <map>
#include <vector>

#include "scoped_entry_point.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch::test {

// Stands in for the driver's memory calls for pools made on kFakeDevice, so a pool can be given
// memory types no test device has (lavapipe offers one). Each allocation remembers its type;
// calls for real devices go on to the driver. A freed handle value is handed out again, as
// real drivers may do.
class FakeMemoryDriver {
public:
    static inline const VkDevice kFakeDevice = reinterpret_cast<VkDevice>(uintptr_t(0xFA4E0000));

    FakeMemoryDriver() { current() = this; }
    ~FakeMemoryDriver() { current() = nullptr; }
    FakeMemoryDriver(const FakeMemoryDriver&) = delete;
    FakeMemoryDriver& operator=(const FakeMemoryDriver&) = delete;

    /// The memory type `memory` was allocated with; -1 for memory this driver did not allocate.
    int typeOf(VkDeviceMemory memory) const {
        const auto found = m_allocations.find(memory);
        return found == m_allocations.end() ? -1 : static_cast<int>(found->second.type);
    }
    size_t liveAllocations() const { return m_allocations.size(); }
    /// vkAllocateMemory calls answered so far.
    size_t allocationsMade() const { return m_made; }

private:
    struct Allocation {
        uint32_t type;
        std::vector<uint8_t> bytes;  // what vkMapMemory hands out
    };

    static FakeMemoryDriver*& current() {
        static FakeMemoryDriver* driver = nullptr;
        return driver;
    }
    static VKAPI_ATTR VkResult VKAPI_CALL allocate(VkDevice device,
                                                   const VkMemoryAllocateInfo* info,
                                                   const VkAllocationCallbacks* callbacks,
                                                   VkDeviceMemory* memory) {
        FakeMemoryDriver& self = *current();
        if (device != kFakeDevice)
            return self.m_allocate.original()(device, info, callbacks, memory);
        ++self.m_made;
        if (self.m_freed.empty()) {
            *memory = reinterpret_cast<VkDeviceMemory>(uintptr_t(self.m_made));
        } else {  // as drivers may: a freed handle value again
            *memory = self.m_freed.back();
            self.m_freed.pop_back();
        }
        self.m_allocations[*memory] = {info->memoryTypeIndex,
                                       std::vector<uint8_t>(info->allocationSize)};
        return VK_SUCCESS;
    }
    static VKAPI_ATTR void VKAPI_CALL free(VkDevice device, VkDeviceMemory memory,
                                          const VkAllocationCallbacks* callbacks) {
        FakeMemoryDriver& self = *current();
        if (device != kFakeDevice) return self.m_free.original()(device, memory, callbacks);
        if (self.m_allocations.erase(memory) > 0) self.m_freed.push_back(memory);
    }
    static VKAPI_ATTR VkResult VKAPI_CALL map(VkDevice device, VkDeviceMemory memory,
                                              VkDeviceSize offset, VkDeviceSize size,
                                              VkMemoryMapFlags flags, void** data) {
        FakeMemoryDriver& self = *current();
        if (device != kFakeDevice)
            return self.m_map.original()(device, memory, offset, size, flags, data);
        *data = self.m_allocations.at(memory).bytes.data() + offset;
        return VK_SUCCESS;
    }

    test::ScopedEntryPoint<PFN_vkAllocateMemory> m_allocate{vkAllocateMemory, allocate};
    test::ScopedEntryPoint<PFN_vkFreeMemory> m_free{vkFreeMemory, free};
    test::ScopedEntryPoint<PFN_vkMapMemory> m_map{vkMapMemory, map};
    size_t m_made = 0;
    std::vector<VkDeviceMemory> m_freed;  // handle values to hand out again
    std::map<VkDeviceMemory, Allocation> m_allocations;
};

// Memory type 0 device-local, 1 host-visible and coherent, both on heap 0 (1 GiB).
inline VkPhysicalDeviceMemoryProperties twoMemoryTypes() {
    VkPhysicalDeviceMemoryProperties properties{};
    properties.memoryHeapCount = 1;
    properties.memoryHeaps[0] = {VkDeviceSize(1) << 30, VK_MEMORY_HEAP_DEVICE_LOCAL_BIT};
    properties.memoryTypeCount = 2;
    properties.memoryTypes[0] = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
    properties.memoryTypes[1] = {
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0};
    return properties;
}

inline VkMemoryRequirements requirements(VkDeviceSize size, VkDeviceSize alignment) {
    VkMemoryRequirements req{};
    req.size = size;
    req.alignment = alignment;
    return req;
}

}  // namespace vkdispatch::test
