# Physical devices (included by wrapper.pyx): their properties as dicts, the pure selection logic
# (device ranking, queue families) over Python DeviceInfo-like objects, and the Vulkan instance
# that enumerates them.
from c_device_info cimport DeviceInfo, DeviceType, QueueFamilyInfo, rankDevices
from c_device_info cimport selectQueueFamilies


cdef dict _device_dict(DeviceInfo d):
    return {
        "dev_index": d.index,
        "version_variant": d.version_variant,
        "version_major": d.version_major,
        "version_minor": d.version_minor,
        "version_patch": d.version_patch,
        "driver_version": d.driver_version,
        "vendor_id": d.vendor_id,
        "device_id": d.device_id,
        "device_type": <int>d.device_type,
        "device_name": d.device_name.decode("utf-8", "replace"),
        "shader_buffer_float32_atomics": int(d.shader_buffer_float32_atomics),
        "shader_buffer_float32_atomic_add": int(d.shader_buffer_float32_atomic_add),
        "float_64_support": int(d.float_64_support),
        "float_16_support": int(d.float_16_support),
        "int_64_support": int(d.int_64_support),
        "int_16_support": int(d.int_16_support),
        "storage_buffer_16_bit_access": int(d.storage_buffer_16_bit_access),
        "uniform_and_storage_buffer_16_bit_access":
            int(d.uniform_and_storage_buffer_16_bit_access),
        "storage_push_constant_16": int(d.storage_push_constant_16),
        "storage_input_output_16": int(d.storage_input_output_16),
        "max_workgroup_size": tuple(d.max_workgroup_size[i] for i in range(3)),
        "max_workgroup_invocations": d.max_workgroup_invocations,
        "max_workgroup_count": tuple(d.max_workgroup_count[i] for i in range(3)),
        "max_bound_descriptor_sets": d.max_bound_descriptor_sets,
        "max_push_constant_size": d.max_push_constant_size,
        "max_storage_buffer_range": d.max_storage_buffer_range,
        "max_uniform_buffer_range": d.max_uniform_buffer_range,
        "uniform_buffer_alignment": d.uniform_buffer_alignment,
        "sub_group_size": d.sub_group_size,
        "supported_stages": d.supported_stages,
        "supported_operations": d.supported_operations,
        "quad_operations_in_all_stages": int(d.quad_operations_in_all_stages),
        "max_compute_shared_memory_size": d.max_compute_shared_memory_size,
        "queue_properties": [(d.queue_families[i].queue_count, d.queue_families[i].flags)
                             for i in range(d.queue_families.size())],
        "scalar_block_layout": int(d.scalar_block_layout),
        "timeline_semaphores": int(d.timeline_semaphores),
        "uuid": bytes([d.uuid[i] for i in range(16)]) if d.has_uuid else None,
    }


cdef DeviceInfo _device_from(object info) except *:
    """Builds the fields the pure selection logic reads from a Python DeviceInfo-like object."""
    cdef DeviceInfo d
    cdef QueueFamilyInfo family
    d.index = info.dev_index
    d.device_type = <DeviceType>(<int>info.device_type)
    d.device_name = info.device_name.encode()
    d.timeline_semaphores = bool(info.timeline_semaphores)
    d.scalar_block_layout = bool(info.scalar_block_layout)
    for count, flags in info.queue_properties:
        family.queue_count = count
        family.flags = flags
        d.queue_families.push_back(family)
    return d


def rank_devices(list infos, bint use_cpu):
    """Positions in ``infos`` of the devices a default context may use, best first."""
    cdef vector[DeviceInfo] devices
    for info in infos:
        devices.push_back(_device_from(info))
    return list(rankDevices(devices, use_cpu))


def select_queue_families(info, int queue_count):
    """Queue family per queue for device ``info``; ``queue_count < 0`` picks the default."""
    return list(selectQueueFamilies(_device_from(info), queue_count))


def unsuitable_reason(info):
    """Why device ``info`` cannot host a context ("" when it can)."""
    return _device_from(info).unsuitable_reason().decode()


cdef class NativeInstance:
    """The Vulkan instance and its enumerated physical devices."""
    cdef unique_ptr[rt.Instance] ptr

    def __cinit__(self, bint debug=False):
        cdef rt.InstanceOptions options
        options.debug = debug
        self.ptr.reset(new rt.Instance(options))
        _check_validation()

    @property
    def debug(self):
        return self.ptr.get().debug()

    def devices(self):
        cdef vector[DeviceInfo] devices = self.ptr.get().devices()
        return [_device_dict(devices[i]) for i in range(devices.size())]
