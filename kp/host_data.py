"""What numpy data a tensor or image is made from, by Kompute's rules: ``tensor``/``image`` take
anything numeric as float32, ``tensor_t``/``image_t`` take an ndarray of one of their dtypes and
keep it; either way the data is flattened in C order and copied."""
from __future__ import annotations

import numpy as np

from kp import arguments, constants
from kp.enums import DataTypes
from kp.memory import NUMPY_TYPES

TENSOR_TYPES = {NUMPY_TYPES[t]: t for t in (DataTypes.float, DataTypes.uint, DataTypes.int,
                                            DataTypes.double, DataTypes.bool, DataTypes.float16)}
IMAGE_TYPES = {NUMPY_TYPES[t]: t for t in (DataTypes.float, DataTypes.uint, DataTypes.int,
                                           DataTypes.ushort, DataTypes.short, DataTypes.uchar,
                                           DataTypes.char, DataTypes.float16)}


def as_float32(call: str, data) -> tuple[np.ndarray, DataTypes]:
    """``data`` flat as float32, or TypeError naming ``call``."""
    try:
        array = np.asarray(data, dtype=np.float32)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{call}: data must be numbers numpy can convert to float32, got "
                        f"{arguments.type_name(data)} ({error})") from None
    return _flat(array), DataTypes.float


def as_typed(call: str, data, types: dict, what: str) -> tuple[np.ndarray, DataTypes]:
    """``data`` (an ndarray of a dtype in ``types``) flat, with its data type."""
    if not isinstance(data, np.ndarray):
        raise TypeError(f"{call}: data must be a numpy.ndarray (its dtype gives the {what}'s "
                        f"type), got {arguments.type_name(data)}")
    data_type = types.get(data.dtype)
    if data_type is None:
        taken = ", ".join(dtype.name for dtype in types)
        raise RuntimeError(f"{constants.NO_VALID_DTYPE}: {call}: data has dtype {data.dtype}; "
                           f"{what}s take {taken}")
    return _flat(data), data_type


def _flat(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array.ravel())
