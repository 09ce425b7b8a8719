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

/// A moment of a queue's time line paired with the host's steady clock (CLOCK_MONOTONIC on
/// Linux, the clock of Python's perf_counter): what places host spans among the events.
struct ClockAlignment {
    enum class Method {
        None,        ///< the queue writes no timestamps: nothing to align with
        Calibrated,  ///< the driver sampled both clocks together (calibrated_clock.hpp)
        Measured,    ///< a timestamp submitted and waited for, paired with the wait's middle
    };
    Method method = Method::None;
    uint64_t device_ns = 0;  ///< a timestamp of the queue, in nanoseconds as events have them
    uint64_t host_ns = 0;    ///< the host's steady clock at that moment, in nanoseconds
    uint64_t error_ns = 0;   ///< how far apart the two may be
    /// "none", "calibrated" or "measured".
    const char* name() const noexcept;
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
    /// Queue `queue_index`'s clock paired with the host's: by the driver's calibrated
    /// timestamps where its device offers them and `calibrated` is set (to within the driver's
    /// deviation, nanoseconds), else measure(). Method::None where the queue writes no
    /// timestamps.
    ClockAlignment align(int queue_index, bool calibrated = true);
    /// The pairing by a submission that writes a timestamp, waited for: the host's clock at the
    /// middle of that round trip, to within half of it (tens of microseconds).
    ClockAlignment measure(int queue_index);

private:
    void collect(const Recording& recording);
    // The recording's timestamps in nanoseconds (empty when the driver returns none).
    std::vector<uint64_t> nanoseconds(const Recording& recording) const;
    // A timestamp of queue `queue_index` in nanoseconds: its valid bits, scaled by the period.
    uint64_t nanoseconds(size_t queue_index, uint64_t ticks) const;

    const Context& m_context;
    std::vector<double> m_period_ns;  // per queue: nanoseconds per timestamp tick
    std::vector<uint64_t> m_mask;     // per queue: the valid bits (0: no timestamps)
    std::mutex m_mutex;
    std::vector<ProfileEvent> m_events;
};

}  // namespace vkdispatch
