"""The operations a ``kp.Sequence`` records: syncs between host and device, copies, dispatches.

Each records its commands when it is recorded. Unlike Kompute's, a sequence orders them with
barriers wherever a later command uses memory an earlier one wrote, so several dispatches on one
buffer in one sequence see each other's results.
"""
from __future__ import annotations

import numpy as np

from vkdispatch.errors import InvalidArgumentError

from kp import arguments, constants
from kp.algorithm import Algorithm
from kp.memory import Memory
from kp.native import native as _native


class OpBase:
    """Base of the operations."""

    __module__ = "kp"

    def __init__(self, *args, **kwargs):
        raise TypeError("kp.OpBase: No constructor defined!")

    def _set(self, native, *keep):
        self._native = native
        self._keep = keep  # the Python objects it uses (the native op holds the native ones)


def _natives(call: str, mem_objects, name: str = "mem_objects") -> list:
    return [m._native for m in arguments.memory_list(call, name, mem_objects)]


def _algorithm(call: str, algorithm) -> Algorithm:
    return arguments.instance(algorithm, Algorithm, f"{call}: algorithm must be a kp.Algorithm")


class OpSyncDevice(OpBase):
    """Copies the host view of each ``device`` memory object to the device."""

    def __init__(self, mem_objects, /):
        self._set(_native.kp_sync_device(_natives("OpSyncDevice", mem_objects)), mem_objects)


class OpSyncLocal(OpBase):
    """Copies each ``device`` memory object from the device to its host view."""

    def __init__(self, mem_objects, /):
        self._set(_native.kp_sync_local(_natives("OpSyncLocal", mem_objects)), mem_objects)


class OpCopy(OpBase):
    """Copies the first memory object into the others on the device, then (after the run) also
    their host views, so ``data()`` of a destination equals the source's host view."""

    def __init__(self, mem_objects, /):
        self._set(_native.kp_copy(_natives("OpCopy", mem_objects)), mem_objects)


class OpAlgoDispatch(OpBase):
    """Dispatches an algorithm. ``push_consts`` given here replace the algorithm's (later
    dispatches without values reuse them); they are captured when the operation is recorded."""

    def __init__(self, algorithm, push_consts=()):
        algorithm = _algorithm("OpAlgoDispatch", algorithm)
        (push,) = constants.typed("OpAlgoDispatch", push_consts=push_consts)
        self._set(_native.kp_algo_dispatch(algorithm._native, *push.native_args), algorithm)


class OpMult(OpAlgoDispatch):
    """``out = lhs * rhs`` on three float tensors: rebuilds ``algorithm`` with a built-in
    multiply shader, then dispatches it."""

    def __init__(self, mem_objects, algorithm, /):
        natives = _natives("OpMult", mem_objects)
        algorithm = _algorithm("OpMult", algorithm)
        self._set(_native.kp_mult(natives, algorithm._native), mem_objects, algorithm)
        algorithm._rebuilt(list(mem_objects), [])  # the multiply shader has no constants


class OpFFT(OpBase):
    """VkFFT's complex-to-complex transform, in place, of a tensor or of each of a list of
    tensors. A float32 tensor holds complex64 values and a float64 tensor complex128 ones, as
    (real, imaginary) pairs: ``tensor.data().view(np.complex64)`` reads them.

    ``shape`` is the complex array's shape (an int for one axis; the last axis contiguous) and
    ``axes`` the transformed axes (default: all; negative ones count from the end), so a tensor
    ends up as ``np.fft.fftn(x.reshape(shape), axes=axes)``, or ``np.fft.ifftn`` (which divides
    by the product of the transformed lengths) when ``inverse``. The axes before the first
    transformed one are batches: ``shape=(count, n), axes=[-1]`` transforms ``count`` lines of
    ``n``. VkFFT takes at most three axes of length > 1 from the first transformed one on.

    The plan is built here (VkFFT compiles its kernels: up to a second) and kept by the manager,
    by shape, axes and precision, as is its binding to each tensor, so more ``OpFFT`` operations
    of that shape, or on that tensor, build nothing again. A tensor of another size than the
    shape needs, of another data type, destroyed or an image, and a shape or axes VkFFT cannot
    plan raise ``ValueError`` naming the argument.
    """

    def __init__(self, tensors, shape, inverse=False, axes=None):
        call = "OpFFT"
        if isinstance(tensors, Memory):
            tensors = [tensors]
        natives = _natives(call, tensors, "tensors")
        if hasattr(shape, "__index__"):
            shape = [shape]
        shape = arguments.uint32_list(call, "shape", shape)
        if not isinstance(inverse, (bool, np.bool_)):
            raise TypeError(f"{call}: inverse must be a bool, got {arguments.type_name(inverse)} "
                            f"{inverse!r}")
        self._set(_native.kp_fft(natives, shape, bool(inverse), _fft_axes(call, axes)), tensors)


def _fft_axes(call: str, axes) -> list[int]:
    """The axes as the native call takes them: an empty list for every axis (None)."""
    if axes is None:
        return []
    if hasattr(axes, "__index__"):
        axes = [axes]
    axes = arguments.int32_list(call, "axes", axes)
    if not axes:
        raise InvalidArgumentError(f"Kompute {call}: axes: at least one axis, got none (None "
                                   "transforms every axis)")
    return axes


# Kompute 0.8-0.9's names.
OpTensorSyncDevice = OpSyncDevice
OpTensorSyncLocal = OpSyncLocal
OpTensorCopy = OpCopy
