"""Description of one physical device, as enumerated by the backend."""
from __future__ import annotations

from typing import Any

__all__ = ["DeviceInfo", "DEVICE_INFO_FIELDS", "DEVICE_TYPE_NAMES", "is_cpu_device"]

DEVICE_INFO_FIELDS = (
    "dev_index", "version_variant", "version_major", "version_minor", "version_patch",
    "driver_version", "vendor_id", "device_id", "device_type", "device_name",
    "shader_buffer_float32_atomics", "shader_buffer_float32_atomic_add", "float_64_support",
    "float_16_support", "int_64_support", "int_16_support", "storage_buffer_16_bit_access",
    "uniform_and_storage_buffer_16_bit_access", "storage_push_constant_16",
    "storage_input_output_16", "max_workgroup_size", "max_workgroup_invocations",
    "max_workgroup_count", "max_bound_descriptor_sets", "max_push_constant_size",
    "max_storage_buffer_range", "max_uniform_buffer_range", "uniform_buffer_alignment",
    "sub_group_size", "supported_stages", "supported_operations",
    "quad_operations_in_all_stages", "max_compute_shared_memory_size", "queue_properties",
    "scalar_block_layout", "timeline_semaphores", "uuid",
)  # fmt: skip
"""Constructor argument order of :class:`DeviceInfo` (vkdispatch 0.1.0's order)."""

DEVICE_TYPE_NAMES = {0: "Other", 1: "Integrated GPU", 2: "Discrete GPU", 3: "Virtual GPU",
                     4: "CPU"}
_CPU_DEVICE_TYPE = 4


def is_cpu_device(info) -> bool:
    """Whether ``info`` (a DeviceInfo) describes a CPU implementation such as lavapipe, where
    the library's kernels take their CPU-friendly forms."""
    return info.device_type == _CPU_DEVICE_TYPE

_QUEUE_FLAG_NAMES = ((0x1, "Graphics"), (0x2, "Compute"), (0x4, "Transfer"),
                     (0x8, "Sparse Binding"), (0x10, "Protected"), (0x20, "Video Decode"),
                     (0x40, "Video Encode"), (0x100, "Optical Flow (NV)"))

_SUBGROUP_COMPUTE_STAGE = 0x20
_SUBGROUP_ARITHMETIC = 0x4


class DeviceInfo:
    """Limits, features and queue families of one device (not constructed by users).

    The constructor takes :data:`DEVICE_INFO_FIELDS` positionally; each becomes an attribute.
    Feature flags are the ints 0/1. ``device_type`` codes: 0 other, 1 integrated GPU,
    2 discrete GPU, 3 virtual GPU, 4 CPU. ``queue_properties`` lists ``(queue_count, flags)``
    per queue family. ``sorted_index`` is the position in :func:`vkdispatch.get_devices`.
    """

    def __init__(self, *values: Any):
        if len(values) != len(DEVICE_INFO_FIELDS):
            raise TypeError(f"DeviceInfo expects {len(DEVICE_INFO_FIELDS)} positional values, "
                            f"got {len(values)}")
        for name, value in zip(DEVICE_INFO_FIELDS, values):
            setattr(self, name, value)
        self.sorted_index = -1

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> DeviceInfo:
        """Builds a DeviceInfo from a mapping of every field name to its value."""
        return cls(*(fields[name] for name in DEVICE_INFO_FIELDS))

    backend_label = "Vulkan"

    def is_nvidia(self) -> bool:
        """Whether this is an NVIDIA GPU."""
        return "NVIDIA" in self.device_name

    def is_apple(self) -> bool:
        """Whether this is an Apple GPU."""
        return "Apple" in self.device_name

    @property
    def subgroup_enabled(self) -> bool:
        """Whether subgroup operations are available in compute shaders."""
        return bool(self.supported_stages & _SUBGROUP_COMPUTE_STAGE)

    @property
    def subgroup_arithmetic(self) -> bool:
        """Whether subgroup arithmetic (add, min, ...) is supported."""
        return bool(self.supported_operations & _SUBGROUP_ARITHMETIC)

    def get_info_string(self, verbose: bool = False) -> str:
        """A multi-line human-readable description (more limits with ``verbose``)."""
        lines = [f"Device {self.sorted_index}: {self.device_name}",
                 f"    {self.backend_label} Version: "
                 f"{self.version_major}.{self.version_minor}.{self.version_patch}",
                 f"    Device Type: {DEVICE_TYPE_NAMES.get(self.device_type, 'Unknown')}"]
        if self.version_variant:
            lines.append(f"    Variant: {self.version_variant}")
        if verbose:
            lines += [f"    Driver Version: {self.driver_version}",
                      f"    Vendor ID: 0x{self.vendor_id:04x}",
                      f"    Device ID: 0x{self.device_id:04x}",
                      f"    UUID: {self._uuid_string()}"]
        lines += self._feature_lines(verbose) + self._property_lines(verbose)
        lines += self._queue_lines(verbose)
        return "\n".join(lines)

    def _uuid_string(self) -> str:
        if self.uuid is None:
            return "unknown"
        h = bytes(self.uuid).hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def _feature_lines(self, verbose: bool) -> list[str]:
        lines = ["    Features:",
                 f"        Float32 Atomic Add: {bool(self.shader_buffer_float32_atomic_add)}"]
        if verbose:
            lines += [f"        Float32 Atomics: {bool(self.shader_buffer_float32_atomics)}",
                      f"        Scalar Block Layout: {bool(self.scalar_block_layout)}",
                      f"        Timeline Semaphores: {bool(self.timeline_semaphores)}"]
        return lines

    def _property_lines(self, verbose: bool) -> list[str]:
        lines = ["    Properties:",
                 f"        64-bit Float Support: {bool(self.float_64_support)}",
                 f"        16-bit Float Support: {bool(self.float_16_support)}",
                 f"        64-bit Int Support: {bool(self.int_64_support)}",
                 f"        16-bit Int Support: {bool(self.int_16_support)}",
                 f"        Max Push Constant Size: {self.max_push_constant_size} bytes",
                 f"        Subgroup Size: {self.sub_group_size}",
                 f"        Max Compute Shared Memory Size: {self.max_compute_shared_memory_size}"]
        if verbose:
            lines += [
                f"        Storage Buffer 16-bit Access: {bool(self.storage_buffer_16_bit_access)}",
                "        Uniform and Storage Buffer 16-bit Access: "
                f"{bool(self.uniform_and_storage_buffer_16_bit_access)}",
                f"        Storage Push Constant 16: {bool(self.storage_push_constant_16)}",
                f"        Storage Input Output 16: {bool(self.storage_input_output_16)}",
                f"        Max Workgroup Size: {tuple(self.max_workgroup_size)}",
                f"        Max Workgroup Invocations: {self.max_workgroup_invocations}",
                f"        Max Workgroup Count: {tuple(self.max_workgroup_count)}",
                f"        Max Bound Descriptor Sets: {self.max_bound_descriptor_sets}",
                f"        Max Storage Buffer Range: {self.max_storage_buffer_range}",
                f"        Max Uniform Buffer Range: {self.max_uniform_buffer_range}",
                f"        Uniform Buffer Alignment: {self.uniform_buffer_alignment}",
                f"        Subgroup Supported Stages: 0x{self.supported_stages:x}",
                f"        Subgroup Supported Operations: 0x{self.supported_operations:x}",
            ]
        return lines

    def _queue_lines(self, verbose: bool) -> list[str]:
        lines = ["    Queues:"]
        for i, (count, flags) in enumerate(self.queue_properties):
            if not flags & 0x3:
                continue
            shown = _QUEUE_FLAG_NAMES if verbose else _QUEUE_FLAG_NAMES[:2]
            names = " | ".join(name for bit, name in shown if flags & bit)
            lines.append(f"        {i} (count={count}, flags=0x{flags:x}): {names}")
        return lines

    def __repr__(self) -> str:
        return self.get_info_string()
