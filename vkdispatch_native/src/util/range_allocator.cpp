#include "vkdispatch/range_allocator.hpp"

#include <iterator>
#include <string>

#include "vkdispatch/errors.hpp"

namespace vkdispatch {

RangeAllocator::RangeAllocator(uint64_t capacity) : m_capacity(capacity) {
    if (capacity > 0) m_free.emplace(0, capacity);
}

std::optional<uint64_t> RangeAllocator::allocate(uint64_t size, uint64_t alignment) {
    if (size == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0)
        throw InvalidArgumentError("allocate: size " + std::to_string(size) + " and alignment " +
                                   std::to_string(alignment) +
                                   " must be > 0, the alignment a power of two");
    for (auto it = m_free.begin(); it != m_free.end(); ++it) {
        const uint64_t start = it->first;
        const uint64_t end = start + it->second;
        const uint64_t aligned = (start + alignment - 1) & ~(alignment - 1);
        if (aligned > end || end - aligned < size) continue;
        m_free.erase(it);
        if (aligned > start) m_free.emplace(start, aligned - start);
        if (aligned + size < end) m_free.emplace(aligned + size, end - aligned - size);
        m_used += size;
        return aligned;
    }
    return std::nullopt;
}

void RangeAllocator::release(uint64_t offset, uint64_t size) {
    const auto next = m_free.lower_bound(offset);
    const bool overlaps_next = next != m_free.end() && next->first < offset + size;
    const bool overlaps_previous =
        next != m_free.begin() && std::prev(next)->first + std::prev(next)->second > offset;
    if (size == 0 || offset + size > m_capacity || overlaps_next || overlaps_previous)
        throw Error("release: [" + std::to_string(offset) + ", " + std::to_string(offset + size) +
                    ") is not a taken range of this allocator");
    uint64_t start = offset;
    uint64_t end = offset + size;
    if (next != m_free.end() && next->first == end) {
        end += next->second;
        m_free.erase(next);
    }
    auto it = m_free.lower_bound(start);
    if (it != m_free.begin() && std::prev(it)->first + std::prev(it)->second == start) {
        --it;
        start = it->first;
        m_free.erase(it);
    }
    m_free.emplace(start, end - start);
    m_used -= size;
}

}  // namespace vkdispatch
