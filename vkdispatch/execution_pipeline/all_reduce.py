"""vd.all_reduce: every replica of a buffer (one per queue) receives the sum, product,
minimum or maximum over all replicas, element by element, beyond what vkdispatch 0.1.0 offers.

Where the elements are made of 32-bit words the devices combine them: a running result passes
from queue to queue (replica k-1's result copied next to replica k, combined there by a small
kernel), then the last queue's result is copied into every other replica. The copies run on
the device between queues of one device, and through pinned host staging memory between
devices (see :mod:`vkdispatch.base.replicas`). The scratch buffer and the recorded kernel stay
with the buffer (in ``buffer.derived``) for its next all-reduce: one buffer's worth of device
memory per replica until it is destroyed or collected. Other types go through host memory
(each replica downloaded after the work submitted to its queue before the call, combined by
numpy, the result uploaded ahead of later work).
"""
from __future__ import annotations

import struct
import threading

import numpy as np

from vkdispatch.base import dtype as dt
from vkdispatch.base.buffer import Buffer
from vkdispatch.base.compute_plan import ComputePlan, context_plan
from vkdispatch.base.replicas import ReplicaStep, check_live_buffer, copy_into_replica, \
    copy_replica, run_or_record
from vkdispatch.codegen.coercion import scalar_of
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.execution_pipeline.command_graph import CommandGraph
from vkdispatch.execution_pipeline.grid_stride import LOCAL_SIZE, workgroups

__all__ = ["all_reduce"]

_OPS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}
_GLSL_OPS = {"sum": "a + b", "prod": "a * b", "min": "min(a, b)", "max": "max(a, b)"}
_COMPLEX_PRODUCT = "vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x)"
_WORDS = {dt.float32: "float", dt.int32: "int", dt.uint32: "uint"}  # scalar -> GLSL word
_COMPLEX = (dt.complex32, dt.complex64, dt.complex128)
_KERNEL = """#version 450
layout(local_size_x = {local_size}) in;
layout(set = 0, binding = 0) buffer Acc {{ {word} acc[]; }};
layout(set = 0, binding = 1) readonly buffer Before {{ {word} before[]; }};
layout(push_constant) uniform Range {{ uint count; }} range;
{word} combine({word} a, {word} b) {{ return {expression}; }}
void main() {{
    uint stride = gl_NumWorkGroups.x * {local_size}u;
    for (uint i = gl_GlobalInvocationID.x; i < range.count; i += stride)
        acc[i] = combine(before[i], acc[i]);
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


def _kernel(buffer: Buffer, op: str, word: str) -> ComputePlan:
    expression = _COMPLEX_PRODUCT if word == "vec2" else _GLSL_OPS[op]
    return context_plan(buffer.context, f"vd_all_reduce_{op}_{word}",
                        lambda: _KERNEL.format(local_size=LOCAL_SIZE, word=word,
                                               expression=expression), [1, 1], 4)


class _DeviceReduction:
    """What the device all-reduce of one buffer reuses from call to call: the scratch buffer
    holding the running result next to replica k, and a recorded graph per op."""

    def __init__(self, buffer: Buffer) -> None:
        with buffer.context:
            self.before = Buffer(buffer.shape, buffer.var_type)
        self.graphs: dict[str, CommandGraph] = {}

    def usable(self) -> bool:
        return not self.before.destroyed and all(not g.destroyed for g in self.graphs.values())

    def graph(self, buffer: Buffer, op: str, word: str) -> CommandGraph:
        graph = self.graphs.get(op)
        if graph is None:
            context = buffer.context
            count = buffer.mem_size // (8 if word == "vec2" else 4)
            with context:
                graph = self.graphs[op] = CommandGraph()
            graph.record_dispatch(_kernel(buffer, op, word), None, workgroups(context, count),
                                  (buffer, self.before), ((0, True, True), (1, True, False)),
                                  b"", struct.pack("<I", count))
        return graph


_reductions_lock = threading.Lock()


def _reduction_of(buffer: Buffer) -> _DeviceReduction:
    # Kept with the buffer (one scratch buffer each): allocating it per call cost more than
    # the reduction itself on an H100.
    with _reductions_lock:
        reduction = buffer.derived.get(_DeviceReduction)
        if reduction is None or not reduction.usable():
            reduction = buffer.derived[_DeviceReduction] = _DeviceReduction(buffer)
        return reduction


def _all_reduce_on_device(buffer: Buffer, op: str, word: str) -> None:
    reduction = _reduction_of(buffer)
    graph = reduction.graph(buffer, op, word)
    queues = buffer.context.queue_count
    for queue in range(1, queues):
        copy_into_replica(buffer, queue - 1, reduction.before, queue)
        graph.submit(queue_index=queue)
    copy_replica(buffer, queues - 1)


def _all_reduce_on_host(buffer: Buffer, op: str) -> None:
    stacked = buffer.read()
    result = stacked[0].copy()
    for replica in stacked[1:]:
        _OPS[op](result, replica, out=result)
    buffer.write(result)
