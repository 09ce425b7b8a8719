"""DLPack, the protocol array libraries share memory through: buffers as DLPack producers
(``numpy.from_dlpack(buffer)``, ``torch.from_dlpack(buffer)``, ``cupy.from_dlpack(buffer)``)
and ``vd.from_dlpack``.

A buffer exports a view of replica 0 without copying:

* host memory where the host can map the buffer (CPU devices such as lavapipe, integrated
  GPUs): numpy and torch CPU tensors;
* CUDA device memory on an NVIDIA GPU whose driver exports buffer memory
  (VK_KHR_external_memory_fd) to the CUDA device of the same UUID (the CUDA driver is loaded
  at run time): torch and cupy CUDA tensors.

Elsewhere ``__dlpack_device__`` says Vulkan and exporting raises BufferError naming why (ask
for ``copy=True``, or read the buffer).
"""
from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from vkdispatch import dtypes as dt

__all__ = ["KDL_CPU", "KDL_CUDA", "KDL_VULKAN", "dlpack_device", "export", "from_dlpack"]

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_VULKAN = 1, 2, 3, 7  # DLPack's DLDeviceType values
_DEVICE_NAMES = {KDL_CPU: "CPU", KDL_CUDA: "CUDA", KDL_CUDA_HOST: "CUDA host", 4: "OpenCL",
                 KDL_VULKAN: "Vulkan", 8: "Metal", 10: "ROCm", 13: "CUDA managed",
                 14: "oneAPI"}
# DLPack's DLDataTypeCode of each numpy kind
_TYPE_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_VIEWED_QUEUE = 0  # a view shows the first queue's replica, as np.asarray(buffer) does
# (device type, address) of every view exported -> its buffer: vd.from_dlpack of a view
# returns the buffer itself instead of copying it.
_EXPORTED: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


def _native(buffer):
    return buffer.context._module


def _cuda_device(buffer) -> tuple[int, str]:
    """``(CUDA ordinal, "")`` of a CUDA view of the buffer, or ``(-1, why not)``."""
    return _native(buffer).cuda_device_of(buffer._native, _VIEWED_QUEUE)


def dlpack_device(buffer) -> tuple[int, int]:
    """``(device type, device id)`` of ``buffer``'s view: (KDL_CPU, 0) when its memory is
    host-visible, (KDL_CUDA, ordinal) when CUDA can map it, else (KDL_VULKAN, the index of the
    Vulkan device)."""
    buffer._check_alive()
    if buffer._native.host_visible(_VIEWED_QUEUE):
        return (KDL_CPU, 0)
    ordinal, _why = _cuda_device(buffer)
    if ordinal >= 0:
        return (KDL_CUDA, ordinal)
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
    if device[0] == KDL_VULKAN:
        raise BufferError(f"a DLPack view of this buffer needs host-visible memory or a CUDA "
                          f"device that can map it, and {_cuda_device(buffer)[1]}; ask for a "
                          f"copy (copy=True, or buffer.read(0))")
    if device[0] == KDL_CPU and stream is not None:
        raise BufferError(f"stream: a CPU view takes no stream (DLPack: None), got {stream!r}")
    code, bits = _type_code(buffer)
    versioned = max_version is not None and int(max_version[0]) >= 1
    shape = tuple(int(axis) for axis in buffer._layout()[1])
    if device[0] == KDL_CPU:
        capsule = _native(buffer).host_view_capsule(buffer._native, _VIEWED_QUEUE, shape, code,
                                                    bits, versioned)
    else:
        capsule = _native(buffer).cuda_view_capsule(buffer._native, _VIEWED_QUEUE, shape, code,
                                                    bits, versioned, _cuda_stream(stream))
    if capsule is None:  # its memory stopped being host-visible: cannot happen after the check
        raise BufferError("this buffer's memory is not host-visible")
    _EXPORTED[(device[0], _native(buffer).capsule_data_address(capsule))] = buffer
    return capsule


def _cuda_stream(stream: Any) -> int:
    """The CUstream handle of DLPack's ``stream`` argument for a CUDA view: None is the legacy
    default stream (1), -1 asks for no ordering."""
    if stream is None:
        return 1
    if isinstance(stream, bool) or not isinstance(stream, int) or stream < -1:
        raise BufferError(f"stream: expected None, -1 or a CUDA stream handle (an int >= 0), "
                          f"got {stream!r}")
    return stream


def _exported_buffer(kind: int, address: int, shape: tuple, dtype: np.dtype):
    """The live buffer whose view is exactly that memory, shape and type, or None."""
    buffer = _EXPORTED.get((kind, address))
    if buffer is None or buffer.destroyed or buffer.var_type is dt.complex32:
        return None
    host, host_shape = buffer._layout()
    return buffer if host == dtype and tuple(host_shape) == tuple(shape) else None


def from_dlpack(x: Any, copy: bool | None = None):
    """A buffer with the contents of ``x``, any object with ``__dlpack__`` (a numpy array,
    a torch or cupy tensor): a vkdispatch buffer, or a whole view that a buffer exported, is
    that buffer itself (``copy=True``: a new buffer holding a copy); host arrays are copied to
    the device, as ``vd.asbuffer`` does;
    contiguous CUDA tensors on the GPU of the current context are copied on the device (one
    device-to-device copy, no host round trip). The CUDA work that produced ``x`` must be
    complete or on its current stream (``torch.cuda.synchronize()`` otherwise).

    Raises:
        TypeError: ``x`` is not a DLPack producer.
        BufferError: ``x`` lives where this context cannot reach (another GPU, a device
            without CUDA views), or is not contiguous.
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
    device = tuple(int(value) for value in x.__dlpack_device__())
    if device[0] in (KDL_CPU, KDL_CUDA_HOST):
        array = np.from_dlpack(x)
        own = _exported_buffer(KDL_CPU, array.__array_interface__["data"][0], array.shape,
                               array.dtype)
        return own if own is not None and copy is not True else asbuffer(array)
    if device[0] == KDL_CUDA:
        own = None
        if hasattr(x, "__cuda_array_interface__") and copy is not True:
            pointer, contiguous = _cuda_pointer(x)
            own = _exported_buffer(KDL_CUDA, pointer, tuple(x.shape), _numpy_dtype(x.dtype))
        return own if own is not None and contiguous else _from_cuda(x, device[1])
    raise BufferError(f"x lives on {_device_name(device)}, whose memory vkdispatch cannot "
                      f"import; copy it to the host first")


def _from_cuda(x: Any, ordinal: int):
    """A new buffer holding a copy of the CUDA tensor ``x``, made on the device."""
    from vkdispatch.base.buffer import Buffer
    from vkdispatch.base.replicas import copy_replica

    shape = tuple(int(axis) for axis in x.shape)
    buffer = Buffer(shape or (1,), dt.from_numpy_dtype(_numpy_dtype(x.dtype)))
    try:
        target, why = _cuda_device(buffer)
        if target != ordinal:
            raise BufferError(f"x lives on CUDA {ordinal}, and this context's GPU is "
                              f"{'CUDA ' + str(target) if target >= 0 else 'not reachable: ' + why}"
                              f"; copy it to the host first (for torch x.cpu(), for cupy "
                              f"x.get())")
        pointer, contiguous = _cuda_pointer(x)
        if not contiguous:
            raise BufferError("x is not contiguous; pass x.contiguous() (torch) or "
                              "cupy.ascontiguousarray(x)")
        if buffer.mem_size:
            _native(buffer).copy_from_cuda(buffer._native, _VIEWED_QUEUE, pointer,
                                           buffer.mem_size)
        if buffer.context.queue_count > 1:  # the other replicas
            copy_replica(buffer, src=_VIEWED_QUEUE)
    except BaseException:
        buffer.destroy()
        raise
    return buffer


def _numpy_dtype(dtype: Any) -> np.dtype:
    """numpy's dtype of a torch or cupy dtype."""
    return np.dtype(str(dtype).replace("torch.", ""))


def _cuda_pointer(x: Any) -> tuple[int, bool]:
    """``(device address, C-contiguous)`` of a CUDA tensor, from its CUDA array interface."""
    interface = getattr(x, "__cuda_array_interface__", None)
    if interface is None:
        raise BufferError(f"x: a {type(x).__name__} on CUDA without __cuda_array_interface__ "
                          f"(its address); copy it to the host first")
    pointer = int(interface["data"][0])
    strides = interface.get("strides")
    if strides is None:
        return pointer, True
    itemsize = np.dtype(interface["typestr"]).itemsize
    expected, step = [], itemsize
    for axis in reversed(interface["shape"]):
        expected.append(step)
        step *= int(axis)
    return pointer, tuple(strides) == tuple(reversed(expected))
