#pragma once
// GPU timestamps around the commands of command lists submitted while profiling is on
// (vd.profile()): each profiled submission records its commands afresh into a one-time command
// buffer with a timestamp before and after each command, in a query pool of its own; once the
// submission completes, its timestamps become events (name, queue, start and end in
// nanoseconds of the device's clock, masked to the queue's valid bits and scaled by the
// device's timestamp period).
//
// Thread safety: every method may be called from any thread (events arrive from the threads
// that collect finished work).
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class Context;
class Queue;

struct ProfileEvent {
    std::string name;
    int queue = 0;
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
};

class Profiler : public std::enable_shared_from_this<Profiler> {
public:
    /// The timestamps of one profiled submission: two per command and instance.
    class Recording {
    public:
        Recording(VkDevice device, int queue_index, uint32_t timestamps);
        ~Recording();
        Recording(const Recording&) = delete;
        Recording& operator=(const Recording&) = delete;

        /// Resets the pool's queries (before the first command).
        void reset(VkCommandBuffer cb) const;
        /// Timestamps before (`end` false) or after command `name`, in recording order.
        void mark(VkCommandBuffer cb, const std::string& name, bool end);
        /// Records `commands` between two timestamps of `name`.
        template <typename Record>
        void around(VkCommandBuffer cb, const std::string& name, Record&& commands) {
            mark(cb, name, false);
            commands();
            mark(cb, std::string(), true);
        }

    private:
        friend class Profiler;
        VkDevice m_device;
        VkQueryPool m_pool = VK_NULL_HANDLE;
        int m_queue;
        uint32_t m_capacity;
        uint32_t m_used = 0;
        std::vector<std::string> m_names;  // one per pair of timestamps
    };

    explicit Profiler(const Context& context);

    /// A recording for `timestamps` timestamps on queue `queue_index`, or null where the
    /// queue's family writes no timestamps.
    std::unique_ptr<Recording> begin(int queue_index, uint32_t timestamps) const;
    /// Turns `recording`'s timestamps into events once `queue` reaches `value`.
    void collectAfter(Queue& queue, uint64_t value, std::unique_ptr<Recording> recording);
    /// The events collected so far, in order of arrival; forgets them.
    std::vector<ProfileEvent> take();
    /// A timestamp of queue `queue_index` (ns, as events have them) and the host's steady
    /// clock (ns) at about the same moment: the middle of a submission that writes the
    /// timestamp and the wait for it (its error is at most half that round trip). {0, 0} where
    /// the queue writes no timestamps.
    std::pair<uint64_t, uint64_t> calibrate(int queue_index);

private:
    void collect(const Recording& recording);
    // The recording's timestamps in nanoseconds (empty when the driver returns none).
    std::vector<uint64_t> nanoseconds(const Recording& recording) const;

    const Context& m_context;
    std::vector<double> m_period_ns;  // per queue: nanoseconds per timestamp tick
    std::vector<uint64_t> m_mask;     // per queue: the valid bits (0: no timestamps)
    std::mutex m_mutex;
    std::vector<ProfileEvent> m_events;
};

}  // namespace vkdispatch
