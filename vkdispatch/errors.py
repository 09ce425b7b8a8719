"""The vkdispatch exception hierarchy.

Every exception the library raises derives from :class:`VkDispatchError` and from the built-in
class that matches it (``ValueError`` for a bad value, ``IndexError`` for an index out of range,
``MemoryError`` for exhausted device memory, ...), so ``except ValueError`` keeps working.
Messages name the argument, the value received and what was expected.
"""
from __future__ import annotations

__all__ = [
    "VkDispatchError", "InvalidArgumentError", "InvalidTypeError", "IndexOutOfRangeError",
    "InvalidStateError", "InvalidShaderArgumentError",
    "NativeError", "VulkanError", "OutOfDeviceMemoryError", "DeviceLostError",
    "ValidationError", "DummyBackendError", "BackendUnavailableError", "VulkanUnavailableError",
    "ShaderBuildError",
]  # fmt: skip


class VkDispatchError(Exception):
    """Root of every exception raised by vkdispatch."""


class InvalidArgumentError(VkDispatchError, ValueError):
    """An argument has a value outside what the call accepts."""


class InvalidTypeError(VkDispatchError, TypeError, ValueError):
    """An argument has a type the call does not accept.

    Also a ``ValueError``: vkdispatch 0.1.0 raised ``ValueError`` for most misuses, type errors
    included (Python control flow on a traced value among them), and code written for it
    catches those with ``except ValueError``.
    """


class InvalidShaderArgumentError(InvalidArgumentError, TypeError):
    """A shader was called with an argument of the wrong kind, a missing or an unknown one.

    Both a ``ValueError`` (what vkdispatch 0.1.0 raised) and a ``TypeError`` (what Python
    raises for bad call arguments).
    """


class IndexOutOfRangeError(VkDispatchError, IndexError, ValueError):
    """A queue, replica or device index does not exist.

    Also a ``ValueError``, which is what vkdispatch 0.1.0 raised for these cases.
    """


class InvalidStateError(VkDispatchError, RuntimeError):
    """The call is not allowed in the current state (e.g. switching backends after start)."""


class NativeError(VkDispatchError, RuntimeError):
    """The native runtime failed; the context stays usable unless the device was lost."""


class VulkanError(NativeError):
    """A Vulkan call failed. ``result`` holds the VkResult name, e.g. ``"VK_ERROR_UNKNOWN"``."""

    result: str = ""


class OutOfDeviceMemoryError(VulkanError, MemoryError):
    """Device or host memory ran out while allocating for Vulkan."""


class DeviceLostError(VulkanError):
    """The GPU was lost (driver reset or hang); work in flight is gone."""


class ValidationError(NativeError):
    """The Vulkan validation layer (debug mode) reported an error: a bug in vkdispatch."""


class DummyBackendError(NativeError):
    """A GPU operation was attempted with the codegen-only ``dummy`` backend."""


class BackendUnavailableError(VkDispatchError, ImportError):
    """A backend's native module or driver cannot be loaded."""

    def __init__(self, backend_name: str, message: str):
        super().__init__(f"Backend '{backend_name}' is unavailable: {message}")
        self.backend_name = backend_name


class VulkanUnavailableError(BackendUnavailableError, NativeError):
    """Vulkan cannot run: the loader (``libvulkan.so.1``) is missing, or it finds no driver or no
    device. The message says what to install.

    Raised by the first call that needs a device (``import vkdispatch`` works without Vulkan).
    Also a ``NativeError`` (a ``RuntimeError``), which is what these failures raised before.
    """

    def __init__(self, message: str):
        super().__init__("vulkan", message)


class ShaderBuildError(VkDispatchError, RuntimeError):
    """A generated shader failed to compile.

    Attributes:
        shader_source: the source that failed (with line numbers when printed).
        compiler_log: the compiler's messages.
    """

    def __init__(self, message: str, *, shader_source=None, compiler_log: str | None = None):
        super().__init__(message)
        self.shader_source = shader_source
        self.compiler_log = compiler_log


NATIVE_ERROR_CLASSES = {
    "runtime": NativeError,
    "closed": InvalidStateError,  # a native object used after close() (from another thread)
    "vulkan": VulkanError,
    "out_of_memory": OutOfDeviceMemoryError,
    "device_lost": DeviceLostError,
    "invalid_argument": InvalidArgumentError,
    "index_out_of_range": IndexOutOfRangeError,
    "validation": ValidationError,
    "unavailable": VulkanUnavailableError,
}
"""The class raised for each kind of native error (installed into the bridge at import)."""
