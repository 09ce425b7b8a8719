"""DLPack, the protocol array libraries share memory through: buffers as DLPack producers
(``numpy.from_dlpack(buffer)``, ``torch.from_dlpack(buffer)``) and ``vd.from_dlpack``.

A buffer whose memory the host can map (CPU devices such as lavapipe, integrated GPUs) exports
a CPU view of replica 0 without copying: the consumer's array *is* the buffer's memory.
Device-local memory of a discrete GPU has no host address; its ``__dlpack_device__`` says
Vulkan, and exporting raises BufferError (ask for ``copy=True``, or read the buffer).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from vkdispatch.base import dtype as dt

__all__ = ["KDL_CPU", "KDL_CUDA", "KDL_VULKAN", "dlpack_device", "export", "from_dlpack"]

KDL_CPU, KDL_CUDA, KDL_VULKAN = 1, 2, 7  # DLPack's DLDeviceType values
_DEVICE_NAMES = {KDL_CPU: "CPU", KDL_CUDA: "CUDA", 3: "CUDA host", 4: "OpenCL",
                 KDL_VULKAN: "Vulkan", 8: "Metal", 10: "ROCm", 13: "CUDA managed",
                 14: "oneAPI"}
# DLPack's DLDataTypeCode of each numpy kind
_TYPE_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_VIEWED_QUEUE = 0  # a view shows the first queue's replica, as np.asarray(buffer) does


def dlpack_device(buffer) -> tuple[int, int]:
    """``(device type, device id)`` of ``buffer``'s view: (KDL_CPU, 0) when its memory is
    host-visible, else (KDL_VULKAN, index of the Vulkan device)."""
    buffer._check_alive()
    if buffer._native.host_visible(_VIEWED_QUEUE):
        return (KDL_CPU, 0)
    return (KDL_VULKAN, buffer.context.device_ids[0])


def _device_name(device: Any) -> str:
    try:
        kind, index = (int(value) for value in device)
    except (TypeError, ValueError):
        return repr(device)
    return f"{_DEVICE_NAMES.get(kind, f'device type {kind}')} {index}"


def _type_code(buffer) -> tuple[int, int]:
    if buffer.var_type is dt.complex32:
        return _TYPE_CODES["c"], 32
    host = buffer._layout()[0]
    return _TYPE_CODES[host.kind], host.itemsize * 8


def export(buffer, stream: Any = None, max_version: tuple | None = None,
           dl_device: tuple | None = None, copy: bool | None = None):
    """``buffer.__dlpack__``: a capsule viewing replica 0 once the work submitted on it so far
    has completed (``copy=True``: a capsule of a host copy, as ``read(0)`` returns)."""
    device = dlpack_device(buffer)
    host_copy = copy is True or (dl_device is not None and copy is not False
                                 and tuple(dl_device) == (KDL_CPU, 0) != device)
    if dl_device is not None and tuple(dl_device) != device and not host_copy:
        raise BufferError(f"dl_device: this buffer's memory is on {_device_name(device)}, "
                          f"got {_device_name(dl_device)} (copy=False forbids moving it)")
    if host_copy:
        array = buffer.read(_VIEWED_QUEUE)
        return array.__dlpack__(max_version=max_version) if max_version else array.__dlpack__()
    if device[0] != KDL_CPU:
        name = buffer.context.device_infos[0].device_name
        raise BufferError(f"a DLPack view of this buffer needs host-visible memory, and "
                          f"{name} keeps buffers in device-local memory; ask for a copy "
                          f"(copy=True, or buffer.read(0))")
    if stream is not None:
        raise BufferError(f"stream: a CPU view takes no stream (DLPack: None), got {stream!r}")
    code, bits = _type_code(buffer)
    versioned = max_version is not None and int(max_version[0]) >= 1
    shape = tuple(int(axis) for axis in buffer._layout()[1])
    capsule = buffer._native.host_view_capsule(_VIEWED_QUEUE, shape, code, bits, versioned)
    if capsule is None:  # its memory stopped being host-visible: cannot happen after the check
        raise BufferError("this buffer's memory is not host-visible")
    return capsule


def from_dlpack(x: Any, copy: bool | None = None):
    """A buffer with the contents of ``x``, any object with ``__dlpack__`` (a numpy array,
    a torch or cupy tensor): a vkdispatch buffer is returned as it is (``copy=True``: a new
    buffer holding a copy); host arrays are copied to the device, as ``vd.asbuffer`` does.

    Raises:
        TypeError: ``x`` is not a DLPack producer.
        BufferError: ``x`` lives on a device whose memory this build cannot reach (a CUDA
            tensor: move it to the host first, e.g. ``x.cpu()``).
    """
    from vkdispatch.base.buffer import Buffer, asbuffer

    if isinstance(x, Buffer):
        if copy is not True:
            return x
        x._check_alive()
        return asbuffer(x.read(_VIEWED_QUEUE))
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise TypeError(f"x: expected an object with __dlpack__ and __dlpack_device__ "
                        f"(numpy, torch, cupy arrays), got {type(x).__name__}")
    device = tuple(x.__dlpack_device__())
    if int(device[0]) not in (KDL_CPU, 3):  # host memory, pageable or pinned
        raise BufferError(f"x lives on {_device_name(device)}, whose memory vkdispatch cannot "
                          f"import; copy it to the host first (for torch x.cpu(), for cupy "
                          f"x.get())")
    return asbuffer(np.from_dlpack(x))
