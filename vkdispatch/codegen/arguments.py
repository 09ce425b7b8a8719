"""Parameter annotations of shaders (``Buff[f32]``, ``Const[i32]``, ``Var[v2]``, images,
dataclasses) and the declaration of the matching shader variables."""
from __future__ import annotations

import dataclasses
import typing
from typing import Any, Generic, TypeVar

from vkdispatch import dtypes as dt
from vkdispatch.codegen.builder import (BindingType, ShaderArgumentInfo, ShaderArgumentType,
                                        ShaderBuilder)
from vkdispatch.codegen.resources import BufferVariable, ImageVariable, bound_variable
from vkdispatch.dtypes import scalar_of
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["Constant", "Variable", "Buffer", "Image1D", "Image2D", "Image3D", "Image2DArray",
           "declare_arguments", "annotation_kind", "dataclass_fields"]

_ArgType = TypeVar("_ArgType")


class Constant(Generic[_ArgType]):
    """``Const[T]``: a value fixed when the call is recorded (a uniform-buffer member)."""


class Variable(Generic[_ArgType]):
    """``Var[T]``: a push constant; may change between submits of a recorded graph."""


class Buffer(Generic[_ArgType]):
    """``Buff[T]``: a storage buffer of elements of type T (a ``vd.Buffer`` at call time)."""


class Image1D(Generic[_ArgType]):
    """``Img1[T]``: a 1-D sampled image (a ``vd.Sampler`` at call time). ``T`` (f32, i32 or
    u32, or a vector of them) is the component type sampling returns: it must match the
    image's dtype."""

    dimensions = 1
    arrayed = False


class Image2D(Generic[_ArgType]):
    """``Img2[T]``: a 2-D sampled image."""

    dimensions = 2
    arrayed = False


class Image3D(Generic[_ArgType]):
    """``Img3[T]``: a 3-D sampled image."""

    dimensions = 3
    arrayed = False


class Image2DArray(Generic[_ArgType]):
    """``Img2Array[T]``: layers of 2-D images (a ``vd.Image2DArray``'s sampler); coordinates
    are (x, y, layer)."""

    dimensions = 2
    arrayed = True


_IMAGES = (Image1D, Image2D, Image3D, Image2DArray)
_SAMPLED_SCALARS = (dt.float32, dt.int32, dt.uint32)


def _is_dtype(value: Any) -> bool:
    return isinstance(value, type) and value in dt.all_dtypes()


def dataclass_fields(annotation: type) -> list[tuple[str, Any]]:
    """``(name, dtype)`` of each field of a dataclass argument; string annotations (``from
    __future__ import annotations``) are resolved in the dataclass's module."""
    try:
        hints = typing.get_type_hints(annotation)
    except Exception:  # an unresolvable name: reported below as an unsupported type
        hints = {}
    fields = []
    for field in dataclasses.fields(annotation):
        field_type = hints.get(field.name, field.type)
        if not _is_dtype(field_type):
            raise InvalidArgumentError(f"Unsupported type '{field_type}' for field "
                                       f"'{annotation.__name__}.{field.name}': dataclass fields "
                                       "must be annotated with dtypes such as f32 or v3")
        fields.append((field.name, field_type))
    return fields


def annotation_kind(name: str, annotation: Any) -> tuple[ShaderArgumentType, Any]:
    """``(kind, element type)`` of one parameter annotation; raises naming the parameter."""
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        dataclass_fields(annotation)
        return ShaderArgumentType.CONSTANT_DATACLASS, annotation
    if isinstance(annotation, str):
        raise InvalidTypeError(f"Argument '{name}' has the unresolved string annotation "
                               f"{annotation!r}; define its names at module level (string "
                               "annotations come from `from __future__ import annotations`)")
    origin = typing.get_origin(annotation)
    if origin is None:
        raise InvalidTypeError(f"Argument '{name}: {getattr(annotation, '__name__', annotation)}'"
                               " must have a type annotation such as Buff[f32], Const[i32] or "
                               "Var[f32]")
    args = typing.get_args(annotation)
    if len(args) != 1:
        raise InvalidArgumentError(f"Argument '{name}': {origin.__name__}[...] takes exactly one "
                                   f"type, got {len(args)}")
    element = args[0]
    if not _is_dtype(element):
        raise InvalidTypeError(f"Argument '{name}': {origin.__name__}[{element!r}] needs a "
                               "vkdispatch dtype such as f32")
    if origin in _IMAGES:
        if not (dt.is_scalar(element) or dt.is_vector(element)) or \
                scalar_of(element) not in _SAMPLED_SCALARS:
            raise InvalidTypeError(f"Argument '{name}': {origin.__name__}[{element.name}]: images "
                                   "hold f32, i32 or u32 texels; annotate with one of those")
        return ShaderArgumentType.IMAGE, origin
    kinds = {Buffer: ShaderArgumentType.BUFFER, Constant: ShaderArgumentType.CONSTANT,
             Variable: ShaderArgumentType.VARIABLE}
    if origin not in kinds:
        raise InvalidArgumentError(f"Unsupported type '{annotation}' for argument '{name}'")
    return kinds[origin], element


def _declare_one(builder: ShaderBuilder, name: str, annotation: Any, default: Any):
    kind, element = annotation_kind(name, annotation)
    info = ShaderArgumentInfo(name, kind, default, None, annotation=annotation)
    if kind == ShaderArgumentType.BUFFER:
        index = builder.add_binding(element, BindingType.STORAGE_BUFFER)
        variable = BufferVariable(element, f"buf{index}", index, f"buf{index}_shape")
        info.shader_name, info.shader_shape_name, info.binding = (
            f"buf{index}.data", f"buf{index}_shape", index)
    elif kind == ShaderArgumentType.IMAGE:
        scalar = scalar_of(typing.get_args(annotation)[0])
        index = builder.add_binding(scalar, BindingType.SAMPLER, element.dimensions,
                                    element.arrayed)
        variable = ImageVariable(f"tex{index}", index, element.dimensions, element.arrayed,
                                 scalar)
        info.shader_name, info.binding = f"tex{index}", index
    elif kind == ShaderArgumentType.CONSTANT_DATACLASS:
        fields = {}
        values = {}
        for field_name, field_type in dataclass_fields(element):
            raw = builder.add_uniform_field(builder.new_name(), field_type)
            fields[field_name] = raw
            values[field_name] = bound_variable(field_type, "UBO", raw)
        variable = element(**values)
        info.shader_name = fields
    else:
        raw = builder.new_name()
        if kind == ShaderArgumentType.CONSTANT:
            builder.add_uniform_field(raw, element)
            variable = bound_variable(element, "UBO", raw)
        else:
            builder.add_push_constant_field(raw, element)
            variable = bound_variable(element, "PC", raw)
        info.shader_name = raw
    builder.arg_infos.append(info)
    return variable


def declare_arguments(builder: ShaderBuilder, arguments: list[tuple[str, Any, Any]]) -> list:
    """Declares one shader variable per ``(name, annotation, default)``, in order."""
    builder.arguments_declared = True
    return [_declare_one(builder, name, annotation, default)
            for name, annotation, default in arguments]
