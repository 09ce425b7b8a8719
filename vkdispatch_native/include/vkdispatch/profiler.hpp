#pragma once
// GPU timestamps around the commands submitted while profiling is on (vd.profile()). A
// recording with timestamps writes one before and one after each command into a query pool of
// its own and, at its end, copies them into host-visible memory; once the submission that runs
// it completes, they become events (name, queue, start and end in nanoseconds of the device's
// clock, masked to the queue's valid bits and scaled by the device's timestamp period).
//
// Reading them is a read of host memory, no driver call: lavapipe's vkGetQueryPoolResults
// waits for the whole device to go idle, which stalled a profiled script for as long as the
// work it had queued whenever finished results were read. It also lets a command list keep
// its recordings with timestamps and submit them again, as it does its plain ones
// (command_list.hpp): each run's timestamps are read before the next run rewrites them.
//
// Thread safety: every method may be called from any thread (events arrive from the threads
// that collect finished work).
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "vkdispatch/handle.hpp"
#include "vkdispatch/memory_type.hpp"
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
    /// The timestamps of one recording: two per command and instance. A recording submitted
    /// again rewrites them; each run must have finished, and been read (read()), before the
    /// next is submitted.
    class Timestamps {
    public:
        /// Room for `count` timestamps of queue `queue_index` of `context`.
        Timestamps(const Context& context, int queue_index, uint32_t count);
        Timestamps(const Timestamps&) = delete;
        Timestamps& operator=(const Timestamps&) = delete;

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
        /// Copies the timestamps into host memory (after the last command).
        void finish(VkCommandBuffer cb) const;
        /// Turns the latest run's timestamps into events of the profiler that submitted it
        /// (Profiler::collectAfter), once; the run must have finished. Later calls until the
        /// next run do nothing.
        void read() { read(0); }

    private:
        friend class Profiler;
        // The values the latest run copied (ticks, unmasked).
        std::vector<uint64_t> ticks() const;
        // As read(), but only if the latest run is run `run` (0: any): the read due when an
        // earlier run finished must not take a later run's timestamps, maybe not yet written.
        void read(uint64_t run);

        UniqueQueryPool m_pool;
        BoundBuffer m_results;  // host-visible and coherent: read without a driver call
        int m_queue;
        uint32_t m_capacity;
        uint32_t m_used = 0;
        // One per pair of timestamps; complete once recorded, shared with the events.
        std::shared_ptr<std::vector<std::string>> m_names;
        std::mutex m_mutex;
        // Under m_mutex: the runs submitted so far, and the profiler of the latest while it
        // has not been read.
        uint64_t m_runs = 0;
        std::shared_ptr<Profiler> m_reader;
    };

    explicit Profiler(const Context& context);

    /// Whether queue `queue_index` writes timestamps (its family's valid bits are not 0).
    bool timestamps(int queue_index) const { return m_mask.at(size_t(queue_index)) != 0; }
    /// Room for `timestamps` timestamps on queue `queue_index`, or null where the queue
    /// writes none.
    std::shared_ptr<Timestamps> begin(int queue_index, uint32_t timestamps) const;
    /// Turns `timestamps` into events once `queue` reaches `value`, the submission that runs
    /// them: read by whichever thread collects the queue's finished work, or by the next
    /// submission of their recording (Timestamps::read()), whichever comes first.
    void collectAfter(Queue& queue, uint64_t value, std::shared_ptr<Timestamps> timestamps);
    /// The events collected so far, by queue and start time; forgets them.
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
    // One run's timestamps in nanoseconds, a pair per name; they become events in take().
    struct Run {
        std::shared_ptr<const std::vector<std::string>> names;
        int queue = 0;
        std::vector<uint64_t> ns;
    };

    void add(const Timestamps& timestamps);
    // A timestamp of queue `queue_index` in nanoseconds: its valid bits, scaled by the period.
    uint64_t nanoseconds(size_t queue_index, uint64_t ticks) const;

    const Context& m_context;
    std::vector<double> m_period_ns;  // per queue: nanoseconds per timestamp tick
    std::vector<uint64_t> m_mask;     // per queue: the valid bits (0: no timestamps)
    std::mutex m_mutex;
    std::vector<Run> m_runs;  // in order of arrival
};

}  // namespace vkdispatch
