#include "vkdispatch/profiler.hpp"

#include <chrono>
#include <utility>

#include "vkdispatch/calibrated_clock.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

uint64_t steadyNow() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
}

uint32_t timestampBits(VkPhysicalDevice physical, uint32_t family) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
    return family < count ? families[family].timestampValidBits : 0;
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

Profiler::Recording::Recording(VkDevice device, int queue_index, uint32_t timestamps)
    : m_device(device), m_queue(queue_index), m_capacity(timestamps) {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = timestamps;
    VK_CHECK(vkCreateQueryPool(device, &info, nullptr, &m_pool), "creating a timestamp pool");
    m_names.reserve(timestamps / 2);
}

Profiler::Recording::~Recording() { vkDestroyQueryPool(m_device, m_pool, nullptr); }

void Profiler::Recording::reset(VkCommandBuffer cb) const {
    vkCmdResetQueryPool(cb, m_pool, 0, m_capacity);
}

void Profiler::Recording::mark(VkCommandBuffer cb, const std::string& name, bool end) {
    if (m_used >= m_capacity) return;  // sized by the caller: cannot happen
    vkCmdWriteTimestamp(cb, end ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT
                                : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                        m_pool, m_used++);
    if (!end) m_names.push_back(name);
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

std::unique_ptr<Profiler::Recording> Profiler::begin(int queue_index,
                                                     uint32_t timestamps) const {
    if (timestamps == 0 || m_mask.at(static_cast<size_t>(queue_index)) == 0) return nullptr;
    return std::make_unique<Recording>(m_context.queue(queue_index).device(), queue_index,
                                       timestamps);
}

void Profiler::collectAfter(Queue& queue, uint64_t value, std::unique_ptr<Recording> recording) {
    if (!recording) return;
    std::shared_ptr<Recording> held(std::move(recording));
    std::shared_ptr<Profiler> self = shared_from_this();  // outlives the profile's block
    queue.retire(value, [self, held] { self->collect(*held); });
}

std::vector<uint64_t> Profiler::nanoseconds(const Recording& recording) const {
    std::vector<uint64_t> ticks(recording.m_used);
    if (ticks.empty()) return ticks;
    const VkResult result = vkGetQueryPoolResults(
        recording.m_device, recording.m_pool, 0, recording.m_used, ticks.size() * sizeof(uint64_t),
        ticks.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (result != VK_SUCCESS) return {};  // callers run where nothing may throw
    for (uint64_t& tick : ticks) tick = nanoseconds(static_cast<size_t>(recording.m_queue), tick);
    return ticks;
}

uint64_t Profiler::nanoseconds(size_t queue_index, uint64_t ticks) const {
    return static_cast<uint64_t>(double(ticks & m_mask[queue_index]) * m_period_ns[queue_index]);
}

void Profiler::collect(const Recording& recording) {
    const std::vector<uint64_t> ns = nanoseconds(recording);
    std::lock_guard<std::mutex> lock(m_mutex);
    for (size_t i = 0; i + 1 < ns.size(); i += 2) {
        ProfileEvent event;
        event.name = recording.m_names[i / 2];
        event.queue = recording.m_queue;
        event.start_ns = ns[i];
        event.end_ns = ns[i + 1];
        m_events.push_back(std::move(event));
    }
}

ClockAlignment Profiler::align(int queue_index, bool calibrated) {
    const auto q = static_cast<size_t>(queue_index);
    const CalibratedClock* clock = m_context.deviceOfQueue(queue_index).calibratedClock();
    if (calibrated && clock != nullptr && m_mask.at(q) != 0) {
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
    const auto recording = begin(queue_index, 1);
    if (!recording) return {};
    Queue& queue = m_context.queue(queue_index);
    const uint64_t before = steadyNow();
    queue.wait(queue.submit([&](VkCommandBuffer cb) {
        recording->reset(cb);
        recording->mark(cb, std::string(), false);
    }));
    const uint64_t after = steadyNow();
    const std::vector<uint64_t> ns = nanoseconds(*recording);
    if (ns.empty()) return {};
    ClockAlignment alignment;
    alignment.method = ClockAlignment::Method::Measured;
    alignment.device_ns = ns[0];
    alignment.host_ns = before + (after - before) / 2;
    alignment.error_ns = (after - before + 1) / 2;
    return alignment;
}

std::vector<ProfileEvent> Profiler::take() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return std::exchange(m_events, {});
}

}  // namespace vkdispatch
