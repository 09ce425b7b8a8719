#pragma once
// A device's memory for buffers. Small requests share large blocks: vkAllocateMemory costs
// 0.1-0.3 ms on some drivers and implementations cap the number of live allocations
// (maxMemoryAllocationCount); larger requests get their own allocation, as does a small one
// when memory is too short for a new block. Owned by the Device.
// Blocks hold buffers only: images placed beside buffers would need bufferImageGranularity.
//
// Thread safety: allocate() and releasing leases may run on any thread.
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "vkdispatch/handle.hpp"
#include "vkdispatch/range_allocator.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class MemoryPool {
    struct Block;

public:
    /// Requests up to this size are placed in shared blocks (of kBlockSize bytes by default).
    static constexpr VkDeviceSize kLargestPooled = VkDeviceSize(256) << 10;
    static constexpr VkDeviceSize kBlockSize = VkDeviceSize(8) << 20;

    /// Memory held until destruction: a range of a shared block or an allocation of its own,
    /// mapped when its memory type is host-visible.
    class Lease {
    public:
        Lease() = default;
        Lease(Lease&& other) noexcept;
        Lease& operator=(Lease&& other) noexcept;
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        ~Lease() { reset(); }

        VkDeviceMemory memory() const noexcept { return m_memory; }
        VkDeviceSize offset() const noexcept { return m_offset; }
        /// Host address of offset(), or nullptr when the memory is not host-visible.
        void* mapped() const noexcept { return m_mapped; }
        bool pooled() const noexcept { return m_block != nullptr; }
        /// Bytes of the VkDeviceMemory that offset() lies in (a whole block when pooled).
        VkDeviceSize allocationSize() const noexcept;
        void reset() noexcept;

    private:
        friend class MemoryPool;
        MemoryPool* m_pool = nullptr;
        Block* m_block = nullptr;  // pooled leases
        UniqueMemory m_own;        // the others
        VkDeviceMemory m_memory = VK_NULL_HANDLE;
        VkDeviceSize m_offset = 0;
        VkDeviceSize m_size = 0;
        void* m_mapped = nullptr;
    };

    /// `export_types`: handle types allocate() makes buffer memory exportable as (0: none);
    /// buffers bound to it must be created with VkExternalMemoryBufferCreateInfo of them.
    MemoryPool(VkDevice device, const VkPhysicalDeviceMemoryProperties& properties,
               VkDeviceSize block_size = kBlockSize,
               VkExternalMemoryHandleTypeFlags export_types = 0);
    /// Frees the blocks: every lease must be gone by then.
    ~MemoryPool();
    MemoryPool(const MemoryPool&) = delete;
    MemoryPool& operator=(const MemoryPool&) = delete;

    /// Memory of type `type_index` meeting `requirements` (size and alignment).
    Lease allocate(const VkMemoryRequirements& requirements, uint32_t type_index);
    /// Memory of its own, never a shared block's nor exportable (images: blocks hold buffers
    /// only).
    Lease allocateDedicated(const VkMemoryRequirements& requirements, uint32_t type_index) const {
        return ownLease(requirements, type_index, 0);
    }
    VkExternalMemoryHandleTypeFlags exportTypes() const noexcept { return m_export_types; }
    /// Shared blocks currently allocated (for tests).
    size_t blockCount() const;

private:
    struct Block {
        Block(VkDeviceSize size, uint32_t type) : type_index(type), ranges(size) {}
        UniqueMemory memory;
        void* mapped = nullptr;
        uint32_t type_index;
        RangeAllocator ranges;
    };

    // Allocates (and maps, if host-visible) `size` bytes of memory type `type_index`.
    UniqueMemory allocateMemory(VkDeviceSize size, uint32_t type_index, void** mapped,
                                VkExternalMemoryHandleTypeFlags export_types) const;
    Lease leaseFromBlocks(const VkMemoryRequirements& requirements, uint32_t type_index);
    Lease ownLease(const VkMemoryRequirements& requirements, uint32_t type_index,
                   VkExternalMemoryHandleTypeFlags export_types) const;
    void release(Block* block, VkDeviceSize offset, VkDeviceSize size) noexcept;

    VkDevice m_device;
    VkPhysicalDeviceMemoryProperties m_properties;
    VkDeviceSize m_block_size;
    VkExternalMemoryHandleTypeFlags m_export_types;
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Block>> m_blocks;
};

}  // namespace vkdispatch
