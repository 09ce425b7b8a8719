#pragma once
// A device's memory for buffers. Small requests share large blocks: vkAllocateMemory costs
// 0.1-0.3 ms on some drivers and implementations cap the number of live allocations
// (maxMemoryAllocationCount); larger requests get their own allocation, as does a small one
// when memory is too short for a new block. Owned by the Device.
// Blocks hold buffers only: images placed beside buffers would need bufferImageGranularity.
// A buffer's allocation of its own is kept when its lease goes (a few, up to an eighth of their
// heap) and handed to the next request of about its size: allocating 256 MiB took 4.5 ms on an
// H200, and scripts make and drop temporaries of one shape over and over. Kept allocations are
// freed when an allocation runs out of memory, and with the pool.
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
    /// Allocations of their own kept for reuse, at most (the oldest go first).
    static constexpr size_t kKeptAllocations = 4;

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
        uint32_t m_type_index = 0;  // of a kept-for-reuse allocation of its own
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
    Lease allocateDedicated(const VkMemoryRequirements& requirements, uint32_t type_index) {
        return ownLease(requirements, type_index, 0);
    }
    VkExternalMemoryHandleTypeFlags exportTypes() const noexcept { return m_export_types; }
    /// Shared blocks currently allocated (for tests).
    size_t blockCount() const;
    /// Allocations of their own kept for reuse (for tests).
    size_t keptCount() const;

private:
    struct Block {
        Block(VkDeviceSize size, uint32_t type) : type_index(type), ranges(size) {}
        UniqueMemory memory;
        void* mapped = nullptr;
        uint32_t type_index;
        RangeAllocator ranges;
    };

    struct Kept {
        UniqueMemory memory;
        VkDeviceSize size;
        uint32_t type_index;
        void* mapped;
    };

    // Allocates (and maps, if host-visible) `size` bytes of memory type `type_index`.
    UniqueMemory allocateMemory(VkDeviceSize size, uint32_t type_index, void** mapped,
                                VkExternalMemoryHandleTypeFlags export_types) const;
    Lease leaseFromBlocks(const VkMemoryRequirements& requirements, uint32_t type_index);
    // An allocation of its own; when memory runs out, frees the kept ones and tries again.
    Lease ownLease(const VkMemoryRequirements& requirements, uint32_t type_index,
                   VkExternalMemoryHandleTypeFlags export_types);
    // A kept allocation of `type_index` of at least `size` bytes and at most an eighth more.
    Lease reuseKept(VkDeviceSize size, uint32_t type_index);
    void keep(UniqueMemory memory, VkDeviceSize size, uint32_t type_index, void* mapped) noexcept;
    // Frees every kept allocation; whether there were any.
    bool dropKept() noexcept;
    void release(Block* block, VkDeviceSize offset, VkDeviceSize size) noexcept;

    VkDevice m_device;
    VkPhysicalDeviceMemoryProperties m_properties;
    VkDeviceSize m_block_size;
    VkExternalMemoryHandleTypeFlags m_export_types;
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Block>> m_blocks;
    std::vector<Kept> m_kept;  // oldest first
};

}  // namespace vkdispatch
