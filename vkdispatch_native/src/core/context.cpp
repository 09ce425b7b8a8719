#include "vkdispatch/context.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "vkdispatch/errors.hpp"

namespace vkdispatch {

Context::Context(const Instance& instance, const std::vector<int>& device_indices,
                 const std::vector<std::vector<int>>& queue_families) {
    if (device_indices.empty()) throw InvalidArgumentError("device_ids: at least one device is needed");
    if (device_indices.size() != queue_families.size())
        throw InvalidArgumentError("queue_families: expected one list per device (" +
                                   std::to_string(device_indices.size()) + "), got " +
                                   std::to_string(queue_families.size()));
    const int device_count = static_cast<int>(instance.devices().size());
    std::set<int> seen;
    for (int index : device_indices) {
        if (index < 0 || index >= device_count)
            throw IndexOutOfRangeError("device_ids: device " + std::to_string(index) +
                                       " does not exist (valid: 0.." +
                                       std::to_string(device_count - 1) + ")");
        if (!seen.insert(index).second)
            throw InvalidArgumentError("device_ids: device " + std::to_string(index) +
                                       " is listed twice");
    }
    m_max_workgroups.fill(UINT32_MAX);
    for (size_t i = 0; i < device_indices.size(); ++i)
        add(std::make_unique<Device>(instance, device_indices[i], queue_families[i],
                                     static_cast<int>(m_queues.size())));
    warmUp();
}

Context::Context(const Instance& instance, int device_index, VkDevice existing,
                 const std::vector<int>& queue_families) {
    m_max_workgroups.fill(UINT32_MAX);
    add(std::make_unique<Device>(instance, device_index, existing, queue_families, 0));
    warmUp();
}

void Context::add(std::unique_ptr<Device> device) {
    m_devices.push_back(std::move(device));
    const auto& limits = m_devices.back()->info().max_workgroup_count;
    for (int axis = 0; axis < 3; ++axis)
        m_max_workgroups[axis] = std::min(m_max_workgroups[axis], limits[axis]);
    for (const auto& queue : m_devices.back()->queues()) {
        m_queues.push_back(queue.get());
        m_queue_devices.push_back(m_devices.back().get());
        m_queue_device_indices.push_back(static_cast<int>(m_devices.size()) - 1);
    }
}

void Context::warmUp() {
    // Drivers finish initialising a queue on its first submission; pay that here, once, so
    // the first real dispatch of the process is not charged a millisecond for it.
    for (Queue* queue : m_queues) queue->submit([](VkCommandBuffer) {});
    waitIdle(-1);
}

Queue& Context::queue(int index, const char* what) const {
    if (index < 0 || index >= queueCount())
        throw IndexOutOfRangeError(std::string(what) + ": queue " + std::to_string(index) +
                                   " does not exist (valid: 0.." + std::to_string(queueCount() - 1) +
                                   ")");
    return *m_queues[index];
}

Device& Context::deviceOfQueue(int index) const {
    queue(index);
    return *m_queue_devices[index];
}

int Context::deviceIndexOfQueue(int index) const {
    queue(index);
    return m_queue_device_indices[index];
}

void Context::waitIdle(int index) {
    if (index == -1) {
        for (Queue* q : m_queues) q->waitIdle();
    } else {
        queue(index).waitIdle();
    }
}

void Context::setMaxInFlight(uint32_t max_in_flight) {
    for (Queue* q : m_queues) q->setMaxInFlight(max_in_flight);
}

size_t Context::emptyCache() noexcept {
    size_t freed = 0;
    for (const auto& device : m_devices) freed += device->memoryPool().dropKept();
    return freed;
}

void Context::setSubmitWindow(std::chrono::microseconds window) {
    for (Queue* q : m_queues) q->setSubmitWindow(window);
}

std::shared_ptr<Profiler> Context::profiler() const {
    std::lock_guard<std::mutex> lock(m_profiler_mutex);
    return m_profiler;
}

std::shared_ptr<Profiler> Context::setProfiler(std::shared_ptr<Profiler> profiler) {
    std::lock_guard<std::mutex> lock(m_profiler_mutex);
    return std::exchange(m_profiler, std::move(profiler));
}

}  // namespace vkdispatch
