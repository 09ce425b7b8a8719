"""Host-side packing of uniform and push-constant blocks.

The generated blocks use the GLSL ``scalar`` layout with members ordered so that each falls on
its natural alignment; the host bytes are therefore the members' values back to back. A
:class:`BlockPacker` compiles one block's layout into a ``struct`` format once, so packing a
call's values costs one ``struct.pack``.
"""
from __future__ import annotations

import math
import numbers
import struct

import numpy as np

from vkdispatch import dtypes as dt
from vkdispatch.errors import InvalidArgumentError

__all__ = ["BlockPacker", "field_bytes", "packer_for"]

_CODES = {"int16": "h", "uint16": "H", "int32": "i", "uint32": "I", "int64": "q",
          "uint64": "Q", "float16": "e", "float32": "f", "float64": "d", "bool": "I"}


def _value_count(element) -> int:
    """Host scalars one member holds (complex numbers count as two)."""
    per_element = math.prod(element.dtype.numpy_shape) * (2 if dt.is_complex(element.dtype)
                                                          else 1)
    return per_element * element.count


def _flatten(element, value, what: str) -> list:
    count = _value_count(element)
    if value is None:
        return [0] * count
    if count == 1 and isinstance(value, numbers.Real) and not isinstance(value, bool):
        return [value]
    if dt.is_complex(element.dtype):
        values = np.asarray(value, dtype=np.complex128).reshape(-1)
        flat = np.stack([values.real, values.imag], axis=-1).reshape(-1)
    else:
        flat = np.asarray(value).reshape(-1)
        if flat.dtype.kind == "c":
            raise InvalidArgumentError(f"{what}: complex value for a {element.dtype.name}")
        if flat.dtype.kind not in "biuf":
            raise InvalidArgumentError(f"{what}: expected numbers for a {element.dtype.name}, "
                                       f"got {value!r}")
    if flat.size != count:
        raise InvalidArgumentError(f"{what}: a {element.dtype.name} needs {count} value(s), got "
                                   f"{flat.size} ({value!r})")
    return flat.tolist()


class BlockPacker:
    """Packs the members of one block (StructElements in block order) into bytes."""

    def __init__(self, structure):
        self.structure = list(structure)
        self.names = [e.name for e in self.structure]
        # per member: (element, scalar count, whether plain numbers can be packed as given)
        self.fields = [(e, _value_count(e), not dt.is_complex(e.dtype)) for e in self.structure]
        self.format = struct.Struct("<" + "".join(
            _CODES[dt.scalar_of(e.dtype).name] * _value_count(e) for e in self.structure))
        self.size = self.format.size

    def pack(self, values: dict, what: str) -> bytes:
        """The block's bytes; ``values`` maps every member name to its value."""
        try:
            ordered = [values[name] for name in self.names]
        except KeyError as error:
            raise InvalidArgumentError(f"{what}: no value for member "
                                       f"'{error.args[0]}'") from None
        return self.pack_ordered(ordered, what)

    def pack_ordered(self, values, what: str, labels=None) -> bytes:
        """The block's bytes from one value per member, in block order. ``labels`` name the
        members in error messages (default: their block names)."""
        if labels is None:
            labels = [f"'{name}'" for name in self.names]
        flat = []
        for (element, count, plain), value, label in zip(self.fields, values, labels):
            kind = type(value)
            if plain and count == 1 and (kind is float or kind is int):
                flat.append(value)  # the common cases first: no numpy, no checks to repeat
            elif plain and (kind is tuple or kind is list) and len(value) == count and \
                    all(type(v) is int or type(v) is float for v in value):
                flat += value
            else:
                flat += _flatten(element, value, f"{what} {label}")
        try:
            return self.format.pack(*flat)
        except (struct.error, OverflowError) as error:
            self._raise_for_range(values, what, labels)
            raise InvalidArgumentError(f"{what}: {error}") from None

    def _raise_for_range(self, values, what: str, labels) -> None:
        """Raises for the first member whose value its type cannot hold."""
        for element, value, label in zip(self.structure, values, labels):
            single = BlockPacker([element])
            try:
                single.format.pack(*_flatten(element, value, label))
            except (struct.error, OverflowError) as error:
                raise InvalidArgumentError(
                    f"{what} {label}: {value!r:.60} does not fit a {element.dtype.name} "
                    f"({error})") from None


def packer_for(description, attribute: str) -> BlockPacker:
    """The cached packer of a description's ``uniform_structure`` or ``pc_structure``."""
    key = f"_{attribute}_packer"
    packer = description.__dict__.get(key)
    if packer is None:
        packer = BlockPacker(getattr(description, attribute))
        description.__dict__[key] = packer
    return packer


def field_bytes(element, value, what: str) -> bytes:
    """The bytes of one member holding ``value`` (None gives zeros)."""
    return BlockPacker([element]).pack({element.name: value}, what)
