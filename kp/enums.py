"""``kp.DataTypes`` and ``kp.MemoryTypes``: enums that behave like Kompute's (pybind11's) enums.

They are not :class:`enum.Enum`: members have ``name`` and ``value``, convert with ``int()``, are
looked up by value (``kp.DataTypes(3) is kp.DataTypes.float``), list themselves in
``__members__``, and compare equal only to themselves (``kp.DataTypes.float == 3`` is False).
"""
from __future__ import annotations

import operator


class KomputeEnum:
    """Base of the enums; subclasses list their members with :func:`members`."""

    __slots__ = ("_name", "_value")
    __members__: dict
    _by_value: dict

    def __new__(cls, value):
        try:
            return cls._by_value[operator.index(value)]
        except (KeyError, TypeError):
            raise ValueError(f"{value!r} is not a valid {cls.__name__}; the values are "
                             f"{ {m.name: m.value for m in cls._by_value.values()} }") from None

    @property
    def name(self) -> str:
        return self._name

    @property
    def value(self) -> int:
        return self._value

    def __int__(self) -> int:
        return self._value

    __index__ = __int__

    def __eq__(self, other):
        return type(other) is type(self) and other._value == self._value

    def __hash__(self):
        return hash(self._value)

    def __repr__(self):
        return f"<{type(self).__name__}.{self._name}: {self._value}>"

    def __str__(self):
        return f"{type(self).__name__}.{self._name}"

    def __reduce__(self):
        return type(self), (self._value,)


def members(cls, values: dict[str, int]):
    """Creates the members of enum class ``cls`` (attributes named as in ``values``)."""
    cls.__members__ = {}
    cls._by_value = {}
    for name, value in values.items():
        member = object.__new__(cls)
        member._name, member._value = name, value
        setattr(cls, name, member)
        cls.__members__[name] = member
        cls._by_value[value] = member
    return cls


class DataTypes(KomputeEnum):
    """Element type of a tensor or image."""

    __slots__ = ()


class MemoryTypes(KomputeEnum):
    """Where a tensor or image lives: ``device`` (with a host staging copy), ``host``,
    ``storage`` (device only, no host view) or ``deviceAndHost`` (device memory the host maps)."""

    __slots__ = ()


# float16 is not Kompute's (its issue #416 asks for half precision): numpy's float16, GLSL's
# float16_t, C++'s kp::float16.
members(DataTypes, {"bool": 0, "int": 1, "uint": 2, "float": 3, "double": 4, "custom": 5,
                    "short": 6, "ushort": 7, "char": 8, "uchar": 9, "float16": 10})
members(MemoryTypes, {"device": 0, "host": 1, "storage": 2, "deviceAndHost": 3})

# Kompute 0.8-0.9 called the memory types TensorTypes.
TensorTypes = MemoryTypes
