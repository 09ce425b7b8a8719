#pragma once
// A device's memory for buffers. Small requests share large blocks: vkAllocateMemory costs
// 0.1-0.3 ms on some drivers and implementations cap the number of live allocations
// (maxMemoryAllocationCount); larger requests get their own allocation, as does a small one
// when memory is too short for a new block. Owned by the Device.
// Blocks hold buffers only: images placed beside buffers would need bufferImageGranularity.
// An allocation of its own (a large buffer's, an image's) is kept when its lease goes (a few, up
// to an eighth of their heap) and handed to the next request of about its size: allocating
// 256 MiB took 4.5 ms on an H200, and scripts make and drop temporaries of one shape over and
// over. A kept allocation
// serves only a request of its memory type and export handle types (exportable memory binds
// only to buffers created for it). Kept allocations are freed by dropKept(), when an allocation
// runs out of memory, and with the pool.
//
// Each block and allocation of its own carries an attachment: state a higher layer keeps about
// that memory (interop/ keeps its CUDA import there: one import per block, which took 0.2 ms),
// made on first ask and destroyed with the memory, before it is freed. The pool knows nothing of
// what it holds.
//
// Thread safety: allocate() and releasing leases may run on any thread.
#include <array>
#include <cstdint>
#include <functional>
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
        /// The attachment of memory(): made by `make` on the first ask for this memory, then the
        /// same for every lease of it, until the memory is freed (a kept allocation keeps it).
        /// `make` runs at most once at a time per pool, and may throw (nothing is attached).
        std::shared_ptr<void> attachment(const std::function<std::shared_ptr<void>()>& make);
        void reset() noexcept;

    private:
        friend class MemoryPool;
        MemoryPool* m_pool = nullptr;
        Block* m_block = nullptr;  // pooled leases
        UniqueMemory m_own;        // the others
        std::shared_ptr<void> m_attachment;  // of m_own; destroyed before it
        VkDeviceMemory m_memory = VK_NULL_HANDLE;
        VkDeviceSize m_offset = 0;
        VkDeviceSize m_size = 0;
        void* m_mapped = nullptr;
        uint32_t m_type_index = 0;  // of an allocation of its own, to be kept for reuse
        VkExternalMemoryHandleTypeFlags m_export_types = 0;  // the same
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
    Lease allocateDedicated(const VkMemoryRequirements& requirements, uint32_t type_index);
    VkExternalMemoryHandleTypeFlags exportTypes() const noexcept { return m_export_types; }
    /// Shared blocks currently allocated (for tests).
    size_t blockCount() const;
    /// Allocations of their own kept for reuse (for tests).
    size_t keptCount() const;
    /// Requests served by a kept allocation since the pool was made (for tests).
    uint64_t reuseCount() const;
    /// Frees every kept allocation (never memory a lease holds); how many there were.
    size_t dropKept() noexcept;

private:
    struct Block {
        Block(VkDeviceSize size, uint32_t type) : type_index(type), ranges(size) {}
        UniqueMemory memory;
        void* mapped = nullptr;
        uint32_t type_index;
        RangeAllocator ranges;
        std::shared_ptr<void> attachment;  // destroyed before `memory`
    };

    struct Kept {
        UniqueMemory memory;
        std::shared_ptr<void> attachment;  // destroyed before `memory`
        VkDeviceSize size = 0;
        uint32_t type_index = 0;
        VkExternalMemoryHandleTypeFlags export_types = 0;
        void* mapped = nullptr;
    };

    // Allocates (and maps, if host-visible) `size` bytes of memory type `type_index`.
    UniqueMemory allocateMemory(VkDeviceSize size, uint32_t type_index, void** mapped,
                                VkExternalMemoryHandleTypeFlags export_types) const;
    // `allocate()` once more after freeing the kept allocations, when it ran out of memory and
    // there were some.
    template <class Allocate>
    auto retryWithoutKept(Allocate allocate) -> decltype(allocate());
    Lease leaseFromBlocks(const VkMemoryRequirements& requirements, uint32_t type_index);
    // An allocation of its own (a kept one of its kind when there is one), kept when it goes.
    Lease ownLease(const VkMemoryRequirements& requirements, uint32_t type_index,
                   VkExternalMemoryHandleTypeFlags export_types);
    // Room for every kept allocation and one more, so that keep() and dropKept() free memory
    // outside m_mutex (an attachment's destruction may take a while) without allocating.
    using KeptBatch = std::array<Kept, kKeptAllocations + 1>;

    void checkType(uint32_t type_index) const;
    VkDeviceSize heapOf(uint32_t type_index) const noexcept;
    // The kept allocation of `type_index` and `export_types` of at least `size` bytes and at
    // most an eighth more, taken out; one without memory when there is none.
    Kept takeKept(VkDeviceSize size, uint32_t type_index,
                  VkExternalMemoryHandleTypeFlags export_types);
    // Keeps the memory of `lease`, an allocation of its own that is going.
    void keep(Lease& lease) noexcept;
    // Moves the `count` oldest kept allocations into `out`; m_mutex is held.
    void takeOldest(size_t count, KeptBatch& out) noexcept;
    void release(Block* block, VkDeviceSize offset, VkDeviceSize size) noexcept;

    VkDevice m_device;
    VkPhysicalDeviceMemoryProperties m_properties;
    VkDeviceSize m_block_size;
    VkExternalMemoryHandleTypeFlags m_export_types;
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Block>> m_blocks;
    std::vector<Kept> m_kept;  // oldest first
    uint64_t m_reuses = 0;
    // Held while an attachment is made (a CUDA import: 0.2 ms), apart from m_mutex so that
    // allocations go on meanwhile.
    std::mutex m_attachment_mutex;
};

}  // namespace vkdispatch
