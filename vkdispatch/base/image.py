"""Images: texel arrays of 1-3 dimensions (and layered 2-D arrays), with one replica per queue,
for hardware sampling in shaders.

Shapes are numpy's: a 2-D image of shape ``(rows, cols)`` is ``cols`` texels wide and ``rows``
high, so texel ``(x, y)`` is the element ``[y, x]`` of the array written, for any shape.
``write`` uploads an array (or raw bytes) to every replica or one; ``read(i)`` returns replica
``i`` as an array of shape ``array_shape``.
"""
from __future__ import annotations

import math
from enum import Enum
from typing import Any

import numpy as np

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import check_integer_range
from vkdispatch.base.context import get_context
from vkdispatch.base.handle import Handle
from vkdispatch.base.sampler import AddressMode, BorderColor, Filter, Sampler
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["image_format", "image_type", "image_view_type", "select_image_format", "Image",
           "Image1D", "Image2D", "Image2DArray", "Image3D"]


class image_format(Enum):  # noqa: N801  (vkdispatch 0.1.0's name)
    """Texel formats (Vulkan's VkFormat values)."""
    R8_UINT = 13
    R8_SINT = 14
    R8G8_UINT = 20
    R8G8_SINT = 21
    R8G8B8_UINT = 27
    R8G8B8_SINT = 28
    R8G8B8A8_UINT = 41
    R8G8B8A8_SINT = 42
    R16_UINT = 74
    R16_SINT = 75
    R16_SFLOAT = 76
    R16G16_UINT = 81
    R16G16_SINT = 82
    R16G16_SFLOAT = 83
    R16G16B16_UINT = 88
    R16G16B16_SINT = 89
    R16G16B16_SFLOAT = 90
    R16G16B16A16_UINT = 95
    R16G16B16A16_SINT = 96
    R16G16B16A16_SFLOAT = 97
    R32_UINT = 98
    R32_SINT = 99
    R32_SFLOAT = 100
    R32G32_UINT = 101
    R32G32_SINT = 102
    R32G32_SFLOAT = 103
    R32G32B32_UINT = 104
    R32G32B32_SINT = 105
    R32G32B32_SFLOAT = 106
    R32G32B32A32_UINT = 107
    R32G32B32A32_SINT = 108
    R32G32B32A32_SFLOAT = 109
    R64_UINT = 110
    R64_SINT = 111
    R64_SFLOAT = 112
    R64G64_UINT = 113
    R64G64_SINT = 114
    R64G64_SFLOAT = 115
    R64G64B64_UINT = 116
    R64G64B64_SINT = 117
    R64G64B64_SFLOAT = 118
    R64G64B64A64_UINT = 119
    R64G64B64A64_SINT = 120
    R64G64B64A64_SFLOAT = 121


class image_type(Enum):  # noqa: N801
    TYPE_1D = (0,)
    TYPE_2D = (1,)
    TYPE_3D = (2,)


class image_view_type(Enum):  # noqa: N801
    """Vulkan's VkImageViewType values, as 1-tuples (vkdispatch 0.1.0's values)."""
    VIEW_TYPE_1D = (0,)
    VIEW_TYPE_2D = (1,)
    VIEW_TYPE_3D = (2,)
    VIEW_TYPE_2D_ARRAY = (5,)


_SUFFIX = {dt.uint32: "UINT", dt.int32: "SINT", dt.float32: "SFLOAT"}
_CHANNELS = ("R32", "R32G32", "R32G32B32", "R32G32B32A32")
_VIEWS = {1: image_view_type.VIEW_TYPE_1D, 2: image_view_type.VIEW_TYPE_2D,
          3: image_view_type.VIEW_TYPE_3D}


def select_image_format(dtype: Any, channels: int) -> image_format:
    """The format of ``channels`` (1-4) channels of ``dtype`` (uint32, int32 or float32)."""
    if dtype not in _SUFFIX:
        raise InvalidArgumentError(f"Unsupported dtype ({dtype!r})! Images hold uint32, int32 or "
                                   "float32 channels")
    if isinstance(channels, bool) or not isinstance(channels, int) or not 1 <= channels <= 4:
        raise InvalidArgumentError(f"channels must be an int in 1..4, got {channels!r}")
    return image_format[f"{_CHANNELS[channels - 1]}_{_SUFFIX[dtype]}"]


def _check_shape(shape: Any) -> tuple[int, ...]:
    if not isinstance(shape, tuple) or not 1 <= len(shape) <= 3:
        raise InvalidArgumentError(f"Shape must be 1D, 2D or 3D! Got {shape!r}")
    for axis, extent in enumerate(shape):
        if isinstance(extent, bool) or not isinstance(extent, (int, np.integer)):
            raise InvalidArgumentError(f"Shape must be a tuple of integers! shape[{axis}] is "
                                       f"{extent!r}")
        if extent < 1:
            raise InvalidArgumentError(f"shape[{axis}] must be at least 1, got {extent}")
        if extent > 0xFFFFFFFF:  # Vulkan's extents are 32-bit (was a bare OverflowError)
            raise InvalidArgumentError(f"shape[{axis}] = {extent} exceeds 2**32 - 1, more than "
                                       "any device's image extent")
    return tuple(int(e) for e in shape)


class Image(Handle):
    """Texels of ``shape`` (numpy's order, 1-3 axes) and ``layers`` layers, each ``channels``
    values of ``dtype``, with one replica per queue of the current context.

    Attributes:
        shape: ``(layers, *shape)`` when ``layers > 1``, else the shape given.
        extent: ``(width, height, depth)``: the shape reversed (x is the last numpy axis),
            padded with 1s.
        array_shape: the shape of what ``write`` takes and ``read`` returns: ``shape``, with a
            trailing axis of ``channels`` when ``channels > 1``.
        mip_levels: 1, or with ``enable_mipmaps`` ``floor(log2(max(extent))) + 1``: level i
            is the image halved i times along each axis (at least 1 texel), made from level 0
            by each write or copy into the image (linear blits; nearest for integer texels).
            Shaders read level i with ``sample(coord, lod=i)`` when the sampler's ``max_lod``
            allows it, or ``fetch(coord, lod=i)``.
        format, dtype, channels, layers, view_type, type, block_size (bytes per texel),
        mem_size (bytes per replica, level 0: what ``write`` takes and ``read`` returns).
    """

    def __init__(self, shape: tuple[int, ...], layers: int, dtype: Any, channels: int,
                 view_type: image_view_type, enable_mipmaps: bool = False) -> None:
        shape = _check_shape(shape)
        if not (isinstance(dtype, type) and issubclass(dtype, dt.dtype)):
            raise InvalidArgumentError(f"Dtype must be a dtype! Got {dtype!r}")
        if isinstance(layers, bool) or not isinstance(layers, int) or layers < 1:
            raise InvalidArgumentError(f"layers must be an int >= 1, got {layers!r}")
        self.format = select_image_format(dtype, channels)
        self.dtype, self.channels, self.layers = dtype, channels, layers
        self.view_type = view_type
        self.type = {image_view_type.VIEW_TYPE_3D: image_type.TYPE_3D,
                     image_view_type.VIEW_TYPE_1D: image_type.TYPE_1D}.get(view_type,
                                                                        image_type.TYPE_2D)
        self.extent = tuple(reversed(shape)) + (1,) * (3 - len(shape))
        self.mip_levels = max(self.extent).bit_length() if enable_mipmaps else 1
        self.shape = (layers, *shape) if layers > 1 else shape
        self.array_shape = self.shape + ((channels,) if channels > 1 else ())
        self.block_size = 4 * channels
        self.mem_size = math.prod(self.shape) * self.block_size
        self.context = get_context()
        self._native = self.context.create_native_image(view_type.value[0], self.format.value,
                                                        *self.extent, layers, self.mip_levels)
        self._register(self.context.handles)

    def __class_getitem__(cls, item):
        raise RuntimeError(f"Cannot index into vd.{cls.__name__}! Perhaps you meant to use "
                           f"vc.{cls.__name__}?")

    def _release(self) -> None:
        self._native.close()

    def _check_usable(self) -> None:
        if self._destroyed:
            raise self.unusable_error("this image")

    def write(self, data: Any, device_index: int = -1) -> None:
        """Uploads ``data`` to every replica (``device_index`` -1) or to one queue's.

        ``data``: an array of ``array_shape`` (cast to the image's dtype), or bytes-like of
        exactly ``mem_size`` bytes.
        """
        self._check_usable()
        target = -1 if device_index == -1 else self.context.check_queue_index(
            device_index, "device_index")
        self._native.write(self._to_bytes(data), target)

    def check_device_copy_into(self) -> None:
        """Raises InvalidArgumentError naming ``dst`` where a copy on the device into this image
        could not remake its mip levels (they are remade by blits, which need queues with
        graphics support and a format that blits); returns for an image without mip levels."""
        self._check_usable()
        self._native.check_copy_destination()

    def _to_bytes(self, data: Any) -> np.ndarray:
        if isinstance(data, (bytes, bytearray, memoryview)):
            raw = np.frombuffer(data, dtype=np.uint8)
            if raw.size != self.mem_size:
                raise InvalidArgumentError(f"data is {raw.size} bytes; the image holds "
                                           f"{self.mem_size} (mem_size), and bytes must match "
                                           "it exactly")
            return raw
        if not isinstance(data, np.ndarray):
            try:
                data = np.asarray(data)
            except Exception as error:
                raise InvalidTypeError(f"data: expected an array of array_shape "
                                       f"{self.array_shape} or bytes, got "
                                       f"{type(data).__name__} ({error})") from None
        if data.dtype.kind not in "biuf" or data.size != math.prod(self.array_shape):
            raise InvalidArgumentError(
                f"data: an image of array_shape {self.array_shape} ({self.dtype.name}) takes "
                f"an array of that shape, got shape {data.shape} ({data.dtype})")
        host_type = np.dtype(dt.to_numpy_dtype(self.dtype))
        if host_type.kind in "iu":  # as Buffer.write: no value may change on the way
            if data.dtype.kind in "iu":
                check_integer_range(data, host_type, f"the {self.dtype.name} image")
            elif data.dtype.kind == "f":
                raise InvalidTypeError(f"data: cannot write {data.dtype} data into a "
                                       f"{self.dtype.name} image without losing values; "
                                       "convert it explicitly")
        host = np.ascontiguousarray(data, dtype=host_type)
        return host.reshape(-1).view(np.uint8)

    def sample(self, mag_filter: Filter = Filter.LINEAR, min_filter: Filter = Filter.LINEAR,
               mip_filter: Filter = Filter.LINEAR,
               address_mode: AddressMode = AddressMode.CLAMP_TO_EDGE, mip_lod_bias: float = 0.0,
               min_lod: float = 0.0, max_lod: float = 0.0,
               border_color: BorderColor = BorderColor.FLOAT_OPAQUE_WHITE) -> Sampler:
        """A new :class:`vkdispatch.Sampler` of this image (what a shader's image argument
        takes)."""
        self._check_usable()
        return Sampler(self, mag_filter, min_filter, mip_filter, address_mode, mip_lod_bias,
                       min_lod, max_lod, border_color)

    def read(self, device_index: int = 0) -> np.ndarray:
        """Replica ``device_index`` as an array of ``array_shape``."""
        self._check_usable()
        index = self.context.check_queue_index(device_index, "device_index")
        out = np.empty(self.array_shape, dtype=dt.to_numpy_dtype(self.dtype))
        self._native.read_into(out.reshape(-1).view(np.uint8), index)
        return out


class Image1D(Image):
    """A 1-D image of ``shape`` texels."""

    def __init__(self, shape: int, dtype: Any, channels: int = 1,
                 enable_mipmaps: bool = False) -> None:
        super().__init__((shape,), 1, dtype, channels, image_view_type.VIEW_TYPE_1D,
                         enable_mipmaps)


class Image2D(Image):
    """A 2-D image of ``shape`` = (rows, cols) texels: ``cols`` wide, ``rows`` high."""

    def __init__(self, shape: tuple[int, int], dtype: Any = dt.float32, channels: int = 1,
                 enable_mipmaps: bool = False) -> None:
        if not isinstance(shape, tuple) or len(shape) != 2:
            raise InvalidArgumentError(f"Shape must be 2D! Got {shape!r}")
        super().__init__(shape, 1, dtype, channels, image_view_type.VIEW_TYPE_2D,
                         enable_mipmaps)


class Image2DArray(Image):
    """``layers`` 2-D images of ``shape`` = (rows, cols), sampled as one array image."""

    def __init__(self, shape: tuple[int, int], layers: int, dtype: Any = dt.float32,
                 channels: int = 1, enable_mipmaps: bool = False) -> None:
        if not isinstance(shape, tuple) or len(shape) != 2:
            raise InvalidArgumentError(f"Shape must be 2D! Got {shape!r}")
        super().__init__(shape, layers, dtype, channels, image_view_type.VIEW_TYPE_2D_ARRAY,
                         enable_mipmaps)


class Image3D(Image):
    """A 3-D image of ``shape`` = (depth, rows, cols) texels."""

    def __init__(self, shape: tuple[int, int, int], dtype: Any = dt.float32, channels: int = 1,
                 enable_mipmaps: bool = False) -> None:
        if not isinstance(shape, tuple) or len(shape) != 3:
            raise InvalidArgumentError(f"Shape must be 3D! Got {shape!r}")
        super().__init__(shape, 1, dtype, channels, image_view_type.VIEW_TYPE_3D,
                         enable_mipmaps)
