#pragma once
// One VkQueue with its timeline semaphore. Every submission signals the next timeline value, so
// "has work X finished" is one integer comparison and a wait is one semaphore wait.
//
// A wait first polls the timeline (up to 10 ms, yielding the core between polls, as CUDA's
// synchronisation spins by default): a blocking vkWaitSemaphores on NVIDIA takes about 25 us to
// wake after the GPU finishes, three times the whole cost of a tiny dispatch when polled and
// 0.5-2.5% of a 1-5 ms submission. CPU devices (lavapipe) never poll: their work runs on the
// cores a poll would take.
//
// Several Queue objects may share one hardware VkQueue (a context asking for more queues than the
// device offers): each keeps its own timeline and command pool, and they share the lock that
// serialises vkQueueSubmit on it.
//
// Back-pressure, as CUDA blocks a kernel launch while its launch queue is full: at most
// maxInFlight() submissions (calls: a batch of several counts each of its calls, see below)
// are unfinished at once. A submission beyond that first waits until the oldest have finished (the wait of wait(), interruptible; no lock of the queue is held
// while it waits). Without the bound a submit loop queues hours of work in seconds, the memory
// that the queued work holds grows without limit, and a context's teardown (which waits for all
// of it, also after Ctrl-C) takes those hours. Waiting for room never deadlocks: every
// submission waits (on the device) only for timeline values already submitted, so the oldest
// always finishes without help from the host.
//
// Submission windows. A vkQueueSubmit costs the host more than the GPU takes to run a small
// dispatch (H200 driver: 7.2 us per submission of one tiny dispatch back to back, 2.3 us per
// dispatch when 64 travel in one submission, the dependent dispatches' own floor), which left
// calls from scripts behind a CUDA launch (6 us). So a call made while the device still runs
// earlier work does not submit at once: it takes the next timeline value and joins the
// queue's open batch, which one vkQueueSubmit sends when the window (submitWindow(), default
// 50 us) after its first call has passed, when it holds kMaxBatchCalls calls, or when anything
// waits for one of its values (wait(), waitIdle(), flushThrough(), room for a call under the
// bound below, another queue's submitAfter), so a read or wait sees every earlier call. The
// first call after a wait on the queue, made while the device is idle, is submitted at once:
// a script that waits for each call (a call + wait costs what it did) or reads between short
// runs of calls loses no latency, while calls made one after another gather even where the
// device finishes each before the host makes the next (a slow host: the submissions saved are
// most of its time per call then). A thread of the queue sends batches whose window passed
// while their submitter went on with other work, so no call waits longer than about the window
// (plus the timer's slack) to start.
// A window of 0 submits each call at once. Timeline values still count calls: a batch signals
// the value of its last call, which completes every value before it; waits (host or device)
// for a value inside a batch wait for the value the batch signals (the same moment), since the
// validation layer cannot follow a wait for a value that no submission signals. A batch that fails to
// submit (a lost device) raises its error to the thread that sent it, or, sent by the queue's
// thread, to the next call, submission or wait on the queue, and its values are signalled
// from the host so that no wait for them hangs.
//
// Thread safety: every method is safe to call concurrently (submission is serialised by an
// internal mutex and the hardware queue's lock, as Vulkan requires external synchronisation of
// vkQueueSubmit).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "vkdispatch/handle.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

enum class DeviceType : int;

/// Queue::maxInFlight() of a new queue. Submitting costs the host 5-10 us, so while a submitter
/// waits for room the other 1023 submissions queued keep the device busy for milliseconds even
/// when each is a tiny dispatch: far longer than the waiter takes to wake (polling, or ~25 us
/// blocked), so the bound costs no throughput, and it absorbs host pauses (a garbage collection)
/// of that order. Much larger bounds buy nothing but memory and a longer teardown.
constexpr uint32_t kDefaultMaxInFlight = 1024;

/// Queue::submitWindow() of a new queue: a script's calls (5-10 us of host work each) gather
/// about ten per submission, and a call waits at most about this long (plus the timer's slack)
/// to start when nothing waits for it.
constexpr std::chrono::microseconds kDefaultSubmitWindow{50};
/// The most calls one batch holds: beyond about 64 a larger batch saves no host time (see the
/// class comment) and only delays the start of its first call.
constexpr size_t kMaxBatchCalls = 64;

/// How long Queue::wait polls before it blocks, on a device of `type`.
std::chrono::nanoseconds pollBeforeBlocking(DeviceType type) noexcept;

/// Makes every earlier write (all stages) available to `dst_access` at `dst_stage`: what frames a
/// submission against later host reads.
void recordFullBarrier(VkCommandBuffer cb, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);
/// Orders what follows (compute shaders and transfers, the only work submitted here) after every
/// earlier command, with every earlier write visible to it: what frames a submission against
/// earlier work on the queue.
void recordEntryBarrier(VkCommandBuffer cb);

/// A timeline semaphore starting at 0; `exportable`: exportable as a POSIX file descriptor
/// (exportTimelineFd()), for a device whose exportsTimelines().
UniqueSemaphore createTimelineSemaphore(VkDevice device, bool exportable);
/// A POSIX file descriptor of a semaphore made exportable; the caller owns it.
int exportSemaphoreFd(VkDevice device, VkSemaphore semaphore);

/// Work outside Vulkan (a CUDA stream) that submissions to a queue must follow while it is
/// attached (Queue::attach): each submission asks handOver() for a semaphore value, signalled
/// once the outside work issued so far is done, and waits for it on the device.
class ExternalOrdering {
public:
    virtual ~ExternalOrdering() = default;
    /// Called under the queue's lock, once per submission; must not submit to the queue.
    virtual std::pair<VkSemaphore, uint64_t> handOver() = 0;
};

class Queue {
public:
    using Recorder = std::function<void(VkCommandBuffer)>;
    /// How a submission to a full queue waits for room (see the class comment).
    enum class RoomWait {
        Interruptible,    ///< throws InterruptedError on Ctrl-C, having submitted nothing
        Uninterruptible,  ///< for a submission that completes an operation begun by earlier
                          ///< ones (waiting is bounded by the oldest submission's run time)
    };

    /// `hardware_lock` is shared by every Queue on the same VkQueue (a lock of its own when
    /// null).
    /// `exportable_timeline`: its timeline semaphore exports (exportTimelineFd()).
    Queue(VkDevice device, uint32_t family, uint32_t index_in_family, int global_index,
          std::chrono::nanoseconds poll = std::chrono::nanoseconds(0),
          std::shared_ptr<std::mutex> hardware_lock = nullptr, bool exportable_timeline = false);
    ~Queue();
    Queue(const Queue&) = delete;
    Queue& operator=(const Queue&) = delete;

    /// Records `commands` into a fresh command buffer framed by memory barriers (earlier work
    /// -> these commands: recordEntryBarrier(); -> host reads), submits it and returns its timeline value.
    /// A kept command buffer `followed_by` (see record()) is submitted right after it.
    uint64_t submit(const Recorder& commands, VkCommandBuffer followed_by = VK_NULL_HANDLE);
    /// As submit(), but the commands (and everything submitted to this queue later) wait on the
    /// device until `other` (a queue of the same VkDevice) reaches `other_value`; the wait makes
    /// other's earlier writes visible to them. `other_value` must be submitted already
    /// (InvalidArgumentError otherwise), which keeps waits for room free of deadlocks.
    uint64_t submitAfter(const Recorder& commands, Queue& other, uint64_t other_value,
                         RoomWait room_wait = RoomWait::Interruptible);

    // For recordings kept and submitted again: record() a command buffer, submit it any number
    // of times with submitRecorded(), and hand it back with recycle() (it is reused once the
    // timeline passes its last use).
    /// A command buffer recorded with `usage` flags: `commands` framed by the barriers submit()
    /// uses. The caller owns it until recycle().
    VkCommandBuffer record(VkCommandBufferUsageFlags usage, const Recorder& commands);
    /// Submits a recorded command buffer; returns the timeline value it signals.
    uint64_t submitRecorded(VkCommandBuffer cb) { return submitRecorded(&cb, 1); }
    void recycle(VkCommandBuffer cb, uint64_t last_use);
    /// Returns once the timeline reaches `value` (polling first, then blocking); interruptible
    /// (see interrupt.hpp). Sends the open batch first when it holds `value`.
    void wait(uint64_t value);
    /// Sends the open batch if it holds `value` (a value handed out, not necessarily sent yet);
    /// returns once every call up to `value` is submitted to the device.
    void flushThrough(uint64_t value);
    /// Sends the open batch now.
    void flush() { flushThrough(lastSubmitted()); }
    /// How long a batch stays open after its first call (see the class comment).
    std::chrono::microseconds submitWindow() const;
    /// Changes submitWindow(); 0 submits every call at once (and sends the open batch now).
    void setSubmitWindow(std::chrono::microseconds window);
    /// As wait(), deaf to interrupts: for destructors, which must not throw.
    void waitIgnoringInterrupts(uint64_t value) { waitUntil(value, false); }
    /// Whether the device has run everything up to `value` (never true for a value still in
    /// the open batch; asking does not send it).
    bool completed(uint64_t value);
    void waitIdle() { wait(lastSubmitted()); }
    /// The newest timeline value handed out (to a call submitted, or waiting in the open batch).
    uint64_t lastSubmitted() const;
    /// The timeline value the device has reached (every submission up to it has finished).
    uint64_t completedValue();
    /// Runs `deleter` once the timeline reaches `value` (at once if it already has).
    void retire(uint64_t value, std::function<void()> deleter);
    /// The most submissions unfinished at once (kDefaultMaxInFlight unless set).
    uint32_t maxInFlight() const noexcept { return m_max_in_flight.load(); }
    /// Changes maxInFlight() (at least 1; submissions already queued stay queued).
    void setMaxInFlight(uint32_t max_in_flight);
    /// Runs `work` with the raw queue while no other thread can submit to it, after the open
    /// batch: for a library that submits and waits on its own (VkFFT uploading its tables while
    /// it builds a plan). `work` must not submit through this Queue.
    void runExclusive(const std::function<void(VkQueue)>& work);

    /// Makes every later submission wait, on the device, for what `ordering` hands over
    /// (until detach()). `ordering` must outlive its attachment.
    void attach(ExternalOrdering& ordering);
    /// Ends the attachment; with `last_wait` the next submission still waits for one last
    /// hand-over (the work issued outside before this call).
    void detach(ExternalOrdering& ordering, bool last_wait);
    /// Drops the last waits of detached orderings on `semaphore` that no submission took yet
    /// (before the semaphore is destroyed).
    void forgetWaitsOn(VkSemaphore semaphore);
    /// State a higher layer keeps about this queue (interop/ keeps its CUDA stream orderings
    /// there): made by `make` on the first ask, the same one after; destroyed first when the
    /// queue goes, while the queue still works. `make` may throw (nothing is attached).
    std::shared_ptr<void> attachment(const std::function<std::shared_ptr<void>()>& make);
    /// A POSIX file descriptor of the timeline semaphore (the caller owns it), or -1 where the
    /// queue was made without `exportable_timeline`.
    int exportTimelineFd() const;
    /// The value that covers `value` once sent: flushes the batch holding it and returns the
    /// value its batch signals (what another device or API may wait on).
    uint64_t sentValueCovering(uint64_t value) {
        flushThrough(value);
        return signalledCovering(value);
    }

    uint32_t family() const noexcept { return m_family; }
    /// The raw queue, for reference measurements that bypass submit() (the queue must be idle
    /// and no other thread may submit meanwhile).
    VkQueue handle() const noexcept { return m_queue; }
    int globalIndex() const noexcept { return m_global_index; }
    VkDevice device() const noexcept { return m_device; }

private:
    // Calls of the open batch that run after the same semaphore waits (often none).
    struct PendingGroup {
        std::vector<VkSemaphore> waits;
        std::vector<uint64_t> wait_values;
        std::vector<VkCommandBuffer> cbs;
    };

    // A fresh command buffer of `commands` (then `followed_by`), as submitRecorded() runs them.
    uint64_t submitFresh(const Recorder& commands, VkCommandBuffer followed_by, VkSemaphore wait,
                         uint64_t wait_value, RoomWait room_wait);
    // Run in order, after `wait` reaches `wait_value` when `wait` is set.
    uint64_t submitRecorded(const VkCommandBuffer* cbs, uint32_t count,
                            VkSemaphore wait = VK_NULL_HANDLE, uint64_t wait_value = 0,
                            RoomWait room_wait = RoomWait::Interruptible);
    // Adds `wait` (when set), the final hand-overs of detached orderings and a hand-over of
    // each attached one to `group` (m_mutex held).
    void addWaits(PendingGroup& group, VkSemaphore wait, uint64_t wait_value);
    // Returns (with `lock` on m_mutex held again) once one more submission fits the bound.
    void waitForRoom(std::unique_lock<std::mutex>& lock, RoomWait room_wait);
    void waitUntil(uint64_t value, bool interruptible);
    VkCommandBuffer acquireCommandBuffer();  // m_mutex held
    void collect(uint64_t completed);        // m_mutex held
    // Sends the open batch (`lock` on m_mutex, released meanwhile and held again on return, also
    // when it throws); returns once every value handed out before the call is submitted.
    void flushLocked(std::unique_lock<std::mutex>& lock);
    void submitBatch(const std::vector<PendingGroup>& batch, uint64_t value);
    // The value signalled by the batch that holds `value` (sent already), or `value` itself
    // where that batch has finished.
    uint64_t signalledCovering(uint64_t value);
    // Whether the timeline has reached `value`, asking the driver only where m_completed_seen
    // does not tell (m_mutex held).
    bool reached(uint64_t value);
    void rethrowFlushError();   // m_mutex held
    void wakeFlusher();         // m_mutex held
    void runFlusher() noexcept;  // the queue's thread
    void stopFlusher() noexcept;

    VkDevice m_device;
    VkQueue m_queue = VK_NULL_HANDLE;
    uint32_t m_family;
    int m_global_index;
    std::chrono::nanoseconds m_poll;
    UniqueSemaphore m_timeline;
    UniqueCommandPool m_pool;

    mutable std::mutex m_mutex;                  // taken before m_hardware_lock
    std::shared_ptr<std::mutex> m_hardware_lock;  // serialises vkQueueSubmit on m_queue
    uint64_t m_next_value = 1;
    // A lower bound of completedValue() (spares a driver call); read without m_mutex too.
    std::atomic<uint64_t> m_completed_seen{0};
    std::atomic<uint32_t> m_max_in_flight{kDefaultMaxInFlight};
    size_t m_collect_at;  // retire() collects finished work when m_retired grows this long
    std::vector<VkCommandBuffer> m_free;
    std::vector<std::pair<uint64_t, VkCommandBuffer>> m_in_flight;
    std::vector<std::pair<uint64_t, std::function<void()>>> m_retired;
    std::vector<ExternalOrdering*> m_orderings;  // attached (under m_mutex)
    // Last hand-overs of detached orderings, waited for by the next submission (under m_mutex).
    std::vector<std::pair<VkSemaphore, uint64_t>> m_final_waits;
    bool m_exportable_timeline = false;
    std::mutex m_attachment_mutex;
    std::shared_ptr<void> m_attachment;  // under m_attachment_mutex

    // The open batch (under m_mutex): its calls hold the values after m_flushed.
    std::vector<PendingGroup> m_pending;
    size_t m_pending_calls = 0;
    std::chrono::steady_clock::time_point m_pending_since;
    std::chrono::nanoseconds m_window{kDefaultSubmitWindow};
    std::atomic<uint64_t> m_flushed{0};  // every value up to it is submitted
    std::mutex m_submit_mutex;           // held while a batch is sent; taken after m_mutex
    std::exception_ptr m_flush_error;    // the queue's thread failed to send a batch
    std::deque<uint64_t> m_signalled;    // values batches signal, unfinished (m_submit_mutex)
    std::condition_variable m_wake;      // the queue's thread waits on it, with m_mutex
    bool m_flusher_asleep = false;       // waiting without a timeout: a new batch must wake it
    std::atomic<bool> m_waited{false};   // a wait came after the latest call
    bool m_stop = false;
    std::thread m_flusher;               // started with the first batch
};

}  // namespace vkdispatch
