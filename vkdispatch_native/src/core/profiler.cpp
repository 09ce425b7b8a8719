#include "vkdispatch/profiler.hpp"

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

void Profiler::collect(const Recording& recording) {
    std::vector<uint64_t> ticks(recording.m_used);
    if (ticks.empty()) return;
    const VkResult result = vkGetQueryPoolResults(
        recording.m_device, recording.m_pool, 0, recording.m_used, ticks.size() * sizeof(uint64_t),
        ticks.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (result != VK_SUCCESS) return;  // runs where nothing may throw: the events are lost
    const auto q = static_cast<size_t>(recording.m_queue);
    const uint64_t mask = m_mask[q];
    const double period = m_period_ns[q];
    std::lock_guard<std::mutex> lock(m_mutex);
    for (size_t i = 0; i + 1 < ticks.size(); i += 2) {
        ProfileEvent event;
        event.name = recording.m_names[i / 2];
        event.queue = recording.m_queue;
        event.start_ns = static_cast<uint64_t>(double(ticks[i] & mask) * period);
        event.end_ns = static_cast<uint64_t>(double(ticks[i + 1] & mask) * period);
        m_events.push_back(std::move(event));
    }
}

std::vector<ProfileEvent> Profiler::take() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return std::exchange(m_events, {});
}

}  // namespace vkdispatch
