"""Host-side packing of uniform and push-constant blocks (GLSL ``scalar`` layout: members are
tightly packed in block order, so the byte layout is the concatenation of the values)."""
from __future__ import annotations

import math

import numpy as np

from vkdispatch.base import dtype as dt
from vkdispatch.errors import InvalidArgumentError

__all__ = ["field_bytes", "pack_fields"]


def field_bytes(element, value, what: str) -> np.ndarray:
    """The bytes of one block member holding ``value`` (numbers, sequences or arrays)."""
    var_type = element.dtype
    if dt.is_complex(var_type):
        scalar = var_type.child_type
        values = np.asarray(value, dtype=np.complex128).reshape(-1)
        values = np.stack([values.real, values.imag], axis=-1)
    else:
        scalar = var_type.scalar or var_type
        values = np.asarray(value)
    count = math.prod(var_type.numpy_shape) * element.count * (2 if dt.is_complex(var_type)
                                                               else 1)
    host = np.dtype(scalar.name) if scalar.name != "bool" else np.dtype(np.uint32)
    if values.size != count:
        raise InvalidArgumentError(f"{what}: a {var_type.name} needs {count} value(s), got "
                                   f"{values.size} ({value!r})")
    if values.dtype.kind == "c":
        raise InvalidArgumentError(f"{what}: complex value for a {var_type.name}")
    return np.ascontiguousarray(values, dtype=host).reshape(-1).view(np.uint8)


def pack_fields(structure, values: dict, what: str) -> bytes:
    """The block bytes for ``structure`` (StructElements, in block order) from ``values``."""
    parts = []
    for element in structure:
        if element.name not in values:
            raise InvalidArgumentError(f"{what}: no value for member '{element.name}'")
        parts.append(field_bytes(element, values[element.name], f"{what} '{element.name}'"))
    return b"".join(p.tobytes() for p in parts)
