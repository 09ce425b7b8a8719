#include "vkdispatch/memory_pool.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "vkdispatch/errors.hpp"

namespace vkdispatch {

MemoryPool::Lease::Lease(Lease&& other) noexcept { *this = std::move(other); }

MemoryPool::Lease& MemoryPool::Lease::operator=(Lease&& other) noexcept {
    if (this != &other) {
        reset();
        m_pool = std::exchange(other.m_pool, nullptr);
        m_block = std::exchange(other.m_block, nullptr);
        m_own = std::move(other.m_own);
        m_attachment = std::move(other.m_attachment);
        m_memory = std::exchange(other.m_memory, VK_NULL_HANDLE);
        m_offset = std::exchange(other.m_offset, 0);
        m_size = std::exchange(other.m_size, 0);
        m_mapped = std::exchange(other.m_mapped, nullptr);
        m_type_index = other.m_type_index;
        m_export_types = other.m_export_types;
    }
    return *this;
}

void MemoryPool::Lease::reset() noexcept {
    if (m_block != nullptr) m_pool->release(m_block, m_offset, m_size);
    if (m_own) m_pool->keep(*this);
    m_attachment.reset();  // what keep() did not take, before the memory it is about
    m_own.reset();
    m_pool = nullptr;
    m_block = nullptr;
    m_memory = VK_NULL_HANDLE;
    m_offset = m_size = 0;
    m_mapped = nullptr;
}

VkDeviceSize MemoryPool::Lease::allocationSize() const noexcept {
    return m_block != nullptr ? m_block->ranges.capacity() : m_size;
}

std::shared_ptr<void> MemoryPool::Lease::attachment(
    const std::function<std::shared_ptr<void>()>& make) {
    if (m_pool == nullptr) throw Error("an empty lease has no memory to attach to");
    std::lock_guard<std::mutex> lock(m_pool->m_attachment_mutex);
    std::shared_ptr<void>& slot = m_block != nullptr ? m_block->attachment : m_attachment;
    if (!slot) slot = make();
    return slot;
}

MemoryPool::MemoryPool(VkDevice device, const VkPhysicalDeviceMemoryProperties& properties,
                       VkDeviceSize block_size, VkExternalMemoryHandleTypeFlags export_types)
    : m_device(device), m_properties(properties), m_block_size(block_size),
      m_export_types(export_types) {
    m_kept.reserve(kKeptAllocations + 1);  // keep() adds one before it frees the oldest
}

MemoryPool::~MemoryPool() = default;

size_t MemoryPool::blockCount() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_blocks.size();
}

size_t MemoryPool::keptCount() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_kept.size();
}

uint64_t MemoryPool::reuseCount() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_reuses;
}

void MemoryPool::checkType(uint32_t type_index) const {
    if (type_index >= m_properties.memoryTypeCount)
        throw InvalidArgumentError("type_index: " + std::to_string(type_index) +
                                   " is not a memory type of this device (it has " +
                                   std::to_string(m_properties.memoryTypeCount) + ")");
}

VkDeviceSize MemoryPool::heapOf(uint32_t type_index) const noexcept {
    return m_properties.memoryHeaps[m_properties.memoryTypes[type_index].heapIndex].size;
}

UniqueMemory MemoryPool::allocateMemory(VkDeviceSize size, uint32_t type_index, void** mapped,
                                        VkExternalMemoryHandleTypeFlags export_types) const {
    // Asking Vulkan for more than the heap holds is invalid usage, not an allocation failure.
    const VkDeviceSize heap = heapOf(type_index);
    if (size > heap)
        throw OutOfMemoryError(VK_ERROR_OUT_OF_DEVICE_MEMORY,
                               "allocating " + std::to_string(size) +
                                   " bytes of device memory (its memory heap holds " +
                                   std::to_string(heap) + " bytes)",
                               __FILE__, __LINE__);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = size;
    alloc.memoryTypeIndex = type_index;
    VkExportMemoryAllocateInfo exported{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exported.handleTypes = export_types;
    if (export_types != 0) alloc.pNext = &exported;
    VkDeviceMemory handle;
    VK_CHECK(vkAllocateMemory(m_device, &alloc, nullptr, &handle),
             "allocating " + std::to_string(size) + " bytes of device memory");
    UniqueMemory memory(m_device, handle);
    *mapped = nullptr;
    if (m_properties.memoryTypes[type_index].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        VK_CHECK(vkMapMemory(m_device, handle, 0, VK_WHOLE_SIZE, 0, mapped), "mapping memory");
    return memory;
}

template <class Allocate>
auto MemoryPool::retryWithoutKept(Allocate allocate) -> decltype(allocate()) {
    try {
        return allocate();
    } catch (const OutOfMemoryError&) {
        if (dropKept() == 0) throw;
    }
    return allocate();
}

MemoryPool::Lease MemoryPool::allocate(const VkMemoryRequirements& requirements,
                                       uint32_t type_index) {
    checkType(type_index);
    if (requirements.size <= std::min(kLargestPooled, m_block_size) &&
        requirements.alignment <= m_block_size) {
        try {
            return retryWithoutKept([&] { return leaseFromBlocks(requirements, type_index); });
        } catch (const OutOfMemoryError&) {
            // No room for a new block: the request alone may still fit.
        }
    }
    return ownLease(requirements, type_index, m_export_types);
}

MemoryPool::Lease MemoryPool::allocateDedicated(const VkMemoryRequirements& requirements,
                                                uint32_t type_index) {
    checkType(type_index);
    return ownLease(requirements, type_index, 0);
}

MemoryPool::Lease MemoryPool::ownLease(const VkMemoryRequirements& requirements,
                                       uint32_t type_index,
                                       VkExternalMemoryHandleTypeFlags export_types) {
    Kept own = takeKept(requirements.size, type_index, export_types);
    if (!own.memory)
        own.memory = retryWithoutKept([&] {
            return allocateMemory(requirements.size, type_index, &own.mapped, export_types);
        });
    Lease lease;
    lease.m_pool = this;
    lease.m_own = std::move(own.memory);
    lease.m_attachment = std::move(own.attachment);
    lease.m_memory = lease.m_own.get();
    lease.m_size = own.size;
    lease.m_mapped = own.mapped;
    lease.m_type_index = type_index;
    lease.m_export_types = export_types;
    return lease;
}

MemoryPool::Kept MemoryPool::takeKept(VkDeviceSize size, uint32_t type_index,
                                      VkExternalMemoryHandleTypeFlags export_types) {
    std::lock_guard<std::mutex> lock(m_mutex);
    // The newest first: the one a loop of equal temporaries just dropped.
    for (auto kept = m_kept.rbegin(); kept != m_kept.rend(); ++kept) {
        if (kept->type_index != type_index || kept->export_types != export_types ||
            kept->size < size || kept->size - size > size / 8)
            continue;
        Kept taken = std::move(*kept);
        m_kept.erase(std::next(kept).base());
        ++m_reuses;
        return taken;
    }
    return Kept{UniqueMemory(), nullptr, size, type_index, export_types, nullptr};
}

void MemoryPool::keep(Lease& lease) noexcept {
    const VkDeviceSize heap = heapOf(lease.m_type_index);
    if (lease.m_size > heap / 8) return;  // the lease frees it: it would hold too much of the heap
    KeptBatch evicted;  // freed after the lock is released
    std::lock_guard<std::mutex> lock(m_mutex);
    m_kept.push_back(Kept{std::move(lease.m_own), std::move(lease.m_attachment), lease.m_size,
                          lease.m_type_index, lease.m_export_types, lease.m_mapped});
    VkDeviceSize kept_bytes = 0;
    for (const Kept& kept : m_kept) kept_bytes += kept.size;
    size_t oldest = 0;
    while (m_kept.size() - oldest > kKeptAllocations || kept_bytes > heap / 8)
        kept_bytes -= m_kept[oldest++].size;
    takeOldest(oldest, evicted);
}

size_t MemoryPool::dropKept() noexcept {
    KeptBatch dropped;  // freed after the lock is released
    std::lock_guard<std::mutex> lock(m_mutex);
    const size_t count = m_kept.size();
    takeOldest(count, dropped);
    return count;
}

void MemoryPool::takeOldest(size_t count, KeptBatch& out) noexcept {
    std::move(m_kept.begin(), m_kept.begin() + count, out.begin());
    m_kept.erase(m_kept.begin(), m_kept.begin() + count);
}

MemoryPool::Lease MemoryPool::leaseFromBlocks(const VkMemoryRequirements& requirements,
                                              uint32_t type_index) {
    const VkDeviceSize alignment = std::max<VkDeviceSize>(requirements.alignment, 1);
    std::lock_guard<std::mutex> lock(m_mutex);
    Block* chosen = nullptr;
    std::optional<uint64_t> offset;
    for (auto& block : m_blocks) {
        if (block->type_index != type_index) continue;
        offset = block->ranges.allocate(requirements.size, alignment);
        if (offset) {
            chosen = block.get();
            break;
        }
    }
    if (chosen == nullptr) {
        auto block = std::make_unique<Block>(m_block_size, type_index);
        block->memory = allocateMemory(m_block_size, type_index, &block->mapped, m_export_types);
        offset = block->ranges.allocate(requirements.size, alignment);
        chosen = block.get();
        m_blocks.push_back(std::move(block));
    }
    Lease lease;
    lease.m_pool = this;
    lease.m_block = chosen;
    lease.m_memory = chosen->memory.get();
    lease.m_offset = *offset;
    lease.m_size = requirements.size;
    if (chosen->mapped != nullptr) lease.m_mapped = static_cast<uint8_t*>(chosen->mapped) + *offset;
    return lease;
}

void MemoryPool::release(Block* block, VkDeviceSize offset, VkDeviceSize size) noexcept {
    std::unique_ptr<Block> freed;  // after the lock is released: see KeptBatch
    std::lock_guard<std::mutex> lock(m_mutex);
    block->ranges.release(offset, size);  // a Lease releases exactly what it was given
    if (block->ranges.used() > 0) return;
    // An empty block is freed unless it is the last of its memory type: a buffer created and
    // destroyed in a loop should not allocate a block each time.
    const auto same_type = std::count_if(m_blocks.begin(), m_blocks.end(), [&](const auto& b) {
        return b->type_index == block->type_index;
    });
    if (same_type < 2) return;
    const auto found = std::find_if(m_blocks.begin(), m_blocks.end(),
                                    [&](const auto& b) { return b.get() == block; });
    freed = std::move(*found);
    m_blocks.erase(found);
}

}  // namespace vkdispatch
