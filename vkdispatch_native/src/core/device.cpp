#include "vkdispatch/device.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "vkdispatch/device_selection.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/instance.hpp"
#include "vkdispatch/vulkan_list.hpp"

namespace vkdispatch {
namespace {

std::vector<std::string> availableExtensions(VkPhysicalDevice device) {
    const auto props = detail::listOf(VkExtensionProperties{}, "listing device extensions",
                                      vkEnumerateDeviceExtensionProperties, device, nullptr);
    std::vector<std::string> names;
    for (const auto& p : props) names.emplace_back(p.extensionName);
    return names;
}

bool contains(const std::vector<std::string>& names, const char* name) {
    for (const auto& n : names)
        if (n == name) return true;
    return false;
}

uint64_t importAlignmentOf(VkPhysicalDevice device) {
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    properties.pNext = &host;
    vkGetPhysicalDeviceProperties2(device, &properties);
    return host.minImportedHostPointerAlignment;
}

// Whether buffers of the usages vkdispatch gives them can be exported as POSIX file descriptors
// (VK_KHR_external_memory_fd) from shared memory blocks: what a CUDA view of a buffer needs.
bool exportsOpaqueFds(VkPhysicalDevice device) {
    VkPhysicalDeviceExternalBufferInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    query.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
    query.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalBufferProperties properties{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(device, &query, &properties);
    const VkExternalMemoryFeatureFlags features =
        properties.externalMemoryProperties.externalMemoryFeatures;
    return (features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0 &&
           (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) == 0;
}

// Whether timeline semaphores can be exported as POSIX file descriptors
// (VK_KHR_external_semaphore_fd): what ordering CUDA streams and queues on the device needs.
bool exportsTimelineFds(VkPhysicalDevice device) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkPhysicalDeviceExternalSemaphoreInfo query{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
    query.pNext = &type;
    query.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalSemaphoreProperties properties{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    vkGetPhysicalDeviceExternalSemaphoreProperties(device, &query, &properties);
    const VkExternalSemaphoreFeatureFlags needed = VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT;
    return (properties.externalSemaphoreFeatures & needed) == needed;
}

}  // namespace

Device::Device(const Instance& instance, int device_index, const std::vector<int>& queue_families,
               int first_queue_index)
    : m_physical(instance.physicalDevice(device_index)) {
    m_info = instance.devices().at(device_index);
    const std::string reason = m_info.unsuitable_reason();
    if (!reason.empty())
        throw InvalidArgumentError("device " + std::to_string(device_index) + " ('" +
                                   m_info.device_name + "') cannot run vkdispatch: " + reason);
    // Queues asked for beyond what a family has share its hardware queues (see
    // hardwareQueueIndices): one create-info per distinct family, with the hardware queues used.
    const std::vector<uint32_t> hardware = hardwareQueueIndices(m_info, queue_families);
    vkGetPhysicalDeviceMemoryProperties(m_physical, &m_memory);
    std::map<int, uint32_t> per_family;
    for (size_t i = 0; i < queue_families.size(); ++i)
        per_family[queue_families[i]] = std::max(per_family[queue_families[i]], hardware[i] + 1);
    std::vector<std::vector<float>> priorities;
    std::vector<VkDeviceQueueCreateInfo> queue_infos;
    for (const auto& [family, count] : per_family) {
        priorities.emplace_back(count, 1.0f);
        VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qi.queueFamilyIndex = static_cast<uint32_t>(family);
        qi.queueCount = count;
        qi.pQueuePriorities = priorities.back().data();
        queue_infos.push_back(qi);
    }

    const auto available = availableExtensions(m_physical);
    std::vector<const char*> extensions;
    const bool atomic_float = contains(available, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    if (atomic_float) extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    if (contains(available, VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME))
        extensions.push_back(VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME);
    if (contains(available, "VK_KHR_portability_subset"))
        extensions.push_back("VK_KHR_portability_subset");
    if (contains(available, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) &&
        m_info.device_type != DeviceType::Cpu && exportsOpaqueFds(m_physical)) {
        extensions.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        m_export_handle_types = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    }
    // Not in debug mode: the validation layer cannot see CUDA signal a shared semaphore, so it
    // would take every submission waiting for one as never finishing (and report the reuse of
    // its command buffer); CUDA views then wait on the host.
    if (m_export_handle_types != 0 && !instance.debug() &&
        contains(available, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) &&
        exportsTimelineFds(m_physical)) {
        extensions.push_back(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
        m_exports_timelines = true;
    }
    const char* calibrated =
        CalibratedClock::extensionFor(instance.handle(), m_physical, available);
    if (calibrated != nullptr) extensions.push_back(calibrated);
    if (contains(available, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) &&
        vkGetMemoryHostPointerPropertiesEXT != nullptr) {
        extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
        m_host_import_alignment = importAlignmentOf(m_physical);
    }

    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    atomic.shaderBufferFloat32Atomics = m_info.shader_buffer_float32_atomics;
    atomic.shaderBufferFloat32AtomicAdd = m_info.shader_buffer_float32_atomic_add;
    // Used only by pipelineStatistics(), which builds a pipeline of its own to ask.
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executables{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    executables.pipelineExecutableInfo = VK_TRUE;
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    void** tail = &v12.pNext;
    if (atomic_float) {
        *tail = &atomic;
        tail = &atomic.pNext;
    }
    if (m_info.pipeline_statistics) {
        extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
        *tail = &executables;
    }
    v12.timelineSemaphore = VK_TRUE;
    v12.scalarBlockLayout = VK_TRUE;
    v12.shaderFloat16 = m_info.float_16_support;
    v12.samplerMirrorClampToEdge = m_info.sampler_mirror_clamp_to_edge;
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    v11.pNext = &v12;
    v11.storageBuffer16BitAccess = m_info.storage_buffer_16_bit_access;
    v11.uniformAndStorageBuffer16BitAccess = m_info.uniform_and_storage_buffer_16_bit_access;
    v11.storagePushConstant16 = m_info.storage_push_constant_16;
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &v11;
    features.features.shaderInt16 = m_info.int_16_support;
    features.features.shaderInt64 = m_info.int_64_support;
    features.features.shaderFloat64 = m_info.float_64_support;

    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    info.pNext = &features;
    info.queueCreateInfoCount = static_cast<uint32_t>(queue_infos.size());
    info.pQueueCreateInfos = queue_infos.data();
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VK_CHECK(vkCreateDevice(m_physical, &info, nullptr, &m_device),
             "creating a logical device on '" + m_info.device_name + "'");
    if (calibrated != nullptr) m_calibrated_clock.emplace(m_device, calibrated);

    createQueues(queue_families, hardware, first_queue_index);
}

Device::Device(const Instance& instance, int device_index, VkDevice existing,
               const std::vector<int>& queue_families, int first_queue_index)
    : m_owned(false), m_physical(instance.physicalDevice(device_index)), m_device(existing) {
    if (existing == VK_NULL_HANDLE) throw InvalidArgumentError("device: the handle is null");
    m_info = instance.devices().at(device_index);
    vkGetPhysicalDeviceMemoryProperties(m_physical, &m_memory);
    createQueues(queue_families, std::vector<uint32_t>(queue_families.size(), 0),
                 first_queue_index);
}

void Device::createQueues(const std::vector<int>& queue_families,
                          const std::vector<uint32_t>& hardware, int first_queue_index) {
    std::map<std::pair<int, uint32_t>, std::shared_ptr<std::mutex>> hardware_locks;
    try {
        m_memory_pool = std::make_unique<MemoryPool>(m_device, m_memory,
                                                     MemoryPool::kBlockSize,
                                                     m_export_handle_types);
        m_descriptor_pools = std::make_unique<DescriptorPools>(m_device);
        for (size_t i = 0; i < queue_families.size(); ++i) {
            const int family = queue_families[i];
            auto& lock = hardware_locks[{family, hardware[i]}];
            if (!lock) lock = std::make_shared<std::mutex>();
            m_queues.push_back(std::make_unique<Queue>(
                m_device, family, hardware[i], first_queue_index + static_cast<int>(i),
                pollBeforeBlocking(m_info.device_type), lock, m_exports_timelines));
        }
        std::set<uint32_t> families(queue_families.begin(), queue_families.end());
        m_families.assign(families.begin(), families.end());
    } catch (...) {
        m_queues.clear();
        m_descriptor_pools.reset();
        m_memory_pool.reset();
        if (m_owned) vkDestroyDevice(m_device, nullptr);
        throw;
    }
}

Device::~Device() {
    m_queues.clear();  // waits for their work and runs deferred deletions first
    m_descriptor_pools.reset();
    m_memory_pool.reset();
    if (m_owned) vkDestroyDevice(m_device, nullptr);
}

}  // namespace vkdispatch
