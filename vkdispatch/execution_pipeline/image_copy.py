"""Whole-image copies for vd.copy: buffer -> image, image -> buffer and image -> image, recorded
as :class:`~vkdispatch.base.commands.ImageCopy` commands (immediately, or into a graph in
order with its shader calls)."""
from __future__ import annotations

import math

from vkdispatch.base.buffer import Buffer
from vkdispatch.base.commands import ImageCopy
from vkdispatch.base.image import Image
from vkdispatch.dtypes import scalar_of
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.execution_pipeline.command_graph import CommandGraph
from vkdispatch.execution_pipeline.graphs import graph_or_global

__all__ = ["copy_image"]


def _describe(image: Image) -> str:
    return (f"{type(image).__name__} of shape {image.shape} ({image.channels} x "
            f"{image.dtype.name} per texel)")


def _buffer_byte_offset(buffer: Buffer, image: Image, offset: int, count: int | None,
                        name: str) -> int:
    """The byte offset of the image's texels in ``buffer`` (``name``: "dst" or "src"), after
    checking that the buffer holds them there."""
    if scalar_of(buffer.var_type) is not image.dtype:
        raise InvalidTypeError(f"{name} holds {buffer.var_type.name} but the image holds "
                               f"{image.dtype.name} texels; copy needs the same scalar type")
    values = math.prod(image.array_shape)
    per_element = math.prod(buffer.var_type.numpy_shape)
    if count is not None and count * per_element != values:
        raise InvalidArgumentError(f"count: an image copy moves the whole {_describe(image)}: "
                                   f"{values // per_element} elements of {name}, got {count}")
    byte = offset * buffer.var_type.item_size
    if byte % image.block_size:
        raise InvalidArgumentError(f"{name}_offset={offset}: the image's texels must start at a "
                                   f"whole texel ({image.block_size} bytes) of {name}")
    if byte + image.mem_size > buffer.mem_size:
        raise InvalidArgumentError(f"{name}: the {_describe(image)} takes {values} values, which "
                                   f"do not fit in {name} of {buffer.size} elements (shape "
                                   f"{buffer.shape}) from {name}_offset={offset}")
    return byte


def copy_image(dst: Image | Buffer, src: Image | Buffer, dst_offset: int, src_offset: int,
               count: int | None, graph: CommandGraph | None) -> None:
    """vd.copy where ``dst`` or ``src`` is an image (offsets and count already checked to be
    element counts): the whole image moves."""
    for name, end, offset in (("dst", dst, dst_offset), ("src", src, src_offset)):
        if not isinstance(end, (Image, Buffer)):
            raise InvalidTypeError(f"{name} must be a vd.Buffer or a vd.Image, got "
                                   f"{type(end).__name__}")
        if isinstance(end, Image) and offset:
            raise InvalidArgumentError(f"{name}_offset={offset}: an image is copied whole; "
                                       "offsets apply to the buffer end")
        if end.destroyed:
            raise end.unusable_error(f"{name}")
    offset = 0
    if isinstance(dst, Buffer):
        offset = _buffer_byte_offset(dst, src, dst_offset, count, "dst")
    elif isinstance(src, Buffer):
        offset = _buffer_byte_offset(src, dst, src_offset, count, "src")
    else:
        if dst is src:  # refused natively too, but only when a graph holding it is submitted
            raise InvalidArgumentError("dst: is the source image itself; an image copy needs "
                                       "another image")
        # The same kind too: Vulkan copies a 1-D image only into a 1-D one (a 1-D and a 2-D
        # image of one texel row reached the driver: VUID-vkCmdCopyImage-srcImage-07743).
        if (type(dst), dst.extent, dst.layers, dst.block_size) != \
                (type(src), src.extent, src.layers, src.block_size):
            raise InvalidArgumentError(f"dst is a {_describe(dst)} but src a {_describe(src)}; "
                                       "an image copy needs the same kind, shape, layers and "
                                       "texel size")
        texels = math.prod(src.array_shape) // src.channels
        if count is not None and count != texels:
            raise InvalidArgumentError(f"count: an image copy moves the whole {_describe(src)}"
                                       f", {texels} texels; got {count}")
    graph = graph_or_global(graph)
    if dst.context is not graph.context or src.context is not graph.context:
        raise InvalidArgumentError("dst and src must belong to the graph's context "
                                   f"({graph.context!r}); make them inside 'with ctx:' of it")
    if isinstance(dst, Image):
        # Now, not when a graph holding the copy is recorded: a refused copy must not stay in
        # the graph (every later submit of it would raise).
        dst.check_device_copy_into()
    graph.record_command(ImageCopy(dst, src, offset))
