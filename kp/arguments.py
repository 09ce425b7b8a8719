"""Argument checks of the ``kp`` classes: a wrong type is a :class:`TypeError` naming the call,
the argument, what it takes and what it got (Kompute's pybind11 module raises TypeError too)."""
from __future__ import annotations

import operator

from kp.enums import MemoryTypes

UINT32_MAX = 2**32 - 1
UINT64_MAX = 2**64 - 1
INT32_MIN, INT32_MAX = -2**31, 2**31 - 1


def type_name(value) -> str:
    return type(value).__name__


def instance(value, cls, expected: str):
    """``value`` if it is a ``cls``; else TypeError ``"{expected}, got {its type}"``."""
    if not isinstance(value, cls):
        raise TypeError(f"{expected}, got {type_name(value)}")
    return value


def uint32(call: str, name: str, value) -> int:
    """``value`` as a C++ uint32_t: an integer in 0 .. 2**32 - 1."""
    return _integer(call, name, value, 0, UINT32_MAX)


def uint64(call: str, name: str, value) -> int:
    """``value`` as a C++ uint64_t: an integer in 0 .. 2**64 - 1."""
    return _integer(call, name, value, 0, UINT64_MAX)


def int32(call: str, name: str, value) -> int:
    """``value`` as a C++ int32_t: an integer in -2**31 .. 2**31 - 1."""
    return _integer(call, name, value, INT32_MIN, INT32_MAX)


def _integer(call: str, name: str, value, minimum: int, maximum: int) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{call}: {name} must be an int, got bool {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{call}: {name} must be an int, got {type_name(value)} "
                        f"{value!r}") from None
    if not minimum <= number <= maximum:
        raise TypeError(f"{call}: {name} must be an int in {minimum} .. {maximum}, got {number}")
    return number


def uint32_list(call: str, name: str, values, length: int | None = None) -> list[int]:
    """A sequence of uint32 values (of ``length`` entries when given)."""
    return _integer_list(call, name, values, uint32, length)


def int32_list(call: str, name: str, values) -> list[int]:
    """A sequence of int32 values."""
    return _integer_list(call, name, values, int32, None)


def _integer_list(call: str, name: str, values, convert, length: int | None) -> list[int]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"{call}: {name} must be a list of ints, got {type_name(values)}")
    if length is not None and len(values) != length:
        raise TypeError(f"{call}: {name} must have {length} entries, got {len(values)}: "
                        f"{list(values)!r}")
    return [convert(call, f"{name}[{i}]", v) for i, v in enumerate(values)]


def memory_type(call: str, memory_type_arg, tensor_type_arg) -> MemoryTypes:
    """The memory type from ``memory_type=`` or its Kompute 0.8-0.9 name ``tensor_type=``."""
    if tensor_type_arg is not None:
        if memory_type_arg is not None:
            raise TypeError(f"{call}: give memory_type or its old name tensor_type, not both")
        memory_type_arg = tensor_type_arg
    if memory_type_arg is None:
        return MemoryTypes.device
    if not isinstance(memory_type_arg, MemoryTypes):
        raise TypeError(f"{call}: memory_type must be a kp.MemoryTypes member (kp.device, "
                        f"kp.host, kp.storage, kp.deviceAndHost), got "
                        f"{type_name(memory_type_arg)} {memory_type_arg!r}")
    return memory_type_arg


def memory_list(call: str, name: str, objects) -> list:
    """A list of kp.Tensor / kp.Image objects."""
    from kp.memory import Memory

    if isinstance(objects, Memory) or not isinstance(objects, (list, tuple)):
        raise TypeError(f"{call}: {name} must be a list of kp.Tensor or kp.Image objects, got "
                        f"{type_name(objects)}")
    for i, item in enumerate(objects):
        if not isinstance(item, Memory):
            raise TypeError(f"{call}: {name}[{i}] must be a kp.Tensor or kp.Image, got "
                            f"{type_name(item)}")
    return list(objects)
