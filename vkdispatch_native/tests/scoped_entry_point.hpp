#pragma once
// Replaces one of volk's Vulkan entry points (a global function pointer) for a scope, so a test
// can stand in for the driver or watch what the runtime calls. Tests run on one thread; the
// runtime must not call the entry point from another thread meanwhile.
#include "vkdispatch/vk.hpp"

namespace vkdispatch::test {

template <typename Pfn>
class ScopedEntryPoint {
public:
    ScopedEntryPoint(Pfn& slot, Pfn replacement) : m_slot(slot), m_original(slot) {
        slot = replacement;
    }
    ~ScopedEntryPoint() { m_slot = m_original; }
    ScopedEntryPoint(const ScopedEntryPoint&) = delete;
    ScopedEntryPoint& operator=(const ScopedEntryPoint&) = delete;

    /// The entry point in place before this one (the driver's, or null before any was loaded).
    Pfn original() const noexcept { return m_original; }

private:
    Pfn& m_slot;
    Pfn m_original;
};

}  // namespace vkdispatch::test
