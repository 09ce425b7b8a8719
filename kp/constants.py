"""How Python values become typed specialization and push constants, as in Kompute.

Kompute's bindings have two overloads, one taking lists of floats and one taking numpy arrays,
and pybind11 tries both first without implicit conversions, then with them. The result users see
(and this module reproduces): lists of numbers, float64 arrays and omitted arguments give float32
constants; when every constant argument is a numpy array and one is not float64, each array keeps
its dtype (float32, int32, uint32 or float64). ``np.array([], np.int32)`` is how user code keeps
an int spec constant an int when it gives no push constants.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

# The bridge's type codes (kompute_bridge.hpp ConstantType).
TYPE_CODES = {np.dtype(np.float32): 0, np.dtype(np.int32): 1, np.dtype(np.uint32): 2,
              np.dtype(np.float64): 3}
_DTYPES = {code: dtype for dtype, code in TYPE_CODES.items()}
NO_VALID_DTYPE = "Kompute Python no valid dtype supported"


class TypedConstants(NamedTuple):
    data: np.ndarray  # the values' bytes (uint8)
    count: int
    type_code: int

    @property
    def native_args(self):
        return self.data, self.count, self.type_code

    def values(self) -> list:
        """The constants as Python numbers."""
        return self.data.view(_DTYPES[self.type_code]).tolist()


def typed(call: str, **values) -> list[TypedConstants]:
    """The constants of each keyword argument, typed as Kompute's overload resolution does."""
    for convert in (False, True):
        floats = [_floats(v, convert) for v in values.values()]
        if all(f is not None for f in floats):
            return [_pack(np.asarray(f, dtype=np.float32)) for f in floats]
        if not convert and all(isinstance(v, np.ndarray) for v in values.values()):
            break
    return [_pack(_array(call, name, v)) for name, v in values.items()]


def _floats(value, convert: bool):
    """``value`` as a list of floats if pybind11's ``List[float]`` would accept it, else None."""
    if isinstance(value, (str, bytes, bytearray, dict)) or not hasattr(value, "__iter__"):
        return None
    out = []
    for item in value:
        if isinstance(item, (str, bytes)) or (not convert and not isinstance(item, float)):
            return None
        try:
            out.append(float(item))
        except (TypeError, ValueError):
            return None
    return out


def _array(call: str, name: str, value) -> np.ndarray:
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{call}: {name} must be a list of numbers or a numpy array, got "
                        f"{type(value).__name__} ({error})") from None
    if not isinstance(value, np.ndarray) and array.ndim != 1:
        # A scalar or nested lists would become float64 constants, whose bytes a shader's
        # floats read as garbage (push_consts=2.0 filled a vec2 with (0, 2.0)).
        shape = "a scalar" if array.ndim == 0 else f"nested lists of shape {array.shape}"
        raise TypeError(f"{call}: {name} must be a list of numbers or a numpy array, got "
                        f"{shape} ({value!r:.60})")
    if array.dtype not in TYPE_CODES:
        raise RuntimeError(f"{NO_VALID_DTYPE}: {call}: {name} has dtype {array.dtype}; constants "
                           "take float32, int32, uint32 or float64")
    return array


def _pack(array: np.ndarray) -> TypedConstants:
    flat = np.ascontiguousarray(array.ravel())
    return TypedConstants(flat.view(np.uint8), flat.size, TYPE_CODES[flat.dtype])
