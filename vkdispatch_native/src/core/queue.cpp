#include "vkdispatch/queue.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "vkdispatch/atomic_max.hpp"
#include "vkdispatch/device_info.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/interrupt.hpp"
#include "vkdispatch/log.hpp"

namespace vkdispatch {
namespace {

constexpr uint64_t kWaitSliceNs = 100'000'000;  // how often a wait checks for Ctrl-C
// Beyond it a blocking wait's late wake-up (~25 us on NVIDIA) costs less than 0.25%.
constexpr std::chrono::microseconds kGpuPoll(10'000);
// retire() runs the deleters of finished work once this many wait, then at twice what is left:
// amortised O(1), and finished objects are freed even where nothing ever waits.
constexpr size_t kRetiredBeforeCollect = 256;
// After its last batch the queue's thread looks for new ones this many windows before it sleeps
// until woken: calls during a script's busy spells then need no wake-up (a system call each).
constexpr int kWatchfulWindows = 40;

}  // namespace

void recordFullBarrier(VkCommandBuffer cb, VkPipelineStageFlags dst_stage,
                       VkAccessFlags dst_access) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    barrier.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, dst_stage, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
}

void recordEntryBarrier(VkCommandBuffer cb) {
    // Not ALL_COMMANDS / MEMORY_READ as destination: on an H200 that added 2.4 us to the
    // latency of every submission (a tiny one's 10.5 us; this one 0.2 us), a price paid by
    // each call + wait, read and replay (benchmarks/host_latency.py, phases).
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                            VK_ACCESS_UNIFORM_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                            VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         1, &barrier, 0, nullptr, 0, nullptr);
}

std::chrono::nanoseconds pollBeforeBlocking(DeviceType type) noexcept {
    if (type == DeviceType::Cpu) return std::chrono::nanoseconds(0);
    return kGpuPoll;
}

UniqueSemaphore createTimelineSemaphore(VkDevice device, bool exportable) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = 0;
    VkExportSemaphoreCreateInfo exported{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    exported.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    if (exportable) type.pNext = &exported;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    info.pNext = &type;
    VkSemaphore semaphore;
    VK_CHECK(vkCreateSemaphore(device, &info, nullptr, &semaphore),
             "creating a timeline semaphore");
    return UniqueSemaphore(device, semaphore);
}

int exportSemaphoreFd(VkDevice device, VkSemaphore semaphore) {
    VkSemaphoreGetFdInfoKHR info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    info.semaphore = semaphore;
    info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    VK_CHECK(vkGetSemaphoreFdKHR(device, &info, &fd), "exporting a timeline semaphore");
    return fd;
}

Queue::Queue(VkDevice device, uint32_t family, uint32_t index_in_family, int global_index,
             std::chrono::nanoseconds poll, std::shared_ptr<std::mutex> hardware_lock,
             bool exportable_timeline)
    : m_device(device),
      m_family(family),
      m_global_index(global_index),
      m_poll(poll),
      m_hardware_lock(hardware_lock ? std::move(hardware_lock) : std::make_shared<std::mutex>()),
      m_collect_at(kRetiredBeforeCollect),
      m_exportable_timeline(exportable_timeline) {
    vkGetDeviceQueue(device, family, index_in_family, &m_queue);
    m_timeline = createTimelineSemaphore(device, exportable_timeline);

    const VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, nullptr,
                                            VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                            family};
    VkCommandPool pool;
    VK_CHECK(vkCreateCommandPool(device, &pool_info, nullptr, &pool), "creating a command pool");
    m_pool = UniqueCommandPool(device, pool);
}

Queue::~Queue() {
    // Teardown never throws: on a lost device the wait fails and the handles are released anyway.
    m_attachment.reset();  // it may still detach, submit or wait
    stopFlusher();
    try {
        std::unique_lock<std::mutex> lock(m_mutex);
        flushLocked(lock);
    } catch (...) {
    }
    const uint64_t last = m_next_value - 1;
    VkSemaphore sem = m_timeline.get();
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &sem;
    info.pValues = &last;
    vkWaitSemaphores(m_device, &info, UINT64_MAX);
    for (auto& entry : m_retired) entry.second();
    m_retired.clear();
}

std::shared_ptr<void> Queue::attachment(const std::function<std::shared_ptr<void>()>& make) {
    std::lock_guard<std::mutex> lock(m_attachment_mutex);
    if (!m_attachment) m_attachment = make();
    return m_attachment;
}

uint64_t Queue::completedValue() {
    uint64_t value = 0;
    VK_CHECK(vkGetSemaphoreCounterValue(m_device, m_timeline.get(), &value),
             "reading a queue's timeline");
    return value;
}

bool Queue::completed(uint64_t value) {
    if (value == 0) return true;
    return completedValue() >= value;
}

uint64_t Queue::lastSubmitted() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_next_value - 1;
}

void Queue::wait(uint64_t value) { waitUntil(value, true); }

std::chrono::microseconds Queue::submitWindow() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return std::chrono::duration_cast<std::chrono::microseconds>(m_window);
}

void Queue::setSubmitWindow(std::chrono::microseconds window) {
    if (window.count() < 0)
        throw InvalidArgumentError("submit_window_us: expected at least 0 microseconds, got " +
                                   std::to_string(window.count()));
    std::unique_lock<std::mutex> lock(m_mutex);
    m_window = window;
    if (window.count() == 0) flushLocked(lock);
}

void Queue::flushThrough(uint64_t value) {
    if (m_flushed.load() >= value) return;
    std::unique_lock<std::mutex> lock(m_mutex);
    rethrowFlushError();
    if (m_flushed.load() < value) flushLocked(lock);
}

void Queue::flushLocked(std::unique_lock<std::mutex>& lock) {
    std::vector<PendingGroup> batch;
    batch.swap(m_pending);
    m_pending_calls = 0;
    const uint64_t value = m_next_value - 1;
    // Taken before m_mutex is released: batches reach the device in the order of their values,
    // and with nothing to send this waits for a batch that another thread is sending.
    std::unique_lock<std::mutex> sending(m_submit_mutex);
    lock.unlock();
    std::exception_ptr error;
    if (!batch.empty()) {
        try {
            submitBatch(batch, value);
        } catch (...) {
            error = std::current_exception();
            // The batch never runs: its values complete now, so that no wait for them hangs.
            VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
            signal.semaphore = m_timeline.get();
            signal.value = value;
            vkSignalSemaphore(m_device, &signal);
        }
        const uint64_t finished = m_completed_seen.load();
        while (!m_signalled.empty() && m_signalled.front() <= finished) m_signalled.pop_front();
        m_signalled.push_back(value);
        m_flushed.store(value);
    }
    sending.unlock();
    lock.lock();
    if (error) std::rethrow_exception(error);
}

uint64_t Queue::signalledCovering(uint64_t value) {
    std::lock_guard<std::mutex> sending(m_submit_mutex);
    // Batches known to have finished are forgotten (see flushLocked), never later ones.
    if (value <= m_completed_seen.load()) return value;
    const auto found = std::lower_bound(m_signalled.begin(), m_signalled.end(), value);
    return found == m_signalled.end() ? value : *found;
}

void Queue::submitBatch(const std::vector<PendingGroup>& batch, uint64_t value) {
    // Only the last group signals: a signal orders every command submitted before it.
    std::vector<VkSubmitInfo> submits(batch.size(), VkSubmitInfo{VK_STRUCTURE_TYPE_SUBMIT_INFO});
    std::vector<VkTimelineSemaphoreSubmitInfo> timelines(
        batch.size(), VkTimelineSemaphoreSubmitInfo{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO});
    const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSemaphore sem = m_timeline.get();
    size_t most_waits = 0;
    for (const PendingGroup& group : batch) most_waits = std::max(most_waits, group.waits.size());
    const std::vector<VkPipelineStageFlags> wait_stages(most_waits, wait_stage);
    for (size_t i = 0; i < batch.size(); ++i) {
        const PendingGroup& group = batch[i];
        VkSubmitInfo& submit = submits[i];
        VkTimelineSemaphoreSubmitInfo& timeline = timelines[i];
        submit.pNext = &timeline;
        submit.commandBufferCount = static_cast<uint32_t>(group.cbs.size());
        submit.pCommandBuffers = group.cbs.data();
        if (!group.waits.empty()) {
            const auto count = static_cast<uint32_t>(group.waits.size());
            timeline.waitSemaphoreValueCount = count;
            timeline.pWaitSemaphoreValues = group.wait_values.data();
            submit.waitSemaphoreCount = count;
            submit.pWaitSemaphores = group.waits.data();
            submit.pWaitDstStageMask = wait_stages.data();
        }
    }
    timelines.back().signalSemaphoreValueCount = 1;
    timelines.back().pSignalSemaphoreValues = &value;
    submits.back().signalSemaphoreCount = 1;
    submits.back().pSignalSemaphores = &sem;
    std::lock_guard<std::mutex> hardware(*m_hardware_lock);
    VK_CHECK(vkQueueSubmit(m_queue, static_cast<uint32_t>(submits.size()), submits.data(),
                           VK_NULL_HANDLE),
             "submitting work to queue " + std::to_string(m_global_index));
}

void Queue::rethrowFlushError() {
    if (!m_flush_error) return;
    std::exception_ptr error = m_flush_error;
    m_flush_error = nullptr;
    std::rethrow_exception(error);
}

void Queue::wakeFlusher() {
    if (!m_flusher.joinable()) {
        m_flusher = std::thread([this] { runFlusher(); });
    } else if (m_flusher_asleep) {
        m_flusher_asleep = false;
        m_wake.notify_one();
    }
}

void Queue::runFlusher() noexcept {
    std::unique_lock<std::mutex> lock(m_mutex);
    int idle_windows = 0;
    while (!m_stop) {
        if (m_pending_calls == 0) {
            if (idle_windows++ < kWatchfulWindows) {
                m_wake.wait_for(lock, std::max(m_window, std::chrono::nanoseconds(1000)));
            } else {
                m_flusher_asleep = true;
                m_wake.wait(lock);
                m_flusher_asleep = false;
            }
            continue;
        }
        idle_windows = 0;
        const auto deadline = m_pending_since + m_window;
        if (std::chrono::steady_clock::now() < deadline) {
            m_wake.wait_until(lock, deadline);
            continue;
        }
        try {
            flushLocked(lock);
        } catch (...) {
            m_flush_error = std::current_exception();
        }
    }
}

void Queue::stopFlusher() noexcept {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_flusher.joinable()) m_flusher.join();
}

void Queue::waitUntil(uint64_t value, bool interruptible) {
    if (value == 0) return;
    m_waited.store(true);
    flushThrough(value);
    value = signalledCovering(value);
    if (m_poll.count() > 0) {
        const auto deadline = std::chrono::steady_clock::now() + m_poll;
        while (completedValue() < value) {
            if (std::chrono::steady_clock::now() >= deadline) break;
            std::this_thread::yield();
        }
    }
    VkSemaphore sem = m_timeline.get();
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &sem;
    info.pValues = &value;
    for (;;) {
        const VkResult result = vkWaitSemaphores(m_device, &info, kWaitSliceNs);
        if (result == VK_SUCCESS) break;
        if (result != VK_TIMEOUT) VK_CHECK(result, "waiting for queue work to finish");
        if (interruptible) throwIfInterrupted();
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    collect(value);
}

void Queue::retire(uint64_t value, std::function<void()> deleter) {
    if (completed(value)) {
        deleter();
        return;
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    m_retired.emplace_back(value, std::move(deleter));
    if (m_retired.size() >= m_collect_at) {
        collect(completedValue());
        m_collect_at = std::max(kRetiredBeforeCollect, 2 * m_retired.size());
    }
}

void Queue::setMaxInFlight(uint32_t max_in_flight) {
    if (max_in_flight == 0)
        throw InvalidArgumentError("max_in_flight: expected at least 1 submission, got 0");
    m_max_in_flight.store(max_in_flight);
}

void Queue::waitForRoom(std::unique_lock<std::mutex>& lock, RoomWait room_wait) {
    for (;;) {
        const uint64_t max_in_flight = m_max_in_flight.load();
        if (m_next_value <= max_in_flight) return;
        // Once the timeline reaches `room`, at most max_in_flight - 1 submissions are unfinished.
        const uint64_t room = m_next_value - max_in_flight;
        if (reached(room)) return;
        // Waiting for a sixteenth of the bound to drain rather than for one submission wakes
        // the waiter once per that many submissions (each wake costs a CPU device's cores
        // microseconds) while the device keeps fifteen sixteenths queued.
        lock.unlock();
        waitUntil(room + max_in_flight / 16, room_wait == RoomWait::Interruptible);
        lock.lock();
    }
}

void Queue::collect(uint64_t completed) {
    detail::raiseTo(m_completed_seen, completed);
    for (size_t i = 0; i < m_in_flight.size();) {
        if (m_in_flight[i].first <= completed) {
            m_free.push_back(m_in_flight[i].second);
            m_in_flight[i] = m_in_flight.back();
            m_in_flight.pop_back();
        } else {
            ++i;
        }
    }
    for (size_t i = 0; i < m_retired.size();) {
        if (m_retired[i].first <= completed) {
            m_retired[i].second();
            m_retired[i] = std::move(m_retired.back());
            m_retired.pop_back();
        } else {
            ++i;
        }
    }
}

VkCommandBuffer Queue::acquireCommandBuffer() {
    if (m_free.empty()) collect(completedValue());
    if (!m_free.empty()) {
        VkCommandBuffer cb = m_free.back();
        m_free.pop_back();
        return cb;
    }
    VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    info.commandPool = m_pool.get();
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    VkCommandBuffer cb;
    VK_CHECK(vkAllocateCommandBuffers(m_device, &info, &cb), "allocating a command buffer");
    return cb;
}

VkCommandBuffer Queue::record(VkCommandBufferUsageFlags usage, const Recorder& commands) {
    std::lock_guard<std::mutex> lock(m_mutex);  // recording uses the queue's command pool
    VkCommandBuffer cb = acquireCommandBuffer();
    try {
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = usage;
        VK_CHECK(vkBeginCommandBuffer(cb, &begin), "beginning a command buffer");
        recordEntryBarrier(cb);
        commands(cb);
        recordFullBarrier(cb, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
        VK_CHECK(vkEndCommandBuffer(cb), "ending a command buffer");
    } catch (...) {
        vkResetCommandBuffer(cb, 0);  // out of the recording state, so it can be begun again
        m_free.push_back(cb);
        throw;
    }
    return cb;
}

uint64_t Queue::submitRecorded(const VkCommandBuffer* cbs, uint32_t count, VkSemaphore wait,
                               uint64_t wait_value, RoomWait room_wait) {
    std::unique_lock<std::mutex> lock(m_mutex);
    rethrowFlushError();
    waitForRoom(lock, room_wait);
    const uint64_t value = m_next_value++;
    const bool waits = wait != VK_NULL_HANDLE || !m_orderings.empty() || !m_final_waits.empty();
    // A group's waits hold all its calls back: a call with waits opens a group of its own.
    if (m_pending.empty() || waits || !m_pending.back().waits.empty()) {
        m_pending.emplace_back();
        if (waits) addWaits(m_pending.back(), wait, wait_value);
    }
    m_pending.back().cbs.insert(m_pending.back().cbs.end(), cbs, cbs + count);
    const bool opens_batch = m_pending_calls++ == 0;
    if (opens_batch) m_pending_since = std::chrono::steady_clock::now();
    const bool after_wait = m_waited.exchange(false);
    if (m_window.count() == 0 || m_pending_calls >= kMaxBatchCalls ||
        (opens_batch && after_wait && reached(m_flushed.load())))
        flushLocked(lock);
    else
        wakeFlusher();
    return value;
}

void Queue::addWaits(PendingGroup& group, VkSemaphore wait, uint64_t wait_value) {
    auto add = [&group](VkSemaphore semaphore, uint64_t value) {
        group.waits.push_back(semaphore);
        group.wait_values.push_back(value);
    };
    if (wait != VK_NULL_HANDLE) add(wait, wait_value);
    for (const auto& [semaphore, value] : m_final_waits) add(semaphore, value);
    m_final_waits.clear();
    for (ExternalOrdering* ordering : m_orderings) {
        const auto [semaphore, value] = ordering->handOver();
        add(semaphore, value);
    }
}

void Queue::attach(ExternalOrdering& ordering) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_orderings.push_back(&ordering);
}

void Queue::detach(ExternalOrdering& ordering, bool last_wait) {
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto found = std::find(m_orderings.begin(), m_orderings.end(), &ordering);
    if (found == m_orderings.end()) return;
    m_orderings.erase(found);
    if (last_wait) m_final_waits.push_back(ordering.handOver());
}

void Queue::forgetWaitsOn(VkSemaphore semaphore) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_final_waits.erase(std::remove_if(m_final_waits.begin(), m_final_waits.end(),
                                       [&](const auto& wait) { return wait.first == semaphore; }),
                        m_final_waits.end());
}

int Queue::exportTimelineFd() const {
    return m_exportable_timeline ? exportSemaphoreFd(m_device, m_timeline.get()) : -1;
}

bool Queue::reached(uint64_t value) {
    if (m_completed_seen.load() >= value) return true;
    const uint64_t completed = completedValue();
    detail::raiseTo(m_completed_seen, completed);
    return completed >= value;
}

void Queue::runExclusive(const std::function<void(VkQueue)>& work) {
    std::unique_lock<std::mutex> lock(m_mutex);
    flushLocked(lock);
    lock.unlock();
    std::lock_guard<std::mutex> hardware(*m_hardware_lock);
    work(m_queue);
}

void Queue::recycle(VkCommandBuffer cb, uint64_t last_use) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_in_flight.emplace_back(last_use, cb);
}

uint64_t Queue::submitFresh(const Recorder& commands, VkCommandBuffer followed_by,
                            VkSemaphore wait, uint64_t wait_value, RoomWait room_wait) {
    const VkCommandBuffer cbs[2] = {record(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, commands),
                                    followed_by};
    uint64_t value = 0;
    try {
        value = submitRecorded(cbs, followed_by == VK_NULL_HANDLE ? 1 : 2, wait, wait_value,
                               room_wait);
    } catch (...) {
        recycle(cbs[0], 0);
        throw;
    }
    recycle(cbs[0], value);
    return value;
}

uint64_t Queue::submit(const Recorder& commands, VkCommandBuffer followed_by) {
    return submitFresh(commands, followed_by, VK_NULL_HANDLE, 0, RoomWait::Interruptible);
}

uint64_t Queue::submitAfter(const Recorder& commands, Queue& other, uint64_t other_value,
                            RoomWait room_wait) {
    if (other.m_device != m_device)
        throw InvalidArgumentError("other: a queue waits only on queues of its own device");
    const uint64_t submitted = other.lastSubmitted();
    if (other_value > submitted)
        throw InvalidArgumentError("other_value: " + std::to_string(other_value) +
                                   " is not submitted to the other queue yet (its latest: " +
                                   std::to_string(submitted) + ")");
    // The device waits only for values submitted: a wait for one still in a batch could hold
    // this queue until that batch's window passes.
    return submitFresh(commands, VK_NULL_HANDLE, other.m_timeline.get(),
                       other.sentValueCovering(other_value), room_wait);
}

}  // namespace vkdispatch
