"""Commands: the pieces of GPU work a :class:`~vkdispatch.base.command_list.CommandList` records.

A shader dispatch, a buffer copy, fill or update, an image copy, a VkFFT transform, an explicit
barrier. Each is
a small immutable value (a named tuple: recordings compare equal when their commands do, so an
unchanged recording is not recorded again); the native list plans the barriers between them
from the resources each declares, so recording a copy between two shader calls that read and
write the same buffers is ordered correctly without the user placing barriers. Every command
runs on each target queue with that queue's replicas.

Sizes and offsets here are in bytes; :func:`vkdispatch.copy` is the element-wise user API.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from vkdispatch.base.image import Image

__all__ = ["Command", "Dispatch", "BufferCopy", "BufferFill", "BufferUpdate", "ImageCopy",
           "FFTRun", "Barrier"]


class Dispatch(NamedTuple):
    """``blocks`` workgroups of ``plan`` with ``descriptor_set`` (a DescriptorSet of the plan)."""

    plan: Any
    descriptor_set: Any
    blocks: tuple[int, int, int]

    @property
    def handles(self) -> tuple:
        return (self.plan, self.descriptor_set)

    def _record_into(self, native_list) -> None:
        native_list.record_dispatch(self.plan._native, self.descriptor_set._native, *self.blocks)


class BufferCopy(NamedTuple):
    """``size`` bytes from ``src_offset`` of ``src`` to ``dst_offset`` of ``dst`` (buffers of
    one context; the same buffer only with ranges that do not overlap)."""

    dst: Any
    src: Any
    size: int
    dst_offset: int = 0
    src_offset: int = 0

    @property
    def handles(self) -> tuple:
        return (self.dst, self.src)

    def _record_into(self, native_list) -> None:
        native_list.record_copy(self.dst._native, self.src._native, self.dst_offset,
                                self.src_offset, self.size)


class BufferFill(NamedTuple):
    """``size`` bytes from ``offset`` of ``buffer`` set to the 32-bit word ``value`` (offset and
    size multiples of 4)."""

    buffer: Any
    value: int
    size: int
    offset: int = 0

    @property
    def handles(self) -> tuple:
        return (self.buffer,)

    def _record_into(self, native_list) -> None:
        native_list.record_fill(self.buffer._native, self.offset, self.size, self.value)


class BufferUpdate(NamedTuple):
    """``data`` (bytes, padded with zeros to whole 4-byte words) written to ``offset`` of
    ``buffer`` from inside the command buffer: for small data."""

    buffer: Any
    data: bytes
    offset: int = 0

    @property
    def handles(self) -> tuple:
        return (self.buffer,)

    def _record_into(self, native_list) -> None:
        native_list.record_update(self.buffer._native, self.offset, self.data)


class ImageCopy(NamedTuple):
    """A whole image copied to or from the packed texels at byte ``offset`` of a buffer, or to
    another image of the same extent, layers and texel size (``offset`` 0). The command moves
    the images between layouts and orders itself after earlier and before later uses of them;
    the buffer side is planned like any buffer access."""

    dst: Any
    src: Any
    offset: int = 0

    @property
    def handles(self) -> tuple:
        return (self.dst, self.src)

    def _record_into(self, native_list) -> None:
        dst_offset, src_offset = (0, self.offset) if isinstance(self.dst, Image) else \
            (self.offset, 0)
        native_list.record_image_copy(self.dst._native, self.src._native, dst_offset,
                                      src_offset)


class FFTRun(NamedTuple):
    """A :class:`~vkdispatch.vkfft.VkFFTPlan` run on ``buffer``: ``direction`` -1 forward, 1
    inverse; ``input`` is read instead of ``buffer`` by a plan made with an input, ``kernel``
    multiplies the spectrum in a convolution plan. Declares a read and write of ``buffer`` and
    reads of the others."""

    plan: Any
    buffer: Any
    direction: int
    input: Any = None
    kernel: Any = None

    @property
    def handles(self) -> tuple:
        return tuple(h for h in (self.plan, self.buffer, self.input, self.kernel) if h is not None)

    def _record_into(self, native_list) -> None:
        native_list.record_fft(self.plan._native, self.buffer._native, self.direction,
                               None if self.input is None else self.input._native,
                               None if self.kernel is None else self.kernel._native)


class Barrier(NamedTuple):
    """Orders every earlier command before every later one (hazards between commands already
    get barriers without it: this is for dependencies the commands do not declare)."""

    @property
    def handles(self) -> tuple:
        return ()

    def _record_into(self, native_list) -> None:
        native_list.record_barrier()


Command = (Dispatch, BufferCopy, BufferFill, BufferUpdate, ImageCopy, FFTRun, Barrier)
"""The command types, for ``isinstance(value, Command)``."""
