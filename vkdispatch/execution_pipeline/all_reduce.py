"""vd.all_reduce: every replica of a buffer (one per queue) receives the sum, product,
minimum or maximum over all replicas, element by element, beyond what vkdispatch 0.1.0 offers.

Where the elements are made of 32-bit words the devices combine them. With up to four replicas
on one device one kernel on the last queue reads every replica and writes the result into
each. Otherwise a running result passes from queue to queue (a small kernel on queue k folds
replica k-1's result into replica k, reading it where it is on one device; from another device
it is first copied through pinned host staging memory into a scratch buffer kept with the
buffer, in ``buffer.derived``), then the last queue's result is copied into every other
replica (see :mod:`vkdispatch.base.replicas`). Other types go through host memory (each replica
downloaded after the work submitted to its queue before the call, combined by numpy, the
result uploaded ahead of later work).
"""
from __future__ import annotations

import struct
import threading

import numpy as np

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer
from vkdispatch.base.compute_plan import ComputePlan, context_plan
from vkdispatch.base.grid_stride import LOCAL_SIZE, workgroups
from vkdispatch.base import replicas
from vkdispatch.base.replicas import ReplicaStep, check_live_buffer, copy_into_replica, \
    copy_replica, dispatch_on_replicas, run_or_record
from vkdispatch.dtypes import scalar_of
from vkdispatch.errors import InvalidArgumentError

__all__ = ["all_reduce"]

_OPS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}
_GLSL_OPS = {"sum": "a + b", "prod": "a * b", "min": "min(a, b)", "max": "max(a, b)"}
_COMPLEX_PRODUCT = "vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x)"
_WORDS = {dt.float32: "float", dt.int32: "int", dt.uint32: "uint"}  # scalar -> GLSL word
_COMPLEX = (dt.complex32, dt.complex64, dt.complex128)
_FUSED_MAX = 4  # replicas one kernel binds: the storage buffers every device lets a stage use
_KERNEL = """#version 450
layout(local_size_x = {local_size}) in;
{declarations}
layout(push_constant) uniform Range {{ uint count; }} range;
{word} combine({word} a, {word} b) {{ return {expression}; }}
void main() {{
    uint stride = gl_NumWorkGroups.x * {local_size}u;
    for (uint i = gl_GlobalInvocationID.x; i < range.count; i += stride) {{
        {word} result = r0[i];
{folds}
{stores}
    }}
}}
"""


def all_reduce(buffer: Buffer, op: str = "sum", graph=None) -> None:
    """Replaces every replica of ``buffer`` by the element-wise ``op`` ("sum", "prod", "min"
    or "max") over all replicas, computed in the buffer's type (integers wrap around as on the
    GPU) in replica order: ``((r0 op r1) op r2) ...``. Where every replica is on one device and
    the elements are made of float32, int32 or uint32 it returns at once (the queues' later work
    sees the result); across devices it returns once the copies through the host were made.
    With ``graph`` (a :class:`vd.CommandGraph`) it is recorded there instead, to run each time
    the graph is submitted (to every queue) after the calls recorded before it.

    Raises:
        ValueError: an unknown ``op``, or "min"/"max" of a complex buffer.
    """
    check_live_buffer(buffer)
    if op not in _OPS:
        raise InvalidArgumentError(f"op must be one of {', '.join(map(repr, _OPS))}, got {op!r}")
    if op in ("min", "max") and buffer.var_type in _COMPLEX:
        raise InvalidArgumentError(f"op={op!r}: complex values have no order")
    if buffer.context.queue_count == 1:
        return
    word = _device_word(buffer, op)
    if word is None:
        step = ReplicaStep("all_reduce", buffer, lambda: _all_reduce_on_host(buffer, op))
    else:
        step = ReplicaStep("all_reduce", buffer,
                           lambda: _all_reduce_on_device(buffer, op, word))
    run_or_record(step, graph)


def _device_word(buffer: Buffer, op: str) -> str | None:
    """The GLSL type the devices combine ``buffer`` in, or None where it goes through the host
    (other scalar types, a buffer no storage binding reaches)."""
    context = buffer.context
    if buffer.mem_size > min(info.max_storage_buffer_range for info in context.device_infos):
        return None
    scalar = scalar_of(buffer.var_type)
    if scalar not in _WORDS:
        return None
    return "vec2" if op == "prod" and buffer.var_type in _COMPLEX else _WORDS[scalar]


def _kernel(buffer: Buffer, op: str, word: str, replicas_bound: int) -> ComputePlan:
    """A kernel folding its bindings 0, 1, ... in order with ``op`` and storing the result into
    every one of them."""
    expression = _COMPLEX_PRODUCT if word == "vec2" else _GLSL_OPS[op]

    def source() -> str:
        return _KERNEL.format(
            local_size=LOCAL_SIZE, word=word, expression=expression,
            declarations="\n".join(f"layout(set = 0, binding = {k}) buffer R{k} "
                                   f"{{ {word} r{k}[]; }};" for k in range(replicas_bound)),
            folds="\n".join(f"        result = combine(result, r{k}[i]);"
                            for k in range(1, replicas_bound)),
            stores="\n".join(f"        r{k}[i] = result;" for k in range(replicas_bound)))

    return context_plan(buffer.context, f"vd_all_reduce_{op}_{word}_{replicas_bound}", source,
                        [1] * replicas_bound, 4)


_scratch_lock = threading.Lock()


def _scratch_of(buffer: Buffer) -> Buffer:
    """The buffer holding, next to replica k, the running result copied from another device.
    Kept with the buffer: allocating it per call cost more than the reduction on an H100."""
    with _scratch_lock:
        scratch = buffer.derived.get(_scratch_of)
        if scratch is None or scratch.destroyed:
            with buffer.context:
                scratch = buffer.derived[_scratch_of] = Buffer(buffer.shape, buffer.var_type)
        return scratch


def _all_reduce_on_device(buffer: Buffer, op: str, word: str) -> None:
    context = buffer.context
    queues = context.queue_count
    count = buffer.mem_size // (8 if word == "vec2" else 4)
    push_constants, groups = struct.pack("<I", count), workgroups(context, count)[0]
    last = queues - 1
    if queues <= _FUSED_MAX and all(replicas.copies_on_device(buffer, q, last)
                                    for q in range(last)):
        # One kernel on the last queue reads every replica and writes the result into each.
        dispatch_on_replicas(_kernel(buffer, op, word, queues), last,
                             [(buffer, q) for q in range(queues)], push_constants, groups)
        return
    plan = _kernel(buffer, op, word, 2)
    for queue in range(1, queues):
        if replicas.copies_on_device(buffer, queue - 1, queue):  # read where it is
            before = (buffer, queue - 1)
        else:
            scratch = _scratch_of(buffer)
            copy_into_replica(buffer, queue - 1, scratch, queue)
            before = (scratch, queue)
        dispatch_on_replicas(plan, queue, [before, (buffer, queue)], push_constants, groups)
    copy_replica(buffer, last)


def _all_reduce_on_host(buffer: Buffer, op: str) -> None:
    stacked = buffer.read()
    result = stacked[0].copy()
    for replica in stacked[1:]:
        _OPS[op](result, replica, out=result)
    buffer.write(result)
