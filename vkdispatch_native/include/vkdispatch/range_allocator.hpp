#pragma once
// First-fit placement of aligned ranges in [0, capacity), with released ranges merged with
// their free neighbours. Pure bookkeeping, no Vulkan; not thread-safe.
#include <cstdint>
#include <map>
#include <optional>

namespace vkdispatch {

class RangeAllocator {
public:
    explicit RangeAllocator(uint64_t capacity);

    /// The offset (a multiple of `alignment`, a power of two) of `size` > 0 bytes now taken, or
    /// nullopt when no free range can hold them.
    std::optional<uint64_t> allocate(uint64_t size, uint64_t alignment);
    /// Frees a range allocate() returned. Throws Error for a range that is not wholly taken.
    void release(uint64_t offset, uint64_t size);

    uint64_t capacity() const noexcept { return m_capacity; }
    uint64_t used() const noexcept { return m_used; }
    /// Number of separate free ranges (1 when nothing is taken).
    size_t freeRangeCount() const noexcept { return m_free.size(); }

private:
    std::map<uint64_t, uint64_t> m_free;  // offset -> size, never adjacent to each other
    uint64_t m_capacity;
    uint64_t m_used = 0;
};

}  // namespace vkdispatch
