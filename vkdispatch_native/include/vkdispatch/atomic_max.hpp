#pragma once
// Raises an atomic last-use value to `value` (never lowers it: submissions may finish recording
// out of order on different threads).
#include <atomic>
#include <cstdint>

namespace vkdispatch::detail {

inline void raiseTo(std::atomic<uint64_t>& last, uint64_t value) noexcept {
    uint64_t current = last.load();
    while (current < value && !last.compare_exchange_weak(current, value)) {
    }
}

}  // namespace vkdispatch::detail
