#pragma once
// One logical VkDevice with the queues a context asked for, in the order asked for.
//
// Thread safety: safe to share; queues synchronise themselves.
#include <memory>
#include <optional>
#include <vector>

#include "vkdispatch/calibrated_clock.hpp"
#include "vkdispatch/descriptor_pools.hpp"
#include "vkdispatch/device_info.hpp"
#include "vkdispatch/memory_pool.hpp"
#include "vkdispatch/queue.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class Instance;

class Device {
public:
    /// Creates the device with one queue per entry of `queue_families` (repeating a family
    /// creates several queues of it). `first_queue_index` numbers the queues context-wide.
    Device(const Instance& instance, int device_index, const std::vector<int>& queue_families,
           int first_queue_index);
    /// Uses `existing`, a device made elsewhere on physical device `device_index` (it must
    /// outlive this object, which never destroys it, and have the timelineSemaphore feature
    /// enabled); each entry of `queue_families` uses queue 0 of that family, which the device
    /// must have been created with.
    Device(const Instance& instance, int device_index, VkDevice existing,
           const std::vector<int>& queue_families, int first_queue_index);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkDevice handle() const noexcept { return m_device; }
    VkPhysicalDevice physical() const noexcept { return m_physical; }
    const DeviceInfo& info() const noexcept { return m_info; }
    const VkPhysicalDeviceMemoryProperties& memoryProperties() const noexcept { return m_memory; }
    const std::vector<std::unique_ptr<Queue>>& queues() const noexcept { return m_queues; }
    MemoryPool& memoryPool() noexcept { return *m_memory_pool; }
    /// The distinct queue families of queues(), ascending: the families a resource shared by
    /// all of them is made concurrent over.
    const std::vector<uint32_t>& queueFamilies() const noexcept { return m_families; }
    /// Whether samplers may use VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE (a Vulkan 1.2
    /// feature, enabled where the device has it; not known of adopted devices: false).
    bool mirrorClampToEdge() const noexcept {
        return m_owned && m_info.sampler_mirror_clamp_to_edge;
    }
    /// Whether the driver reports what it compiled a pipeline to (registers, shared memory...:
    /// VK_KHR_pipeline_executable_properties, enabled where the device has it; adopted
    /// devices: false).
    bool reportsPipelineStatistics() const noexcept {
        return m_owned && m_info.pipeline_statistics;
    }
    DescriptorPools& descriptorPools() noexcept { return *m_descriptor_pools; }
    /// The alignment of host memory this device can import (VK_EXT_external_memory_host,
    /// enabled where the device has it), or 0 where it cannot (and on adopted devices).
    uint64_t hostImportAlignment() const noexcept { return m_host_import_alignment; }
    /// Whether its queues' timeline semaphores (and new ones) export as POSIX file descriptors
    /// (VK_KHR_external_semaphore_fd; only where buffer memory exports too): CUDA streams then
    /// wait on and signal them.
    bool exportsTimelines() const noexcept { return m_exports_timelines; }
    /// The driver's pairing of this device's timestamps with CLOCK_MONOTONIC, where the device
    /// offers it (its extension is enabled then; never on adopted devices), else null.
    const CalibratedClock* calibratedClock() const noexcept {
        return m_calibrated_clock ? &*m_calibrated_clock : nullptr;
    }

private:
    // The pools and one Queue per entry of `queue_families` (hardware queue `hardware[i]`);
    // destroys an owned device when that fails.
    void createQueues(const std::vector<int>& queue_families,
                      const std::vector<uint32_t>& hardware, int first_queue_index);

    bool m_owned = true;
    DeviceInfo m_info;
    VkPhysicalDevice m_physical;
    VkPhysicalDeviceMemoryProperties m_memory{};
    VkDevice m_device = VK_NULL_HANDLE;
    std::unique_ptr<MemoryPool> m_memory_pool;     // freed after the queues' deferred deletions
    std::unique_ptr<DescriptorPools> m_descriptor_pools;  // (likewise)
    std::vector<std::unique_ptr<Queue>> m_queues;  // destroyed before m_device (declared after)
    std::vector<uint32_t> m_families;
    uint64_t m_host_import_alignment = 0;
    std::optional<CalibratedClock> m_calibrated_clock;
    // Handle types its memory pool allocates buffer memory exportable as (memoryPool()
    // .exportTypes()): opaque file descriptors where VK_KHR_external_memory_fd allows them.
    VkExternalMemoryHandleTypeFlags m_export_handle_types = 0;
    bool m_exports_timelines = false;
};

}  // namespace vkdispatch
