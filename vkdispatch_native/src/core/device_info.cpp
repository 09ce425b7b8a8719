// queryDeviceInfo: reads limits, features and queue families of one physical device.
#include <cstring>
#include <string>

#include "vkdispatch/instance.hpp"
#include "vkdispatch/vulkan_list.hpp"

namespace vkdispatch {
namespace {

bool hasDeviceExtension(VkPhysicalDevice device, const char* name) {
    const auto extensions = detail::listOf(VkExtensionProperties{}, "listing device extensions",
                                           vkEnumerateDeviceExtensionProperties, device, nullptr);
    for (const auto& ext : extensions)
        if (std::strcmp(ext.extensionName, name) == 0) return true;
    return false;
}

void readProperties(VkPhysicalDevice device, DeviceInfo& info) {
    VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    subgroup.pNext = &id;
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(device, &props);

    const VkPhysicalDeviceProperties& p = props.properties;
    info.version_variant = VK_API_VERSION_VARIANT(p.apiVersion);
    info.version_major = VK_API_VERSION_MAJOR(p.apiVersion);
    info.version_minor = VK_API_VERSION_MINOR(p.apiVersion);
    info.version_patch = VK_API_VERSION_PATCH(p.apiVersion);
    info.driver_version = p.driverVersion;
    info.vendor_id = p.vendorID;
    info.device_id = p.deviceID;
    info.device_type = static_cast<DeviceType>(p.deviceType);
    info.device_name = p.deviceName;

    const VkPhysicalDeviceLimits& l = p.limits;
    for (int i = 0; i < 3; ++i) {
        info.max_workgroup_size[i] = l.maxComputeWorkGroupSize[i];
        info.max_workgroup_count[i] = l.maxComputeWorkGroupCount[i];
    }
    info.max_workgroup_invocations = l.maxComputeWorkGroupInvocations;
    info.max_bound_descriptor_sets = l.maxBoundDescriptorSets;
    info.max_push_constant_size = l.maxPushConstantsSize;
    info.max_storage_buffer_range = l.maxStorageBufferRange;
    info.max_uniform_buffer_range = l.maxUniformBufferRange;
    info.uniform_buffer_alignment = l.minUniformBufferOffsetAlignment;
    info.storage_buffer_alignment = l.minStorageBufferOffsetAlignment;
    info.max_compute_shared_memory_size = l.maxComputeSharedMemorySize;

    info.sub_group_size = subgroup.subgroupSize;
    info.supported_stages = subgroup.supportedStages;
    info.supported_operations = subgroup.supportedOperations;
    info.quad_operations_in_all_stages = subgroup.quadOperationsInAllStages;

    info.has_uuid = true;
    std::memcpy(info.uuid.data(), id.deviceUUID, VK_UUID_SIZE);
}

void readFeatures(VkPhysicalDevice device, DeviceInfo& info) {
    const bool has_12 = VK_MAKE_API_VERSION(0, info.version_major, info.version_minor, 0) >=
                        VK_API_VERSION_1_2;
    const bool has_atomic_float = hasDeviceExtension(device, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    const bool has_executables =
        hasDeviceExtension(device, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);

    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    void** tail = &features.pNext;
    if (has_12) {
        *tail = &v11;
        v11.pNext = &v12;
        tail = &v12.pNext;
    }
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executables{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    if (has_atomic_float) {
        *tail = &atomic_float;
        tail = &atomic_float.pNext;
    }
    if (has_executables) *tail = &executables;
    vkGetPhysicalDeviceFeatures2(device, &features);

    info.float_64_support = features.features.shaderFloat64;
    info.int_64_support = features.features.shaderInt64;
    info.int_16_support = features.features.shaderInt16;
    info.float_16_support = v12.shaderFloat16;
    info.storage_buffer_16_bit_access = v11.storageBuffer16BitAccess;
    info.uniform_and_storage_buffer_16_bit_access = v11.uniformAndStorageBuffer16BitAccess;
    info.storage_push_constant_16 = v11.storagePushConstant16;
    info.storage_input_output_16 = v11.storageInputOutput16;
    info.scalar_block_layout = v12.scalarBlockLayout;
    info.timeline_semaphores = v12.timelineSemaphore;
    info.sampler_mirror_clamp_to_edge = v12.samplerMirrorClampToEdge;
    info.shader_buffer_float32_atomics = atomic_float.shaderBufferFloat32Atomics;
    info.shader_buffer_float32_atomic_add = atomic_float.shaderBufferFloat32AtomicAdd;
    info.pipeline_statistics = executables.pipelineExecutableInfo;
}

void readQueueFamilies(VkPhysicalDevice device, DeviceInfo& info) {
    const auto families = detail::listOf(VkQueueFamilyProperties{}, "reading queue families",
                                         vkGetPhysicalDeviceQueueFamilyProperties, device);
    for (const auto& family : families)
        info.queue_families.push_back({family.queueCount, family.queueFlags});
}

}  // namespace

DeviceInfo queryDeviceInfo(VkPhysicalDevice device, int index) {
    DeviceInfo info;
    info.index = index;
    readProperties(device, info);
    readFeatures(device, info);
    readQueueFamilies(device, info);
    return info;
}

}  // namespace vkdispatch
