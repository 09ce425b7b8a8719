#pragma once
// Pure hazard planning between the commands of one command buffer: which command needs a memory
// barrier before it, and what that barrier must order. No Vulkan types, so it is tested without
// a driver (command.hpp turns a Barrier into vkCmdPipelineBarrier).
//
// The rules (vkdispatch 0.1.0's, between compute dispatches, extended to every stage kind): a
// command needs a barrier when a resource it uses was written since the last barrier (read after
// write, write after write), or when it writes a resource read since the last barrier (write
// after read). Read after
// read needs none, and the first use of a resource needs none (each submission starts with a full
// barrier). A barrier is a global memory barrier from every access since the previous barrier to
// every access kind the recording contains (its scope), so it resolves every earlier access at
// once and the tracker may forget them: a later command of any stage in the scope is ordered
// after them. When the recording holds one stage kind (the common all-compute case) this is the
// plain compute -> compute barrier.
//
// Thread safety: HazardTracker needs external synchronisation; planBarriers is reentrant.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vkdispatch {

/// The pipeline stage kinds commands run in. Images will add a layout to ResourceAccess, not a
/// new planner.
enum class Stage : uint8_t { Compute = 0, Transfer = 1, Host = 2 };
constexpr int kStageCount = 3;

/// A set of (stage, read or write) pairs: bit 2*stage is a read, bit 2*stage+1 a write.
using AccessMask = uint32_t;

constexpr AccessMask accessBit(Stage stage, bool write) noexcept {
    return AccessMask(1) << (2 * static_cast<int>(stage) + (write ? 1 : 0));
}
/// The write bits of `mask` (what a barrier must make available).
constexpr AccessMask writeBits(AccessMask mask) noexcept { return mask & 0xAAAAAAAAu; }
/// Whether `mask` holds a read or a write of `stage`.
constexpr bool touchesStage(AccessMask mask, Stage stage) noexcept {
    return (mask & (accessBit(stage, false) | accessBit(stage, true))) != 0;
}

/// How one command uses one resource; `resource` is any stable identity (e.g. the object's
/// address).
struct ResourceAccess {
    uint64_t resource = 0;
    Stage stage = Stage::Compute;
    bool read = false;
    bool write = false;

    AccessMask mask() const noexcept {
        return (read ? accessBit(stage, false) : 0) | (write ? accessBit(stage, true) : 0);
    }
};

/// A global memory barrier: every access in `src` (before it) happens before every access in
/// `dst` (after it), with src's writes made visible to dst. `src == 0` means no barrier.
struct Barrier {
    AccessMask src = 0;
    AccessMask dst = 0;

    bool needed() const noexcept { return src != 0; }
    bool operator==(const Barrier& other) const noexcept {
        return src == other.src && dst == other.dst;
    }
};

/// Union of the access bits of `accesses`.
AccessMask accessMaskOf(const ResourceAccess* accesses, size_t count) noexcept;

/// Incremental form of planBarriers, for recording loops that replay commands several times.
class HazardTracker {
public:
    /// Forgets every access, as after a full barrier, and sets the scope: every access kind the
    /// commands to come may make (a barrier orders earlier work before all of it).
    void reset(AccessMask scope) noexcept {
        m_pending.clear();
        m_scope = scope;
    }
    /// The barrier needed before a command with these accesses (none when !needed()); the
    /// tracker then forgets everything before it, and records the accesses.
    Barrier admit(const ResourceAccess* accesses, size_t count);
    Barrier admit(const std::vector<ResourceAccess>& accesses) {
        return admit(accesses.data(), accesses.size());
    }
    /// Records that a full barrier (every stage to every stage) was placed: forgets every access.
    void fullBarrier() noexcept { m_pending.clear(); }

private:
    struct Pending {
        uint64_t resource;
        AccessMask mask;
    };
    Pending* find(uint64_t resource) noexcept;

    std::vector<Pending> m_pending;  // accesses since the last barrier (usually a handful)
    AccessMask m_scope = 0;
};

/// For each command in order, the barrier that must precede it (scope: every access of the
/// sequence).
std::vector<Barrier> planBarriers(const std::vector<std::vector<ResourceAccess>>& commands);

}  // namespace vkdispatch
