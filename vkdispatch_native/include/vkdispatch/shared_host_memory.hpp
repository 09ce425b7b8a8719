#pragma once
// Pinned host memory that several devices copy to and from directly: one page-aligned host
// allocation imported into each device (VK_EXT_external_memory_host) and bound to a transfer
// buffer there. One device downloads into it and another uploads from it, with no host copy
// in between: the path between replicas on different devices.
//
// Thread safety: none of its own; the transfer engine serialises its users.
#include <cstdint>
#include <memory>
#include <vector>

#include "vkdispatch/device.hpp"
#include "vkdispatch/handle.hpp"

namespace vkdispatch {

class SharedHostMemory {
public:
    /// Whether `device` can import host memory (see Device::hostImportAlignment).
    static bool reaches(const Device& device) noexcept { return device.hostImportAlignment() > 0; }

    /// `size` bytes (rounded up to every device's import alignment) imported into each of
    /// `devices` (no duplicates; each must reach it). Throws InvalidArgumentError for a device
    /// that cannot import host memory, Error when the driver refuses the import.
    SharedHostMemory(const std::vector<Device*>& devices, uint64_t size);
    ~SharedHostMemory();
    SharedHostMemory(const SharedHostMemory&) = delete;
    SharedHostMemory& operator=(const SharedHostMemory&) = delete;

    /// The transfer buffer over the whole memory on `device`, one of those it was made for.
    VkBuffer bufferOn(const Device& device) const;
    uint64_t size() const noexcept { return m_size; }
    uint8_t* data() noexcept { return m_host; }

private:
    struct View {
        const Device* device;
        UniqueMemory memory;  // declared first: freed after the buffer is destroyed
        UniqueBuffer buffer;
    };
    View import(Device& device);

    uint64_t m_size = 0;
    uint8_t* m_host = nullptr;  // freed after every view (the destructor clears them first)
    std::vector<View> m_views;
};

}  // namespace vkdispatch
