"""Samplers: how shaders sample an image (filters, address mode, level-of-detail range, border
colour). ``image.sample(...)`` makes one; a shader's image argument takes it."""
from __future__ import annotations

import math
from enum import Enum
from typing import Any

from vkdispatch.base.handle import Handle
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["Filter", "AddressMode", "BorderColor", "Sampler"]


class Filter(Enum):
    NEAREST = 0
    LINEAR = 1


class AddressMode(Enum):
    REPEAT = 0
    MIRRORED_REPEAT = 1
    CLAMP_TO_EDGE = 2
    CLAMP_TO_BORDER = 3
    MIRROR_CLAMP_TO_EDGE = 4


class BorderColor(Enum):
    FLOAT_TRANSPARENT_BLACK = 0
    INT_TRANSPARENT_BLACK = 1
    FLOAT_OPAQUE_BLACK = 2
    INT_OPAQUE_BLACK = 3
    FLOAT_OPAQUE_WHITE = 4
    INT_OPAQUE_WHITE = 5


def _member(enum: type[Enum], name: str, value: Any) -> Enum:
    if not isinstance(value, enum):
        raise InvalidTypeError(f"{name} must be a vd.{enum.__name__} member, got {value!r}")
    return value


class Sampler(Handle):
    """Sampling settings of ``image``: ``min_filter`` and ``mag_filter`` (both honoured),
    ``mip_filter``, one ``address_mode`` for every axis, the level-of-detail bias and range,
    and the border colour of ``CLAMP_TO_BORDER``. Coordinates are normalized."""

    def __init__(self, image, mag_filter: Filter = Filter.LINEAR,
                 min_filter: Filter = Filter.LINEAR, mip_filter: Filter = Filter.LINEAR,
                 address_mode: AddressMode = AddressMode.CLAMP_TO_EDGE,
                 mip_lod_bias: float = 0.0, min_lod: float = 0.0, max_lod: float = 0.0,
                 border_color: BorderColor = BorderColor.FLOAT_OPAQUE_WHITE) -> None:
        from vkdispatch.base.image import Image  # here: image.py imports this module

        if not isinstance(image, Image):
            raise InvalidTypeError(f"image must be a vd.Image, got {type(image).__name__}")
        if image.destroyed:  # as image.sample() says it (the native check said 'closed')
            raise image.unusable_error("image")
        for name, value in (("mip_lod_bias", mip_lod_bias), ("min_lod", min_lod),
                            ("max_lod", max_lod)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidTypeError(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value):  # Vulkan leaves NaN and infinite values undefined
                raise InvalidArgumentError(f"{name} must be finite, got {value!r}")
        if min_lod > max_lod:
            raise InvalidArgumentError(f"min_lod ({min_lod}) must not exceed max_lod ({max_lod})")
        settings = [_member(Filter, "mag_filter", mag_filter).value,
                    _member(Filter, "min_filter", min_filter).value,
                    _member(Filter, "mip_filter", mip_filter).value,
                    _member(AddressMode, "address_mode", address_mode).value,
                    float(mip_lod_bias), float(min_lod), float(max_lod),
                    _member(BorderColor, "border_color", border_color).value]
        if not image._native.filters_linearly:
            mip = image.mip_levels > 1 and mip_filter is Filter.LINEAR
            if Filter.LINEAR in (mag_filter, min_filter) or mip:
                raise InvalidArgumentError(
                    f"the device cannot filter {image.format.name} images linearly (integer "
                    "texels); sample with mag_filter=vd.Filter.NEAREST, "
                    f"min_filter=vd.Filter.NEAREST{', mip_filter=vd.Filter.NEAREST' * mip}")
            settings[2] = Filter.NEAREST.value  # the same with one mip level, and allowed
        self.image = image
        self.mag_filter, self.min_filter, self.mip_filter = mag_filter, min_filter, mip_filter
        self.address_mode, self.border_color = address_mode, border_color
        self.context = image.context
        self._native = self.context.create_native_sampler(*settings)
        self._register(self.context.handles)

    def _release(self) -> None:
        self._native.close()
