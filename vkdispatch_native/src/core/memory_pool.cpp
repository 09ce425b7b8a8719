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
        m_memory = std::exchange(other.m_memory, VK_NULL_HANDLE);
        m_offset = std::exchange(other.m_offset, 0);
        m_size = std::exchange(other.m_size, 0);
        m_mapped = std::exchange(other.m_mapped, nullptr);
        m_type_index = other.m_type_index;
    }
    return *this;
}

void MemoryPool::Lease::reset() noexcept {
    if (m_block != nullptr) m_pool->release(m_block, m_offset, m_size);
    if (m_own && m_pool != nullptr) m_pool->keep(std::move(m_own), m_size, m_type_index, m_mapped);
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

MemoryPool::MemoryPool(VkDevice device, const VkPhysicalDeviceMemoryProperties& properties,
                       VkDeviceSize block_size, VkExternalMemoryHandleTypeFlags export_types)
    : m_device(device), m_properties(properties), m_block_size(block_size),
      m_export_types(export_types) {}

MemoryPool::~MemoryPool() = default;

size_t MemoryPool::blockCount() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_blocks.size();
}

size_t MemoryPool::keptCount() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_kept.size();
}

UniqueMemory MemoryPool::allocateMemory(VkDeviceSize size, uint32_t type_index, void** mapped,
                                        VkExternalMemoryHandleTypeFlags export_types) const {
    // Asking Vulkan for more than the heap holds is invalid usage, not an allocation failure.
    const VkDeviceSize heap =
        m_properties.memoryHeaps[m_properties.memoryTypes[type_index].heapIndex].size;
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

MemoryPool::Lease MemoryPool::allocate(const VkMemoryRequirements& requirements,
                                       uint32_t type_index) {
    if (type_index >= m_properties.memoryTypeCount)
        throw InvalidArgumentError("type_index: " + std::to_string(type_index) +
                                   " is not a memory type of this device (it has " +
                                   std::to_string(m_properties.memoryTypeCount) + ")");
    if (requirements.size <= std::min(kLargestPooled, m_block_size) &&
        requirements.alignment <= m_block_size) {
        try {
            return leaseFromBlocks(requirements, type_index);
        } catch (const OutOfMemoryError&) {
            // No room for a new block: the request alone may still fit.
        }
    }
    Lease kept = reuseKept(requirements.size, type_index);
    if (kept.m_own) return kept;
    Lease lease = ownLease(requirements, type_index, m_export_types);
    lease.m_pool = this;  // kept for reuse when it goes
    lease.m_type_index = type_index;
    return lease;
}

MemoryPool::Lease MemoryPool::ownLease(const VkMemoryRequirements& requirements,
                                       uint32_t type_index,
                                       VkExternalMemoryHandleTypeFlags export_types) {
    Lease lease;
    try {
        lease.m_own = allocateMemory(requirements.size, type_index, &lease.m_mapped, export_types);
    } catch (const OutOfMemoryError&) {
        if (!dropKept()) throw;
        lease.m_own = allocateMemory(requirements.size, type_index, &lease.m_mapped, export_types);
    }
    lease.m_memory = lease.m_own.get();
    lease.m_size = requirements.size;
    return lease;
}

MemoryPool::Lease MemoryPool::reuseKept(VkDeviceSize size, uint32_t type_index) {
    Lease lease;
    std::lock_guard<std::mutex> lock(m_mutex);
    // The newest first: the one a loop of equal temporaries just dropped.
    for (auto kept = m_kept.rbegin(); kept != m_kept.rend(); ++kept) {
        if (kept->type_index != type_index || kept->size < size || kept->size - size > size / 8)
            continue;
        lease.m_own = std::move(kept->memory);
        lease.m_memory = lease.m_own.get();
        lease.m_size = kept->size;
        lease.m_mapped = kept->mapped;
        lease.m_pool = this;
        lease.m_type_index = type_index;
        m_kept.erase(std::next(kept).base());
        break;
    }
    return lease;
}

void MemoryPool::keep(UniqueMemory memory, VkDeviceSize size, uint32_t type_index,
                      void* mapped) noexcept {
    const VkDeviceSize heap =
        m_properties.memoryHeaps[m_properties.memoryTypes[type_index].heapIndex].size;
    std::lock_guard<std::mutex> lock(m_mutex);
    if (size > heap / 8) return;  // freed: keeping it would hold too much of the heap
    try {
        m_kept.push_back(Kept{std::move(memory), size, type_index, mapped});
    } catch (...) {
        return;  // no room to remember it: `memory` frees it
    }
    VkDeviceSize kept_bytes = 0;
    for (const Kept& kept : m_kept) kept_bytes += kept.size;
    while (m_kept.size() > kKeptAllocations || kept_bytes > heap / 8) {
        kept_bytes -= m_kept.front().size;
        m_kept.erase(m_kept.begin());
    }
}

bool MemoryPool::dropKept() noexcept {
    std::vector<Kept> dropped;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        dropped.swap(m_kept);
    }
    return !dropped.empty();
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
    std::lock_guard<std::mutex> lock(m_mutex);
    block->ranges.release(offset, size);  // a Lease releases exactly what it was given
    if (block->ranges.used() > 0) return;
    // An empty block is freed unless it is the last of its memory type: a buffer created and
    // destroyed in a loop should not allocate a block each time.
    const auto same_type = std::count_if(m_blocks.begin(), m_blocks.end(), [&](const auto& b) {
        return b->type_index == block->type_index;
    });
    if (same_type < 2) return;
    m_blocks.erase(std::find_if(m_blocks.begin(), m_blocks.end(),
                                [&](const auto& b) { return b.get() == block; }));
}

}  // namespace vkdispatch
