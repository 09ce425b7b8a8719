"""Moving data between a buffer's replicas (one per queue), beyond what vkdispatch 0.1.0 offers:
a copy from one replica to others, and an all-reduce (every replica receives the sum, product,
minimum or maximum over all replicas, element by element).

A copy between replicas of one device and queue family runs on the device (after the work
submitted to the source queue before the call; the source queue's later work waits for it);
other copies, and the all-reduce, go through host memory: the sources are downloaded once
their queues have finished the work submitted before the call, and the result is uploaded
ahead of each queue's later work.
"""
from __future__ import annotations

import numpy as np

from vkdispatch.base.buffer import Buffer
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["copy_replica", "all_reduce"]

_OPS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}


def _check_buffer(buffer: Buffer) -> None:
    if not isinstance(buffer, Buffer):
        raise InvalidTypeError(f"buffer must be a vd.Buffer, got {type(buffer).__name__}")
    if buffer.destroyed:
        raise buffer.unusable_error("buffer")


def copy_replica(buffer: Buffer, src: int = 0, dst: int | list[int] | None = None) -> None:
    """Copies replica ``src`` of ``buffer`` into replica ``dst`` (an index, a list of them, or
    None: every other replica), bit for bit: on the device where both replicas' queues share a
    device and queue family (the call then returns at once), else through host memory.

    Raises:
        IndexError: a queue index is out of range. ValueError: ``dst`` holds ``src``.
    """
    _check_buffer(buffer)
    context = buffer.context
    src = context.check_queue_index(src, "src")
    targets = [q for q in range(context.queue_count) if q != src] if dst is None else \
        [dst] if isinstance(dst, int) else list(dst)
    targets = [context.check_queue_index(q, "dst") for q in targets]
    if src in targets:
        raise InvalidArgumentError(f"dst holds the source replica {src}; a replica is not "
                                   "copied onto itself")
    native = buffer._native
    staged = [q for q in targets if not native.copies_on_device(src, q)]
    for queue in targets:
        if queue not in staged:
            native.copy_replica_on_device(src, queue)
    if staged:
        raw = np.empty(buffer.mem_size, dtype=np.uint8)
        native.read_into(raw, 0, src)
        for queue in staged:
            native.write(raw, 0, queue)


def all_reduce(buffer: Buffer, op: str = "sum") -> None:
    """Replaces every replica of ``buffer`` by the element-wise ``op`` ("sum", "prod", "min"
    or "max") over all replicas, computed in the buffer's type (integers wrap around as on the
    GPU) in replica order.

    Raises:
        ValueError: an unknown ``op``, or "min"/"max" of a complex buffer.
    """
    _check_buffer(buffer)
    if op not in _OPS:
        raise InvalidArgumentError(f"op must be one of {', '.join(map(repr, _OPS))}, got {op!r}")
    stacked = buffer.read()
    if op in ("min", "max") and np.iscomplexobj(stacked):
        raise InvalidArgumentError(f"op={op!r}: complex values have no order")
    result = stacked[0].copy()
    for replica in stacked[1:]:
        _OPS[op](result, replica, out=result)
    buffer.write(result)
