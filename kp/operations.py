"""The operations a ``kp.Sequence`` records: syncs between host and device, copies, dispatches.

Each records its commands when it is recorded. Unlike Kompute's, a sequence orders them with
barriers wherever a later command uses memory an earlier one wrote, so several dispatches on one
buffer in one sequence see each other's results.
"""
from __future__ import annotations

from kp import arguments, constants
from kp.algorithm import Algorithm
from kp.native import native as _native


class OpBase:
    """Base of the operations."""

    __module__ = "kp"

    def __init__(self, *args, **kwargs):
        raise TypeError("kp.OpBase: No constructor defined!")

    def _set(self, native, *keep):
        self._native = native
        self._keep = keep  # the Python objects it uses (the native op holds the native ones)


def _natives(call: str, mem_objects) -> list:
    return [m._native for m in arguments.memory_list(call, "mem_objects", mem_objects)]


def _algorithm(call: str, algorithm) -> Algorithm:
    if not isinstance(algorithm, Algorithm):
        raise TypeError(f"{call}: algorithm must be a kp.Algorithm, got "
                        f"{arguments.type_name(algorithm)}")
    return algorithm


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


# Kompute 0.8-0.9's names.
OpTensorSyncDevice = OpSyncDevice
OpTensorSyncLocal = OpSyncLocal
OpTensorCopy = OpCopy
