"""vd.copy: element ranges between buffers (and whole images, see image_copy.py), immediately
or recorded into a graph.

On GPUs the copy runs as the copy kernel of :mod:`vkdispatch.base.copy_kernel`; on CPU devices
(lavapipe), and for ranges not made of whole 4-byte words, it is a vkCmdCopyBuffer
(:class:`~vkdispatch.base.commands.BufferCopy`), which is a memcpy there.
"""
from __future__ import annotations

from typing import Any

from vkdispatch.base.buffer import Buffer
from vkdispatch.base.commands import BufferCopy
from vkdispatch.base.copy_kernel import (copy_plan, copy_push_constants, copy_workgroups,
                                         word_bytes)
from vkdispatch.base.image import Image
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.execution_pipeline.command_graph import CommandGraph
from vkdispatch.execution_pipeline.graphs import graph_or_global
from vkdispatch.execution_pipeline.image_copy import copy_image

__all__ = ["copy"]

def _record(graph: CommandGraph, dst: Buffer, src: Buffer, dst_byte: int, src_byte: int,
            size: int) -> None:
    word = word_bytes(graph.context, (dst.mem_size, src.mem_size), (dst_byte, src_byte, size))
    if word is None:
        graph.record_command(BufferCopy(dst, src, size, dst_byte, src_byte))
        return
    graph.record_dispatch(copy_plan(graph.context, word), None,
                          copy_workgroups(graph.context, word, size), (dst, src),
                          ((0, False, True), (1, True, False)), b"",
                          copy_push_constants(word, dst_byte, src_byte, size))


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


def copy(dst: Buffer | Image, src: Buffer | Image, *, dst_offset: int = 0,
         src_offset: int = 0, count: int | None = None,
         graph: CommandGraph | None = None) -> None:
    """Copies ``count`` elements of ``src`` from ``src_offset`` to ``dst`` at ``dst_offset``.

    Offsets and the count are in elements of the (flattened) buffers, which must have the same
    dtype; ``count`` defaults to the rest of ``src`` from ``src_offset``. Each queue copies
    between its own replicas; on GPUs the copy runs as a kernel at the memory's bandwidth.
    Without ``graph`` it is submitted at once (like a shader call without ``graph=``); with one
    it is recorded in order with the graph's shader calls, and the hazards between them (a
    shader reading what the copy writes, the copy reading what a shader wrote) are ordered for
    you.

    Images: when ``dst`` or ``src`` is a :class:`vkdispatch.Image`, the whole image moves: from
    or into the packed texels (numpy order, channels last) of a buffer of the image's scalar
    type, starting at the buffer's offset, or into another image of the same shape, layers and
    texel size. ``count``, when given, must be the buffer elements the image spans (between two
    images, its texels). Shaders
    sampling the image before and after the copy, in the same graph, are ordered around it.

    Raises:
        TypeError: a buffer argument is not a vd.Buffer, the dtypes differ, or an offset or
            count is not an int.
        ValueError: a range does not fit its buffer, the count is 0, the ranges overlap within
            one buffer, a buffer was destroyed, or the buffers belong to another context than
            the graph.
        InvalidStateError: a buffer belongs to a context that was closed.
    """
    dst_offset = _count_argument(dst_offset, "dst_offset")
    src_offset = _count_argument(src_offset, "src_offset")
    if isinstance(dst, Image) or isinstance(src, Image):
        copy_image(dst, src, dst_offset, src_offset,
                   None if count is None else _count_argument(count, "count"), graph)
        return
    for name, value in (("dst", dst), ("src", src)):
        if not isinstance(value, Buffer):
            raise InvalidTypeError(f"{name} must be a vd.Buffer, got {type(value).__name__}")
        if value.destroyed:  # before the context check: a closed context's buffers land here
            raise value.unusable_error(name)
    if dst.var_type is not src.var_type:
        raise InvalidTypeError(f"dst holds {dst.var_type.name} but src holds "
                               f"{src.var_type.name}; copy needs the same dtype")
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
    graph = graph_or_global(graph)
    for name, value in (("dst", dst), ("src", src)):
        if value.context is not graph.context:
            raise InvalidArgumentError(f"{name} is a buffer of {value.context!r}, but the graph "
                                       f"records for {graph.context!r}; make the buffers inside "
                                       "'with ctx:' of the graph's context")
    item = dst.var_type.item_size
    _record(graph, dst, src, dst_offset * item, src_offset * item, count * item)
