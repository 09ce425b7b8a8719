"""Checks of the ``vd.Sampler`` passed for a shader's image parameter (``Img1/2/3[T]``,
``Img2Array[T]``): a sampler of a live image of the call's context, whose kind of image and
texel type match the annotation (Vulkan leaves any mismatch undefined)."""
from __future__ import annotations

import typing

from vkdispatch import dtypes as dt
from vkdispatch.base.context import Context
from vkdispatch.base.image import image_view_type
from vkdispatch.base.sampler import Sampler
from vkdispatch.dtypes import scalar_of
from vkdispatch.errors import InvalidShaderArgumentError, InvalidStateError

__all__ = ["check_image_argument"]

_VIEWS = {(1, False): (image_view_type.VIEW_TYPE_1D, "vd.Image1D"),
          (2, False): (image_view_type.VIEW_TYPE_2D, "vd.Image2D"),
          (3, False): (image_view_type.VIEW_TYPE_3D, "vd.Image3D"),
          (2, True): (image_view_type.VIEW_TYPE_2D_ARRAY, "vd.Image2DArray")}


def _annotation_text(annotation) -> str:
    origin = typing.get_origin(annotation)
    return f"{origin.__name__}[{typing.get_args(annotation)[0].name}]"


def check_image_argument(value, info, shader: str, context: Context | None) -> None:
    """Raises naming parameter ``info`` of ``shader`` unless ``value`` can be bound to it."""
    name = info.name
    if not isinstance(value, Sampler):
        hint = " (pass image.sample())" if hasattr(value, "sample") else ""
        raise InvalidShaderArgumentError(
            f"Expected an image for argument '{name}' of shader '{shader}': a vd.Sampler"
            f"{hint}, got {type(value).__name__} {value!r:.60}")
    image = value.image
    if value.destroyed or image.destroyed:
        if value.context.closed:
            raise InvalidStateError(f"argument '{name}' of shader '{shader}' is a sampler of a "
                                    "closed context; make the image again in an open one")
        raise InvalidShaderArgumentError(f"argument '{name}' of shader '{shader}' is a sampler "
                                         "whose image (or itself) was destroyed")
    if context is not None and value.context is not context:
        raise InvalidShaderArgumentError(
            f"argument '{name}' of shader '{shader}' is a sampler of {value.context!r}, but the "
            f"call records into a graph of {context!r}")
    origin = typing.get_origin(info.annotation)
    view, kind = _VIEWS[(origin.dimensions, origin.arrayed)]
    declared = _annotation_text(info.annotation)
    if image.view_type is not view:
        raise InvalidShaderArgumentError(
            f"argument '{name}' of shader '{shader}' is declared {declared}, which samples a "
            f"{kind}, but got the sampler of a {type(image).__name__} of shape {image.shape}")
    scalar = scalar_of(typing.get_args(info.annotation)[0])
    if image.dtype is not scalar:
        expected = dt.to_vector(image.dtype, 4).name
        raise InvalidShaderArgumentError(
            f"argument '{name}' of shader '{shader}' is declared {declared} ({scalar.name} "
            f"texels) but its image holds {image.dtype.name} texels; annotate "
            f"{origin.__name__}[{expected}] or make the image with dtype {scalar.name}")
