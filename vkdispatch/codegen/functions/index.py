"""Index helpers between flat and multi-dimensional indices (named as in vkdispatch 0.1.0:
``ravel_index`` goes flat -> multi-dimensional, ``unravel_index`` the other way)."""
from __future__ import annotations

from vkdispatch import dtypes as dt
from vkdispatch.codegen.variables import ShaderVariable, constructor
from vkdispatch.errors import InvalidArgumentError

__all__ = ["ravel_index", "unravel_index"]


def _shape_parts(shape) -> list:
    if isinstance(shape, ShaderVariable):
        count = shape.var_type.child_count if dt.is_vector(shape.var_type) else 0
        if count < 2 or not dt.is_integer_dtype(shape.var_type):
            raise InvalidArgumentError(f"shape must be 2 or 3 ints or an integer vector, got "
                                       f"{shape.var_type.name}")
        return [shape[i] for i in range(min(count, 3))]
    parts = list(shape)
    if len(parts) not in (2, 3):
        raise InvalidArgumentError(f"shape must have 2 or 3 dimensions, got {len(parts)}")
    return parts


def ravel_index(index, shape) -> ShaderVariable:
    """Flat ``index`` -> ``uvec2``/``uvec3`` multi-index of ``shape`` (row-major)."""
    parts = _shape_parts(shape)
    if len(parts) == 2:
        return constructor(dt.uvec2, index // parts[1], index % parts[1])
    s1, s2 = parts[1], parts[2]
    return constructor(dt.uvec3, index // (s1 * s2), (index // s2) % s1, index % s2)


def unravel_index(index, shape):
    """Multi-index -> flat index of ``shape`` (row-major). Static inputs give a Python int. A
    one-dimensional shape (``n`` or ``(n,)``) gives the index itself (its first component), as
    in vkdispatch 0.1.0."""
    if isinstance(shape, int) or (isinstance(shape, (tuple, list)) and len(shape) == 1):
        if isinstance(index, ShaderVariable) and dt.is_vector(index.var_type):
            return index[0]
        return index[0] if isinstance(index, (tuple, list)) else index
    parts = _shape_parts(shape)
    if isinstance(index, ShaderVariable) and dt.is_vector(index.var_type):
        components = [index[i] for i in range(min(index.var_type.child_count, len(parts)))]
    elif isinstance(index, (tuple, list)):
        components = list(index)
    else:
        return index
    if len(components) == 1:
        return components[0]
    if len(components) == 2:
        return components[0] * parts[1] + components[1]
    return components[0] * (parts[1] * parts[2]) + components[1] * parts[2] + components[2]
