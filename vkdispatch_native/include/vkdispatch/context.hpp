#pragma once
// A set of devices and their queues, numbered context-wide in device order.
//
// Thread safety: safe to share after construction.
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "vkdispatch/device.hpp"
#include "vkdispatch/instance.hpp"
#include "vkdispatch/queue.hpp"

namespace vkdispatch {

class Profiler;

class Context {
public:
    /// `queue_families[i]` lists one family index per queue to create on device
    /// `device_indices[i]`. The instance must outlive the context.
    Context(const Instance& instance, const std::vector<int>& device_indices,
            const std::vector<std::vector<int>>& queue_families);
    /// A context over `existing`, a device made elsewhere on physical device `device_index`
    /// (see Device's adopting constructor for what it must have).
    Context(const Instance& instance, int device_index, VkDevice existing,
            const std::vector<int>& queue_families);

    int queueCount() const noexcept { return static_cast<int>(m_queues.size()); }
    /// Throws IndexOutOfRangeError naming `what` when `index` is not a queue of this context.
    Queue& queue(int index, const char* what = "queue_index") const;
    /// The device that owns queue `index`.
    Device& deviceOfQueue(int index) const;
    /// Position in devices() of the device that owns queue `index`.
    int deviceIndexOfQueue(int index) const;
    const std::vector<std::unique_ptr<Device>>& devices() const noexcept { return m_devices; }
    /// maxComputeWorkGroupCount per axis, the minimum over the devices.
    const std::array<uint32_t, 3>& maxWorkgroupCount() const noexcept { return m_max_workgroups; }
    /// Waits for everything submitted so far to queue `index`, or to every queue when -1.
    void waitIdle(int index);
    /// Queue::setMaxInFlight() of every queue (throws InvalidArgumentError for 0).
    void setMaxInFlight(uint32_t max_in_flight);
    /// Queue::maxInFlight(), the same on every queue.
    uint32_t maxInFlight() const {
        return m_queues.empty() ? kDefaultMaxInFlight : m_queues.front()->maxInFlight();
    }
    /// Queue::setSubmitWindow() of every queue (throws InvalidArgumentError when negative).
    void setSubmitWindow(std::chrono::microseconds window);
    /// MemoryPool::dropKept() of every device: frees the memory kept for reuse, never memory in
    /// use (nor that of buffers whose work is still running: it is kept when that work ends).
    /// How many allocations were freed.
    size_t emptyCache() noexcept;
    /// Queue::submitWindow(), the same on every queue.
    std::chrono::microseconds submitWindow() const {
        return m_queues.empty() ? kDefaultSubmitWindow : m_queues.front()->submitWindow();
    }

    /// The profiler of submissions while profiling is on (vd.profile()), else null.
    std::shared_ptr<Profiler> profiler() const;
    /// Turns profiling on (a new Profiler) or off (null), returning the previous profiler.
    std::shared_ptr<Profiler> setProfiler(std::shared_ptr<Profiler> profiler);

private:
    void add(std::unique_ptr<Device> device);
    void warmUp();

    mutable std::mutex m_profiler_mutex;
    std::shared_ptr<Profiler> m_profiler;  // under m_profiler_mutex
    std::vector<std::unique_ptr<Device>> m_devices;
    std::vector<Queue*> m_queues;
    std::vector<Device*> m_queue_devices;
    std::vector<int> m_queue_device_indices;
    std::array<uint32_t, 3> m_max_workgroups{};
};

}  // namespace vkdispatch
