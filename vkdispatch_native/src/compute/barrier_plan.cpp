#include "vkdispatch/barrier_plan.hpp"

namespace vkdispatch {

HazardTracker::Pending* HazardTracker::find(uint64_t buffer) noexcept {
    for (Pending& p : m_pending)
        if (p.buffer == buffer) return &p;
    return nullptr;
}

bool HazardTracker::admit(const BufferAccess* accesses, size_t count) {
    bool hazard = false;
    for (size_t i = 0; i < count && !hazard; ++i) {
        const BufferAccess& access = accesses[i];
        if (!access.read && !access.write) continue;
        const Pending* earlier = find(access.buffer);
        if (earlier == nullptr) continue;
        // RAW and WAW: an earlier write; WAR: this write after an earlier read.
        hazard = earlier->write || (access.write && earlier->read);
    }
    if (hazard) m_pending.clear();
    for (size_t i = 0; i < count; ++i) {
        const BufferAccess& access = accesses[i];
        if (!access.read && !access.write) continue;
        if (Pending* p = find(access.buffer)) {
            p->read = p->read || access.read;
            p->write = p->write || access.write;
        } else {
            m_pending.push_back({access.buffer, access.read, access.write});
        }
    }
    return hazard;
}

std::vector<bool> planBarriers(const std::vector<std::vector<BufferAccess>>& dispatches) {
    HazardTracker tracker;
    std::vector<bool> barriers;
    barriers.reserve(dispatches.size());
    for (const auto& accesses : dispatches) barriers.push_back(tracker.admit(accesses));
    return barriers;
}

}  // namespace vkdispatch
