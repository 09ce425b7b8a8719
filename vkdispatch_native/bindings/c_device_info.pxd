# Declarations of vkdispatch/device_info.hpp and vkdispatch/device_selection.hpp.
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libcpp cimport bool
from libcpp.string cimport string
from libcpp.vector cimport vector

from c_errors cimport raiseNativeError

cdef extern from "<array>" namespace "std" nogil:
    cdef cppclass array3 "std::array<uint32_t, 3>":
        uint32_t& operator[](size_t)
    cdef cppclass array16 "std::array<uint8_t, 16>":
        uint8_t& operator[](size_t)

cdef extern from "vkdispatch/device_info.hpp" namespace "vkdispatch":
    cdef enum class DeviceType(int):
        Other
        IntegratedGpu
        DiscreteGpu
        VirtualGpu
        Cpu

    cdef cppclass QueueFamilyInfo:
        uint32_t queue_count
        uint32_t flags

    cdef cppclass DeviceInfo:
        int index
        uint32_t version_variant, version_major, version_minor, version_patch
        uint32_t driver_version, vendor_id, device_id
        DeviceType device_type
        string device_name
        bool shader_buffer_float32_atomics, shader_buffer_float32_atomic_add
        bool float_64_support, float_16_support, int_64_support, int_16_support
        bool storage_buffer_16_bit_access, uniform_and_storage_buffer_16_bit_access
        bool storage_push_constant_16, storage_input_output_16
        array3 max_workgroup_size
        uint32_t max_workgroup_invocations
        array3 max_workgroup_count
        uint32_t max_bound_descriptor_sets, max_push_constant_size
        uint32_t max_storage_buffer_range, max_uniform_buffer_range
        uint64_t uniform_buffer_alignment
        uint32_t sub_group_size, supported_stages, supported_operations
        bool quad_operations_in_all_stages
        uint32_t max_compute_shared_memory_size
        vector[QueueFamilyInfo] queue_families
        bool scalar_block_layout, timeline_semaphores, has_uuid
        array16 uuid
        string unsuitable_reason() const

cdef extern from "vkdispatch/device_selection.hpp" namespace "vkdispatch":
    vector[int] rankDevices(const vector[DeviceInfo]& devices, bool use_cpu)
    vector[int] selectQueueFamilies(const DeviceInfo& device, int queue_count) except +raiseNativeError
