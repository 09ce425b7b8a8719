#include "vkdispatch/profiler.hpp"

#include <chrono>
#include <utility>

#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

uint32_t timestampBits(VkPhysicalDevice physical, uint32_t family) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
    return family < count ? families[family].timestampValidBits : 0;
}

}  // namespace

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
    const auto q = static_cast<size_t>(recording.m_queue);
    for (uint64_t& tick : ticks)
        tick = static_cast<uint64_t>(double(tick & m_mask[q]) * m_period_ns[q]);
    return ticks;
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

std::pair<uint64_t, uint64_t> Profiler::calibrate(int queue_index) {
    const auto recording = begin(queue_index, 1);
    if (!recording) return {0, 0};
    Queue& queue = m_context.queue(queue_index);
    const auto now = [] {
        return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::steady_clock::now().time_since_epoch())
                                         .count());
    };
    const uint64_t before = now();
    queue.wait(queue.submit([&](VkCommandBuffer cb) {
        recording->reset(cb);
        recording->mark(cb, std::string(), false);
    }));
    const uint64_t after = now();
    const std::vector<uint64_t> ns = nanoseconds(*recording);
    if (ns.empty()) return {0, 0};
    return {ns[0], before + (after - before) / 2};
}

std::vector<ProfileEvent> Profiler::take() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return std::exchange(m_events, {});
}

}  // namespace vkdispatch
