#include "vkdispatch/barrier_plan.hpp"

namespace vkdispatch {

AccessMask accessMaskOf(const ResourceAccess* accesses, size_t count) noexcept {
    AccessMask mask = 0;
    for (size_t i = 0; i < count; ++i) mask |= accesses[i].mask();
    return mask;
}

HazardTracker::Pending* HazardTracker::find(uint64_t resource) noexcept {
    for (Pending& p : m_pending)
        if (p.resource == resource) return &p;
    return nullptr;
}

Barrier HazardTracker::admit(const ResourceAccess* accesses, size_t count) {
    bool hazard = false;
    for (size_t i = 0; i < count && !hazard; ++i) {
        const AccessMask mask = accesses[i].mask();
        if (mask == 0) continue;
        const Pending* earlier = find(accesses[i].resource);
        if (earlier == nullptr) continue;
        // RAW and WAW: an earlier write; WAR: this write after an earlier read.
        hazard = writeBits(earlier->mask) != 0 || (writeBits(mask) != 0 && earlier->mask != 0);
    }
    Barrier barrier;
    if (hazard) {
        for (const Pending& p : m_pending) barrier.src |= p.mask;
        barrier.dst = m_scope | accessMaskOf(accesses, count);
        m_pending.clear();
    }
    for (size_t i = 0; i < count; ++i) {
        const AccessMask mask = accesses[i].mask();
        if (mask == 0) continue;
        if (Pending* p = find(accesses[i].resource)) {
            p->mask |= mask;
        } else {
            m_pending.push_back({accesses[i].resource, mask});
        }
    }
    return barrier;
}

std::vector<Barrier> planBarriers(const std::vector<std::vector<ResourceAccess>>& commands) {
    AccessMask scope = 0;
    for (const auto& accesses : commands) scope |= accessMaskOf(accesses.data(), accesses.size());
    HazardTracker tracker;
    tracker.reset(scope);
    std::vector<Barrier> barriers;
    barriers.reserve(commands.size());
    for (const auto& accesses : commands) barriers.push_back(tracker.admit(accesses));
    return barriers;
}

}  // namespace vkdispatch
