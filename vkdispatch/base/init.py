"""Process-wide initialization: backend choice, the Vulkan instance and the device list.

The runtime state lives in one :class:`Runtime` object, created on first use and guarded by a
lock, so concurrent first calls from several threads initialize once.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from vkdispatch.base import backend as backends
from vkdispatch.base.device_info import DeviceInfo
from vkdispatch.base.log import LogLevel, attach_native, logger, set_log_level
from vkdispatch.errors import InvalidStateError

__all__ = ["initialize", "is_initialized", "get_backend", "is_vulkan", "is_cuda", "is_opencl",
           "is_dummy", "get_devices", "runtime", "Runtime"]


@dataclass
class Runtime:
    """What initialize() created: the backend, its native module and instance, the devices."""

    backend: str
    native: ModuleType | None
    instance: Any
    devices: list[DeviceInfo]
    settings: dict = field(default_factory=dict)


class _RuntimeSlot:
    lock = threading.RLock()
    current: Runtime | None = None


def _create(backend: str, debug_mode: bool, loader_debug_logs: bool) -> Runtime:
    if backend in ("cuda", "opencl"):
        raise backends.unavailable(backend)
    native = backends.load_native() if backend == "vulkan" else None
    if native is None:
        devices = [DeviceInfo.from_fields(backends.dummy_device_fields())]
        devices[0].backend_label = "Dummy"
        return Runtime(backend, None, None, devices)
    attach_native(native)
    if loader_debug_logs:
        os.environ["VK_LOADER_DEBUG"] = "all"
    instance = native.NativeInstance(debug_mode)
    devices = [DeviceInfo.from_fields(fields) for fields in instance.devices()]
    return Runtime(backend, native, instance, devices)


def initialize(debug_mode: bool = False, log_level: LogLevel | None = None,
               loader_debug_logs: bool = False, backend: str | None = None) -> None:
    """Creates the backend instance and enumerates the devices (idempotent).

    Args:
        debug_mode: enable the Khronos validation layer and shader printf; validation errors
            then raise :class:`~vkdispatch.errors.ValidationError`. Also enabled by the
            environment variable ``VKDISPATCH_DEBUG=1``.
        log_level: threshold of the ``"vkdispatch"`` logger and of native messages; None
            keeps the logger's level (WARNING unless :func:`set_log_level` or the
            :mod:`logging` configuration chose another).
        loader_debug_logs: set ``VK_LOADER_DEBUG=all`` before creating the instance.
        backend: ``"vulkan"`` (default, or ``$VKDISPATCH_BACKEND``) or ``"dummy"``.

    A second call with different arguments changes nothing and logs a warning saying so; asking
    for another backend than the one in use raises ``RuntimeError``.
    """
    debug_mode = bool(debug_mode) or os.environ.get("VKDISPATCH_DEBUG", "") not in ("", "0")
    settings = {"debug_mode": debug_mode, "loader_debug_logs": bool(loader_debug_logs)}
    if log_level is not None:
        settings["log_level"] = LogLevel(log_level)
    with _RuntimeSlot.lock:
        current = _RuntimeSlot.current
        if current is not None:
            # Only what this call asked for (not its defaults) can have been ignored.
            asked = {k: v for k, v in settings.items() if v not in (False, None)}
            _check_repeat(current, backend, asked)
            return
        name = backends.requested_backend(backend)
        if log_level is not None:
            set_log_level(log_level)
        runtime_ = _create(name, debug_mode, loader_debug_logs)
        runtime_.settings = settings
        for position, device in enumerate(runtime_.devices):
            device.sorted_index = position
        _RuntimeSlot.current = runtime_


def _check_repeat(current: Runtime, backend: str | None, asked: dict) -> None:
    if backend is not None and backends.normalize_backend(backend) != current.backend:
        raise InvalidStateError(f"vkdispatch is already initialized with backend '{current.backend}'. "
                           f"Cannot reinitialize with '{backend}' in the same process.")
    changed = [k for k, v in asked.items() if current.settings.get(k) != v]
    if changed:
        logger.warning("vkdispatch is already initialized; these initialize() arguments were "
                       "ignored: %s", ", ".join(f"{k}={asked[k]!r}" for k in changed))


def runtime() -> Runtime:
    """The current runtime, initializing with defaults first if needed."""
    if _RuntimeSlot.current is None:
        initialize()
    return _RuntimeSlot.current


def is_initialized() -> bool:
    """Whether :func:`initialize` has run in this process."""
    return _RuntimeSlot.current is not None


def get_backend() -> str:
    """The backend in use, or the one initialize() would pick (without initializing)."""
    if _RuntimeSlot.current is not None:
        return _RuntimeSlot.current.backend
    return backends.requested_backend(None)


def is_vulkan() -> bool:
    """Whether the backend in use (or about to be used) is the Vulkan backend."""
    return get_backend() == "vulkan"


def is_cuda() -> bool:
    """Whether the backend in use (or about to be used) is the CUDA backend (never, in this build)."""
    return get_backend() == "cuda"


def is_opencl() -> bool:
    """Whether the backend in use (or about to be used) is the OpenCL backend (never, in this build)."""
    return get_backend() == "opencl"


def is_dummy() -> bool:
    """Whether the backend in use (or about to be used) is the codegen-only dummy backend."""
    return get_backend() == "dummy"


def get_devices() -> list[DeviceInfo]:
    """Every device of the backend, initializing first if needed (the same list each call)."""
    return runtime().devices

