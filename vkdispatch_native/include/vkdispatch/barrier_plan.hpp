#pragma once
// Pure hazard tracking between the dispatches of one command buffer: which dispatch needs a
// memory barrier before it. No Vulkan types, so it is tested without a driver.
//
// The rules (reference section 13.6): a dispatch needs a barrier when a buffer it uses was
// written since the last barrier (read after write, write after write), or when it writes a
// buffer read since the last barrier (write after read). Read after read needs none, and the
// first use of a buffer needs none (each submission starts with a full barrier). A barrier is a
// global compute -> compute memory barrier, so it resolves every earlier access at once.
//
// Thread safety: HazardTracker needs external synchronisation; planBarriers is reentrant.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vkdispatch {

/// How one dispatch uses one buffer; `buffer` is any stable identity (e.g. the object address).
struct BufferAccess {
    uint64_t buffer = 0;
    bool read = false;
    bool write = false;
};

/// Incremental form of planBarriers, for recording loops that replay dispatches several times.
class HazardTracker {
public:
    /// Returns true when a barrier is needed before a dispatch with these accesses (the tracker
    /// then forgets everything before it), and records the accesses.
    bool admit(const BufferAccess* accesses, size_t count);
    bool admit(const std::vector<BufferAccess>& accesses) {
        return admit(accesses.data(), accesses.size());
    }
    /// Forgets every access, as after a full barrier.
    void reset() noexcept { m_pending.clear(); }

private:
    struct Pending {
        uint64_t buffer;
        bool read;
        bool write;
    };
    Pending* find(uint64_t buffer) noexcept;

    std::vector<Pending> m_pending;  // accesses since the last barrier (usually a handful)
};

/// For each dispatch in order, whether a barrier must precede it.
std::vector<bool> planBarriers(const std::vector<std::vector<BufferAccess>>& dispatches);

}  // namespace vkdispatch
