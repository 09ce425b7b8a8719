#include "vkdispatch/profiler.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "vkdispatch/calibrated_clock.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/vulkan_list.hpp"

namespace vkdispatch {
namespace {

uint64_t steadyNow() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
}

uint32_t timestampBits(VkPhysicalDevice physical, uint32_t family) {
    const auto families = detail::listOf(VkQueueFamilyProperties{}, "reading queue families",
                                         vkGetPhysicalDeviceQueueFamilyProperties, physical);
    return family < families.size() ? families[family].timestampValidBits : 0;
}

}  // namespace

const char* ClockAlignment::name() const noexcept {
    switch (method) {
        case Method::Calibrated: return "calibrated";
        case Method::Measured: return "measured";
        case Method::None: break;
    }
    return "none";
}

Profiler::Timestamps::Timestamps(const Context& context, int queue_index, uint32_t count)
    : m_results(createBoundBuffer(context.deviceOfQueue(queue_index),
                                  uint64_t(count) * sizeof(uint64_t),
                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                  VK_MEMORY_PROPERTY_HOST_CACHED_BIT)),
      m_queue(queue_index),
      m_capacity(count),
      m_names(std::make_shared<std::vector<std::string>>()) {
    const VkDevice device = context.queue(queue_index).device();
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = count;
    VkQueryPool pool;
    VK_CHECK(vkCreateQueryPool(device, &info, nullptr, &pool), "creating a timestamp pool");
    m_pool = UniqueQueryPool(device, pool);
    m_names->reserve(count / 2);
}

void Profiler::Timestamps::reset(VkCommandBuffer cb) const {
    vkCmdResetQueryPool(cb, m_pool.get(), 0, m_capacity);
}

void Profiler::Timestamps::mark(VkCommandBuffer cb, const std::string& name, bool end) {
    if (m_used >= m_capacity) return;  // sized by the caller: cannot happen
    vkCmdWriteTimestamp(cb, end ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT
                                : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                        m_pool.get(), m_used++);
    if (!end) m_names->push_back(name);
}

void Profiler::Timestamps::finish(VkCommandBuffer cb) const {
    if (m_used == 0) return;
    vkCmdCopyQueryPoolResults(cb, m_pool.get(), 0, m_used, m_results.buffer.get(), 0,
                              sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
}

std::vector<uint64_t> Profiler::Timestamps::ticks() const {
    const auto* values = static_cast<const uint64_t*>(m_results.memory.mapped());
    return std::vector<uint64_t>(values, values + m_used);
}

void Profiler::Timestamps::read(uint64_t run) {
    // Held while reading: a caller that reuses the recording returns from here only once the
    // run it will overwrite has been read, by whichever thread got to it.
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_reader || (run != 0 && run != m_runs)) return;
    m_reader->add(*this);
    m_reader.reset();
}

Profiler::Profiler(const Context& context) : m_context(context) {
    for (int q = 0; q < context.queueCount(); ++q) {
        const Device& device = context.deviceOfQueue(q);
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(device.physical(), &properties);
        const uint32_t bits = timestampBits(device.physical(), context.queue(q).family());
        m_period_ns.push_back(properties.limits.timestampPeriod);
        m_mask.push_back(bits >= 64 ? ~uint64_t(0) : bits == 0 ? 0 : (uint64_t(1) << bits) - 1);
    }
}

std::shared_ptr<Profiler::Timestamps> Profiler::begin(int queue_index,
                                                      uint32_t timestamps) const {
    if (timestamps == 0 || !this->timestamps(queue_index)) return nullptr;
    return std::make_shared<Timestamps>(m_context, queue_index, timestamps);
}

void Profiler::collectAfter(Queue& queue, uint64_t value, std::shared_ptr<Timestamps> timestamps) {
    if (!timestamps) return;
    uint64_t run = 0;
    {
        std::lock_guard<std::mutex> lock(timestamps->m_mutex);
        run = ++timestamps->m_runs;
        timestamps->m_reader = shared_from_this();  // outlives the profile's block if need be
    }
    queue.retire(value, [timestamps, run] { timestamps->read(run); });
}

void Profiler::add(const Timestamps& timestamps) {
    Run run;
    run.names = timestamps.m_names;
    run.queue = timestamps.m_queue;
    run.ns = timestamps.ticks();
    for (uint64_t& tick : run.ns) tick = nanoseconds(static_cast<size_t>(run.queue), tick);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_runs.push_back(std::move(run));
}

uint64_t Profiler::nanoseconds(size_t queue_index, uint64_t ticks) const {
    return static_cast<uint64_t>(double(ticks & m_mask[queue_index]) * m_period_ns[queue_index]);
}

ClockAlignment Profiler::align(int queue_index, bool calibrated) {
    const auto q = static_cast<size_t>(queue_index);
    const CalibratedClock* clock = m_context.deviceOfQueue(queue_index).calibratedClock();
    if (calibrated && clock != nullptr && timestamps(queue_index)) {
        if (const auto sample = clock->sample()) {
            ClockAlignment alignment;
            alignment.method = ClockAlignment::Method::Calibrated;
            alignment.device_ns = nanoseconds(q, sample->device_ticks);
            alignment.host_ns = sample->host_ns;
            alignment.error_ns = sample->deviation_ns;
            return alignment;
        }
    }
    return measure(queue_index);
}

ClockAlignment Profiler::measure(int queue_index) {
    const auto timestamps = begin(queue_index, 1);
    if (!timestamps) return {};
    Queue& queue = m_context.queue(queue_index);
    const uint64_t before = steadyNow();
    queue.wait(queue.submit([&](VkCommandBuffer cb) {
        timestamps->reset(cb);
        timestamps->mark(cb, std::string(), false);
        timestamps->finish(cb);
    }));
    const uint64_t after = steadyNow();
    ClockAlignment alignment;
    alignment.method = ClockAlignment::Method::Measured;
    alignment.device_ns = nanoseconds(static_cast<size_t>(queue_index), timestamps->ticks()[0]);
    alignment.host_ns = before + (after - before) / 2;
    alignment.error_ns = (after - before + 1) / 2;
    return alignment;
}

std::vector<ProfileEvent> Profiler::take() {
    std::vector<Run> runs;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        runs.swap(m_runs);
    }
    std::vector<ProfileEvent> events;
    for (const Run& run : runs) {
        for (size_t i = 0; i + 1 < run.ns.size(); i += 2) {
            ProfileEvent event;
            event.name = (*run.names)[i / 2];
            event.queue = run.queue;
            event.start_ns = run.ns[i];
            event.end_ns = run.ns[i + 1];
            events.push_back(std::move(event));
        }
    }
    // Runs arrive in the order they were read, which need not be the order they ran in.
    std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
        return a.queue != b.queue ? a.queue < b.queue : a.start_ns < b.start_ns;
    });
    return events;
}

}  // namespace vkdispatch
