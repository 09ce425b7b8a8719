"""The operations of Kompute 0.4-0.6's Python API, under the names its methods used
(``mgr.eval_<name>``, ``mgr.eval_async_<name>_def``, ``seq.record_<name>``...), as the ``kp``
operations that do the same.

Each builder takes the calling method's name (for error messages), the manager, the tensors and
the operation's own arguments (``shader``, ``workgroup``, ``constants`` for the algo_* ones),
checks them all, and returns the operations to record, in order.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

from vkdispatch.errors import InvalidArgumentError

from kp import arguments
from kp.legacy import shaders
from kp.operations import OpAlgoDispatch, OpCopy, OpMult, OpSyncDevice, OpSyncLocal

DEFAULT_WORKGROUP = (0, 0, 0)  # x = 0: one workgroup per element of the first tensor


class Operation(NamedTuple):
    build: Callable
    summary: str  # what it does, for the docstrings of the methods named after it


def _tensors(call: str, tensors) -> list:
    return arguments.memory_list(call, "tensors", tensors)


def _memory_operation(op_class) -> Callable:
    def build(call, manager, tensors):
        return [op_class(_tensors(call, tensors))]
    return build


def _lhs_rhs_out(call: str, tensors) -> list:
    tensors = _tensors(call, tensors)
    if len(tensors) != 3:
        raise InvalidArgumentError(f"{call}: tensors must be [lhs, rhs, out], 3 tensors, got "
                                   f"{len(tensors)}")
    return tensors


def _mult(call, manager, tensors):
    tensors = _lhs_rhs_out(call, tensors)
    algorithm = manager.algorithm(tensors, b"")  # OpMult builds it with its multiply shader
    # Kompute's OpMult (an OpAlgoLhsRhsOut) also brought the output back to the host.
    return [OpMult(tensors, algorithm), OpSyncLocal(tensors[2:])]


def _dispatch(load: Callable, lhs_rhs_out: bool = False) -> Callable:
    """A builder dispatching the shader that ``load`` makes SPIR-V of; with ``lhs_rhs_out``,
    over exactly ``[lhs, rhs, out]``, then downloading ``out`` (Kompute's OpAlgoLhsRhsOut)."""
    def build(call, manager, tensors, shader, workgroup=DEFAULT_WORKGROUP, constants=()):
        tensors = (_lhs_rhs_out if lhs_rhs_out else _tensors)(call, tensors)
        spirv = load(call, "shader", shader)
        algorithm = manager.algorithm(tensors, spirv, workgroup, spec_consts=constants)
        return [OpAlgoDispatch(algorithm)] + ([OpSyncLocal(tensors[2:])] if lhs_rhs_out else [])
    return build


def _load_any(call: str, name: str, shader) -> bytes:
    loader = shaders.from_data if isinstance(shader, (bytes, bytearray)) else shaders.from_source
    return loader(call, name, shader)


_SHADER_ARGUMENTS = ("``workgroup`` counts workgroups (x = 0: one per element of the first "
                     "tensor); ``constants`` are float32 specialization constants")

OPERATIONS = {
    "tensor_create": Operation(_memory_operation(OpSyncDevice), (
        "uploads the tensors' host data to the device (Kompute 0.4-0.5 created the tensors' "
        "memory here; a kp.Manager made them already)")),
    "tensor_copy": Operation(_memory_operation(OpCopy), (
        "copies ``tensors[0]`` into the other tensors, on the device and in their host data")),
    "tensor_sync_device": Operation(_memory_operation(OpSyncDevice), (
        "uploads the tensors' host data to the device")),
    "tensor_sync_local": Operation(_memory_operation(OpSyncLocal), (
        "downloads the tensors' device data to their host data (``data()``)")),
    "algo_mult": Operation(_mult, (
        "multiplies ``[lhs, rhs, out]`` (float tensors) elementwise, ``out = lhs * rhs``, on the "
        "device, then downloads ``out``")),
    "algo_data": Operation(_dispatch(shaders.from_data), (
        "dispatches ``shader`` (SPIR-V bytes, or GLSL source as bytes or a str) over "
        "the tensors (binding i = ``tensors[i]``); " + _SHADER_ARGUMENTS)),
    "algo_str": Operation(_dispatch(shaders.from_source), (
        "dispatches the GLSL ``shader`` (a str or a list of its characters) over the tensors "
        "(binding i = ``tensors[i]``); " + _SHADER_ARGUMENTS)),
    "algo_file": Operation(_dispatch(shaders.from_file), (
        "dispatches the shader in the file ``shader`` names (SPIR-V or GLSL source) over the "
        "tensors (binding i = ``tensors[i]``); " + _SHADER_ARGUMENTS)),
    "algo_lro": Operation(_dispatch(_load_any, lhs_rhs_out=True), (
        "dispatches ``shader`` (SPIR-V or GLSL, as for algo_data and algo_str) over ``[lhs, "
        "rhs, out]``, then downloads ``out``; " + _SHADER_ARGUMENTS + ". Kompute's binding "
        "took no shader here (so it could not run); here it is required")),
}
