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
// maxInFlight() submissions are unfinished at once. A submission beyond that first waits until
// the oldest have finished (the wait of wait(), interruptible; no lock of the queue is held
// while it waits). Without the bound a submit loop queues hours of work in seconds, the memory
// that the queued work holds grows without limit, and a context's teardown (which waits for all
// of it, also after Ctrl-C) takes those hours. Waiting for room never deadlocks: every
// submission waits (on the device) only for timeline values already submitted, so the oldest
// always finishes without help from the host.
//
// Thread safety: every method is safe to call concurrently (submission is serialised by an
// internal mutex and the hardware queue's lock, as Vulkan requires external synchronisation of
// vkQueueSubmit).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
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

/// How long Queue::wait polls before it blocks, on a device of `type`.
std::chrono::nanoseconds pollBeforeBlocking(DeviceType type) noexcept;

/// Makes every earlier write (all stages) available to `dst_access` at `dst_stage`: what frames a
/// submission against earlier work and later host reads.
void recordFullBarrier(VkCommandBuffer cb, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

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
    Queue(VkDevice device, uint32_t family, uint32_t index_in_family, int global_index,
          std::chrono::nanoseconds poll = std::chrono::nanoseconds(0),
          std::shared_ptr<std::mutex> hardware_lock = nullptr);
    ~Queue();
    Queue(const Queue&) = delete;
    Queue& operator=(const Queue&) = delete;

    /// Records `commands` into a fresh command buffer framed by full memory barriers
    /// (earlier work -> these commands -> host reads), submits it and returns its timeline value.
    /// A kept command buffer `followed_by` (see record()) is submitted right after it.
    uint64_t submit(const Recorder& commands, VkCommandBuffer followed_by = VK_NULL_HANDLE);
    /// As submit(), but the commands (and everything submitted to this queue later) wait on the
    /// device until `other` (a queue of the same VkDevice) reaches `other_value`; the wait makes
    /// other's earlier writes visible to them. `other_value` must be submitted already
    /// (InvalidArgumentError otherwise), which keeps waits for room free of deadlocks.
    uint64_t submitAfter(const Recorder& commands, const Queue& other, uint64_t other_value,
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
    /// (see interrupt.hpp).
    void wait(uint64_t value);
    /// As wait(), deaf to interrupts: for destructors, which must not throw.
    void waitIgnoringInterrupts(uint64_t value) { waitUntil(value, false); }
    bool completed(uint64_t value);
    void waitIdle() { wait(lastSubmitted()); }
    uint64_t lastSubmitted() const;
    /// The timeline value the device has reached (every submission up to it has finished).
    uint64_t completedValue();
    /// Runs `deleter` once the timeline reaches `value` (at once if it already has).
    void retire(uint64_t value, std::function<void()> deleter);
    /// The most submissions unfinished at once (kDefaultMaxInFlight unless set).
    uint32_t maxInFlight() const noexcept { return m_max_in_flight.load(); }
    /// Changes maxInFlight() (at least 1; submissions already queued stay queued).
    void setMaxInFlight(uint32_t max_in_flight);
    /// Runs `work` with the raw queue while no other thread can submit to it: for a library that
    /// submits and waits on its own (VkFFT uploading its tables while it builds a plan). `work`
    /// must not submit through this Queue.
    void runExclusive(const std::function<void(VkQueue)>& work);

    uint32_t family() const noexcept { return m_family; }
    /// The raw queue, for reference measurements that bypass submit() (the queue must be idle
    /// and no other thread may submit meanwhile).
    VkQueue handle() const noexcept { return m_queue; }
    int globalIndex() const noexcept { return m_global_index; }
    VkDevice device() const noexcept { return m_device; }

private:
    // A fresh command buffer of `commands` (then `followed_by`), as submitRecorded() runs them.
    uint64_t submitFresh(const Recorder& commands, VkCommandBuffer followed_by, VkSemaphore wait,
                         uint64_t wait_value, RoomWait room_wait);
    // Run in order, after `wait` reaches `wait_value` when `wait` is set.
    uint64_t submitRecorded(const VkCommandBuffer* cbs, uint32_t count,
                            VkSemaphore wait = VK_NULL_HANDLE, uint64_t wait_value = 0,
                            RoomWait room_wait = RoomWait::Interruptible);
    // Returns (with `lock` on m_mutex held again) once one more submission fits the bound.
    void waitForRoom(std::unique_lock<std::mutex>& lock, RoomWait room_wait);
    void waitUntil(uint64_t value, bool interruptible);
    VkCommandBuffer acquireCommandBuffer();  // m_mutex held
    void collect(uint64_t completed);        // m_mutex held

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
    uint64_t m_completed_seen = 0;  // a lower bound of completedValue(): spares a driver call
    std::atomic<uint32_t> m_max_in_flight{kDefaultMaxInFlight};
    size_t m_collect_at;  // retire() collects finished work when m_retired grows this long
    std::vector<VkCommandBuffer> m_free;
    std::vector<std::pair<uint64_t, VkCommandBuffer>> m_in_flight;
    std::vector<std::pair<uint64_t, std::function<void()>>> m_retired;
};

}  // namespace vkdispatch
