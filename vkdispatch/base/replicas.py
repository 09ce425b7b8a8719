"""Copies between a buffer's replicas (one per queue), beyond what vkdispatch 0.1.0 offers.

Between replicas of one device a copy runs on the device: on the destination queue, after the
work submitted to the source queue before the call (the source queue's later work waits for
it). Across devices it streams through pinned host memory: the source is downloaded chunk by
chunk once its queue has finished the work submitted before the call, each chunk uploaded ahead
of the destination queue's later work while the next one downloads; no pageable copy of the
buffer is made. Where both devices import host memory the chunks are one allocation they both
copy to and from (no host copy at all); elsewhere each queue's staging chunks, copied between
by the host. The all-reduce built on these copies is
:mod:`vkdispatch.execution_pipeline.all_reduce`.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from vkdispatch.base.buffer import Buffer
from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.base.copy_kernel import (copy_plan, copy_push_constants, copy_workgroups,
                                         word_bytes)
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["copy_replica", "copies_on_device", "copy_into_replica", "check_live_buffer",
           "dispatch_on_replicas", "ReplicaStep", "run_or_record"]


@dataclasses.dataclass(frozen=True, eq=False)
class ReplicaStep:
    """A replica operation recorded in a graph (``graph=`` of :func:`copy_replica` and
    ``vd.all_reduce``): ``run`` performs it when the graph, submitted to every queue, reaches
    it. ``name`` says which operation, for errors."""

    name: str
    buffer: Buffer
    run: Callable[[], None]

    @property
    def handles(self) -> tuple:
        return (self.buffer,)


def run_or_record(step: ReplicaStep, graph) -> None:
    """Runs ``step`` now (``graph`` None) or records it at the end of ``graph``."""
    if graph is None:
        step.run()
        return
    record = getattr(graph, "record_replica_step", None)
    if record is None:
        raise InvalidTypeError(f"graph must be a vd.CommandGraph, got {type(graph).__name__}")
    if graph.context is not step.buffer.context:
        raise InvalidArgumentError("graph: it belongs to another context than the buffer")
    record(step)


def check_live_buffer(buffer: Buffer) -> None:
    """Raises naming ``buffer`` unless it is a live vd.Buffer."""
    if not isinstance(buffer, Buffer):
        raise InvalidTypeError(f"buffer must be a vd.Buffer, got {type(buffer).__name__}")
    if buffer.destroyed:
        raise buffer.unusable_error("buffer")


def copies_on_device(buffer: Buffer, src: int, dst: int) -> bool:
    """Whether replica ``src`` of ``buffer`` reaches replica ``dst`` without the host."""
    return buffer._native.copies_on_device(src, dst)


def copies_through_cuda(buffer: Buffer, src: int, dst: int) -> bool:
    """Whether replica ``src`` of ``buffer`` reaches replica ``dst`` on another GPU through
    CUDA's peer copy."""
    return buffer._native.copies_through_cuda(src, dst)


def copy_into_replica(source: Buffer, src: int, target: Buffer, dst: int) -> None:
    """Copies replica ``src`` of ``source`` into replica ``dst`` (of another queue) of
    ``target`` (as large or larger, of the same context): on the device where
    :func:`copies_on_device` (the copy kernel on queue ``dst`` where it serves, see
    :mod:`~vkdispatch.base.copy_kernel`), returning at once; else between two GPUs that reach
    each other through CUDA's peer copy (where the CUDA driver is present), returning once it is
    done; else through host staging memory, returning once the source was read."""
    if not copies_on_device(source, src, dst):
        if copies_through_cuda(source, src, dst):
            source._native.copy_replica_through_cuda(src, target._native, dst)
        else:
            source._native.copy_replica_through_host(src, target._native, dst)
        return
    size = source.mem_size
    word = word_bytes(source.context, (size, target.mem_size), (size,))
    if word is None:
        source._native.copy_replica_on_device(src, target._native, dst)
        return
    dispatch_on_replicas(copy_plan(source.context, word), dst, [(target, dst), (source, src)],
                         copy_push_constants(word, 0, 0, size),
                         copy_workgroups(source.context, word, size)[0])


def dispatch_on_replicas(plan: ComputePlan, queue: int, bindings: list[tuple[Buffer, int]],
                         push_constants: bytes, groups_x: int) -> None:
    """Runs ``plan`` once on ``queue`` with binding i bound to replica ``bindings[i][1]`` of
    buffer ``bindings[i][0]`` (replicas of any queues of its device): after the work
    submitted before the call to those queues, ahead of their later work.
    Returns at once."""
    plan._native.dispatch_on_replicas(queue, [(buffer._native, replica)
                                              for buffer, replica in bindings],
                                      push_constants, groups_x)


def copy_replica(buffer: Buffer, src: int = 0, dst: int | list[int] | None = None,
                 graph=None) -> None:
    """Copies replica ``src`` of ``buffer`` into replica ``dst`` (an index, a list of them, or
    None: every other replica), bit for bit: on the device where both replicas' queues are on
    one device (the call then returns at once), between two NVIDIA GPUs that reach each other
    through CUDA's peer copy where the CUDA driver is present (returning once it is done), else
    through pinned host staging memory (the call returns once the source was read). With
    ``graph`` (a :class:`vd.CommandGraph`), the copy is recorded there instead, to run each
    time the graph is submitted (to every queue) after the calls recorded before it.

    Raises:
        IndexError: a queue index is out of range. ValueError: ``dst`` holds ``src``.
    """
    check_live_buffer(buffer)
    context = buffer.context
    src = context.check_queue_index(src, "src")
    targets = [q for q in range(context.queue_count) if q != src] if dst is None else \
        [dst] if isinstance(dst, int) else list(dst)
    targets = [context.check_queue_index(q, "dst") for q in targets]
    if src in targets:
        raise InvalidArgumentError(f"dst holds the source replica {src}; a replica is not "
                                   "copied onto itself")
    if not targets:
        return

    def copy() -> None:
        for queue in targets:
            copy_into_replica(buffer, src, buffer, queue)

    run_or_record(ReplicaStep("copy_replica", buffer, copy), graph)
