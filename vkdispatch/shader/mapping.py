"""``vd.map``: a typed function that other shaders (FFT/reduction hooks) inline when traced."""
from __future__ import annotations

import dataclasses
import inspect
import typing
from typing import Any, Callable

from vkdispatch.codegen.functions.control_flow import scope_block
from vkdispatch.codegen.functions.registers import new_register
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.shader.annotations import evaluated_signature

__all__ = ["MappingFunction", "map"]


@dataclasses.dataclass(frozen=True)
class MappingFunction:
    """A function to inline into another shader; equal when built from the same function and
    types."""

    buffer_types: tuple
    return_type: Any
    mapping_function: Callable

    def callback(self, *args):
        """Inlines the function (called while another shader is traced)."""
        if self.return_type is None:
            with scope_block():
                self.mapping_function(*args)
            return None
        result = new_register(self.return_type)
        with scope_block():
            result[:] = self.mapping_function(*args)
        return result


def map(func: Callable | None = None, return_type=None, input_types=None):  # noqa: A001
    """Wraps ``func`` (annotated like a shader) as a :class:`MappingFunction`; usable as
    ``@vd.map`` or ``vd.map(func, return_type=..., input_types=[...])``."""
    if func is None:
        return lambda f: map(f, return_type, input_types)
    signature = evaluated_signature(func)
    if input_types is None:
        input_types = []
        for parameter in signature.parameters.values():
            if parameter.annotation is inspect.Parameter.empty:
                raise InvalidArgumentError("All parameters must be annotated")
            if typing.get_origin(parameter.annotation) is None:
                raise InvalidTypeError(f"parameter '{parameter.name}' needs a subscripted "
                                       "annotation such as Buff[f32]")
            input_types.append(parameter.annotation)
    if return_type is None and signature.return_annotation is not inspect.Signature.empty:
        return_type = signature.return_annotation
    return MappingFunction(tuple(input_types), return_type, func)
