"""vd.copy: element ranges between buffers, immediately or recorded into a graph."""
from __future__ import annotations

from typing import Any

from vkdispatch.base.buffer import Buffer
from vkdispatch.base.commands import BufferCopy
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.execution_pipeline.command_graph import CommandGraph
from vkdispatch.execution_pipeline.graphs import global_graph

__all__ = ["copy"]


def _count_argument(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{name} must be an int (elements), got {value!r}")
    if value < 0:
        raise InvalidArgumentError(f"{name} must be >= 0 elements, got {value}")
    return value


def _check_range(buffer: Buffer, offset: int, count: int, name: str, offset_name: str) -> None:
    if offset + count > buffer.size:
        raise InvalidArgumentError(f"{name}: {count} elements from {offset_name}={offset} do not "
                                   f"fit in {name} of {buffer.size} elements (shape "
                                   f"{buffer.shape})")


def copy(dst: Buffer, src: Buffer, *, dst_offset: int = 0, src_offset: int = 0,
         count: int | None = None, graph: CommandGraph | None = None) -> None:
    """Copies ``count`` elements of ``src`` from ``src_offset`` to ``dst`` at ``dst_offset``.

    Offsets and the count are in elements of the (flattened) buffers, which must have the same
    dtype; ``count`` defaults to the rest of ``src`` from ``src_offset``. Each queue copies
    between its own replicas. Without ``graph`` the copy is submitted at once (like a shader
    call without ``graph=``); with one it is recorded in order with the graph's shader calls,
    and the hazards between them (a shader reading what the copy writes, the copy reading what
    a shader wrote) are ordered for you.

    Raises:
        TypeError: a buffer argument is not a vd.Buffer, the dtypes differ, or an offset or
            count is not an int.
        ValueError: a range does not fit its buffer, the count is 0, the ranges overlap within
            one buffer, or the buffers belong to another context than the graph.
    """
    for name, value in (("dst", dst), ("src", src)):
        if not isinstance(value, Buffer):
            raise InvalidTypeError(f"{name} must be a vd.Buffer, got {type(value).__name__}")
    if dst.var_type is not src.var_type:
        raise InvalidTypeError(f"dst holds {dst.var_type.name} but src holds "
                               f"{src.var_type.name}; copy needs the same dtype")
    dst_offset = _count_argument(dst_offset, "dst_offset")
    src_offset = _count_argument(src_offset, "src_offset")
    if count is None:
        count = max(src.size - src_offset, 0)
    count = _count_argument(count, "count")
    if count == 0:
        raise InvalidArgumentError(f"count must be at least 1 element, got 0 (src has "
                                   f"{src.size} elements, src_offset={src_offset})")
    _check_range(src, src_offset, count, "src", "src_offset")
    _check_range(dst, dst_offset, count, "dst", "dst_offset")
    if dst is src and src_offset < dst_offset + count and dst_offset < src_offset + count:
        raise InvalidArgumentError(f"dst_offset={dst_offset} and src_offset={src_offset} with "
                                   f"count={count} overlap in the same buffer")
    if graph is None:
        graph = global_graph()
    elif not isinstance(graph, CommandGraph):
        raise InvalidTypeError(f"graph must be a vd.CommandGraph or None, got "
                               f"{type(graph).__name__}")
    item = dst.var_type.item_size
    graph.record_command(BufferCopy(dst, src, count * item, dst_offset * item,
                                    src_offset * item))
