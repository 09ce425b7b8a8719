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

import numbers
from typing import Any, NamedTuple

from vkdispatch.base.buffer import Buffer
from vkdispatch.base.image import Image
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["Command", "Dispatch", "BufferCopy", "BufferFill", "BufferUpdate", "ImageCopy",
           "VkFFTRun", "Barrier"]


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


def _buffer(value, name: str, command: str):
    if not isinstance(value, Buffer):
        raise InvalidTypeError(f"{command}: {name} must be a vd.Buffer, got "
                               f"{type(value).__name__}")
    return value


def _bytes(value, name: str, command: str) -> int:
    """``value`` as a size or offset in bytes: an int in [0, 2**64 - 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidTypeError(f"{command}: {name} must be an int (bytes), got {value!r:.60} "
                               f"({type(value).__name__})")
    if not 0 <= value <= 2**64 - 1:
        raise InvalidArgumentError(f"{command}: {name} must be a byte count in [0, 2**64 - 1], "
                                   f"got {value}")
    return int(value)


def _word(value) -> int:
    """``value`` as the 32-bit word a fill writes."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidTypeError(
            f"BufferFill: value must be an int (the 32-bit word written), got {value!r:.60} "
            f"({type(value).__name__}); for a float pass its bits, e.g. "
            "int(np.float32(x).view(np.uint32))")
    if not 0 <= value <= 0xFFFFFFFF:
        raise InvalidArgumentError(
            f"BufferFill: value must be a 32-bit word in [0, 4294967295], got {value}; the word "
            "of a negative int32 v is v & 0xFFFFFFFF")
    return int(value)


class _BufferCopyFields(NamedTuple):
    dst: Any
    src: Any
    size: int
    dst_offset: int = 0
    src_offset: int = 0


class BufferCopy(_BufferCopyFields):
    """``size`` bytes from ``src_offset`` of ``src`` to ``dst_offset`` of ``dst`` (buffers of
    one context; the same buffer only with ranges that do not overlap). Raises TypeError or
    ValueError, naming the field, for a non-buffer or a size or offset that is not an int >= 0.
    """

    __slots__ = ()

    def __new__(cls, dst, src, size: int, dst_offset: int = 0, src_offset: int = 0):
        what = "BufferCopy"
        return super().__new__(cls, _buffer(dst, "dst", what), _buffer(src, "src", what),
                               _bytes(size, "size", what), _bytes(dst_offset, "dst_offset", what),
                               _bytes(src_offset, "src_offset", what))

    @property
    def handles(self) -> tuple:
        return (self.dst, self.src)

    def _record_into(self, native_list) -> None:
        native_list.record_copy(self.dst._native, self.src._native, self.dst_offset,
                                self.src_offset, self.size)


class _BufferFillFields(NamedTuple):
    buffer: Any
    value: int
    size: int
    offset: int = 0


class BufferFill(_BufferFillFields):
    """``size`` bytes from ``offset`` of ``buffer`` set to the 32-bit word ``value`` (offset and
    size multiples of 4). ``value`` is an int in [0, 2**32 - 1] (the word's bits; floats and
    out-of-range ints raise, naming ``value``)."""

    __slots__ = ()

    def __new__(cls, buffer, value: int, size: int, offset: int = 0):
        return super().__new__(cls, _buffer(buffer, "buffer", "BufferFill"), _word(value),
                               _bytes(size, "size", "BufferFill"),
                               _bytes(offset, "offset", "BufferFill"))

    @property
    def handles(self) -> tuple:
        return (self.buffer,)

    def _record_into(self, native_list) -> None:
        native_list.record_fill(self.buffer._native, self.offset, self.size, self.value)


class _BufferUpdateFields(NamedTuple):
    buffer: Any
    data: bytes
    offset: int = 0


class BufferUpdate(_BufferUpdateFields):
    """``data`` (bytes, padded with zeros to whole 4-byte words) written to ``offset`` of
    ``buffer`` from inside the command buffer: for small data. ``data`` may be any object
    exposing its bytes (``bytes``, ``bytearray``, a numpy array); it is copied."""

    __slots__ = ()

    def __new__(cls, buffer, data, offset: int = 0):
        if type(data) is not bytes:
            try:
                data = memoryview(data).tobytes()
            except TypeError:
                raise InvalidTypeError(f"BufferUpdate: data must be bytes (e.g. array.tobytes()),"
                                       f" got {type(data).__name__}") from None
        return super().__new__(cls, _buffer(buffer, "buffer", "BufferUpdate"), data,
                               _bytes(offset, "offset", "BufferUpdate"))

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


class VkFFTRun(NamedTuple):
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
        native_list.record_vkfft(self.plan._native, self.buffer._native, self.direction,
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


Command = (Dispatch, BufferCopy, BufferFill, BufferUpdate, ImageCopy, VkFFTRun, Barrier)
"""The command types, for ``isinstance(value, Command)``."""
