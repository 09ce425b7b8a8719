"""Backend names, their resolution order, and loading of the native module.

This build ships the Vulkan backend (the native extension) and the codegen-only ``dummy``
backend. ``cuda`` and ``opencl`` are recognised names of vkdispatch 0.1.0 whose runtimes are not
part of this build: asking for them raises :class:`BackendUnavailableError`.
"""
from __future__ import annotations

import os
from types import ModuleType

from vkdispatch.errors import NATIVE_ERROR_CLASSES, BackendUnavailableError, InvalidArgumentError

__all__ = ["BACKEND_NAMES", "normalize_backend", "requested_backend", "load_native",
           "dummy_device_fields"]

BACKEND_NAMES = ("cuda", "dummy", "opencl", "vulkan")
ENV_VARIABLE = "VKDISPATCH_BACKEND"


def normalize_backend(name: str) -> str:
    """Lower-cased, stripped backend name; ``ValueError`` for unknown names."""
    if not isinstance(name, str):
        raise InvalidArgumentError(f"backend must be a string, got {type(name).__name__}")
    normalized = name.strip().lower()
    if normalized not in BACKEND_NAMES:
        raise InvalidArgumentError(f"Unknown backend '{name}'. Expected one of: "
                                   + ", ".join(BACKEND_NAMES))
    return normalized


def requested_backend(explicit: str | None) -> str:
    """The backend an initialize() call would use: argument, then environment, then vulkan."""
    if explicit is not None:
        return normalize_backend(explicit)
    from_env = os.environ.get(ENV_VARIABLE)
    return normalize_backend(from_env) if from_env else "vulkan"


def load_native() -> ModuleType:
    """Imports the native extension, installing the Python exception classes into it."""
    try:
        from vkdispatch import _native  # lazy: the dummy backend works without the extension
    except ImportError as error:
        raise BackendUnavailableError(
            "vulkan", f"the native extension failed to load ({error}); reinstall vkdispatch "
            "with the system packages in place (`make setup`)") from error
    _native.set_error_classes(NATIVE_ERROR_CLASSES)
    return _native


def unavailable(name: str) -> BackendUnavailableError:
    return BackendUnavailableError(
        name, "this build of vkdispatch runs on Vulkan only (any Vulkan GPU, or lavapipe on the "
        "CPU); use backend='vulkan' or backend='dummy'")


def dummy_device_fields() -> dict:
    """The one fake device of the codegen-only ``dummy`` backend."""
    return {
        "dev_index": 0, "version_variant": 0, "version_major": 1, "version_minor": 3,
        "version_patch": 0, "driver_version": 0, "vendor_id": 0x1BAD, "device_id": 0,
        "device_type": 2, "device_name": "VKDispatch Web Dummy GPU",
        "shader_buffer_float32_atomics": 1, "shader_buffer_float32_atomic_add": 1,
        "float_64_support": 1, "float_16_support": 1, "int_64_support": 1, "int_16_support": 1,
        "storage_buffer_16_bit_access": 1, "uniform_and_storage_buffer_16_bit_access": 1,
        "storage_push_constant_16": 1, "storage_input_output_16": 1,
        "max_workgroup_size": (1024, 1024, 64), "max_workgroup_invocations": 1024,
        "max_workgroup_count": (65535, 65535, 65535), "max_bound_descriptor_sets": 4,
        "max_push_constant_size": 256, "max_storage_buffer_range": 2**31 - 1,
        "max_uniform_buffer_range": 65536, "uniform_buffer_alignment": 0,
        "sub_group_size": 32, "supported_stages": 0x20, "supported_operations": 0xFF,
        "quad_operations_in_all_stages": 1, "max_compute_shared_memory_size": 65536,
        "queue_properties": [(8, 0x006), (4, 0x007)], "scalar_block_layout": 1,
        "timeline_semaphores": 1, "uuid": None,
    }  # fmt: skip
