#pragma once
// What a physical device offers, as a plain struct (no Vulkan types) so that the pure selection
// logic and the Python bridge can use it without a driver.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace vkdispatch {

/// Vulkan physical-device types, numbered as VkPhysicalDeviceType.
enum class DeviceType : int { Other = 0, IntegratedGpu = 1, DiscreteGpu = 2, VirtualGpu = 3, Cpu = 4 };

/// Queue capability bits, numbered as VkQueueFlagBits.
enum QueueFlag : uint32_t {
    kQueueGraphics = 0x1,
    kQueueCompute = 0x2,
    kQueueTransfer = 0x4,
    kQueueSparse = 0x8,
};

struct QueueFamilyInfo {
    uint32_t queue_count = 0;
    uint32_t flags = 0;
};

struct DeviceInfo {
    int index = 0;  // position in the instance's enumeration order
    uint32_t version_variant = 0, version_major = 0, version_minor = 0, version_patch = 0;
    uint32_t driver_version = 0, vendor_id = 0, device_id = 0;
    DeviceType device_type = DeviceType::Other;
    std::string device_name;

    bool shader_buffer_float32_atomics = false;
    bool shader_buffer_float32_atomic_add = false;
    bool float_64_support = false;
    bool float_16_support = false;
    bool int_64_support = false;
    bool int_16_support = false;
    bool storage_buffer_16_bit_access = false;
    bool uniform_and_storage_buffer_16_bit_access = false;
    bool storage_push_constant_16 = false;
    bool storage_input_output_16 = false;
    bool sampler_mirror_clamp_to_edge = false;
    // VK_KHR_pipeline_executable_properties: the driver reports what it compiled a pipeline to.
    bool pipeline_statistics = false;

    std::array<uint32_t, 3> max_workgroup_size{};
    uint32_t max_workgroup_invocations = 0;
    std::array<uint32_t, 3> max_workgroup_count{};
    uint32_t max_bound_descriptor_sets = 0;
    uint32_t max_push_constant_size = 0;
    uint32_t max_storage_buffer_range = 0;
    uint32_t max_uniform_buffer_range = 0;
    uint64_t uniform_buffer_alignment = 0;
    uint64_t storage_buffer_alignment = 0;  // minStorageBufferOffsetAlignment

    uint32_t sub_group_size = 0;
    uint32_t supported_stages = 0;
    uint32_t supported_operations = 0;
    bool quad_operations_in_all_stages = false;
    uint32_t max_compute_shared_memory_size = 0;

    std::vector<QueueFamilyInfo> queue_families;
    bool scalar_block_layout = false;
    bool timeline_semaphores = false;
    bool has_uuid = false;
    std::array<uint8_t, 16> uuid{};

    /// Why this device cannot host a context, or empty when it can.
    std::string unsuitable_reason() const;
};

}  // namespace vkdispatch
