"""Python numbers inside shaders: their dtype and their GLSL spelling."""
from __future__ import annotations

import math
import numbers

from vkdispatch import dtypes as dt
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["is_number", "number_to_dtype", "format_literal", "boolean", "literal_fits",
           "cast_literal"]


class boolean(dt._Scalar):
    """Result type of comparisons and logical helpers (GLSL ``bool``); shader-only."""

    name = "bool"
    glsl_type = "bool"
    item_size = 4
    format_str = "%d"


def is_number(value) -> bool:
    """Python ints, floats and numpy scalars count; ``bool`` and complex do not."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _shown(value) -> str:
    """``value`` for an error message (a 400-digit int is cut short)."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} digits)"


def number_to_dtype(value) -> type[dt.dtype]:
    """uint32 for non-negative ints (uint64 above 2**32-1), int32 for negative ones (int64
    below -2**31), float32 for floats. Ints outside [-2**63, 2**64 - 1] raise: GLSL has no
    literal for them."""
    if _is_int(value):
        value = int(value)
        if not -(2**63) <= value <= 2**64 - 1:
            raise InvalidArgumentError(
                f"the integer literal {_shown(value)} fits no shader integer type: literals "
                f"must lie in [{-(2**63)}, {2**64 - 1}] (int64's low end to uint64's high end)")
        if value >= 0:
            return dt.uint32 if value <= 0xFFFFFFFF else dt.uint64
        return dt.int32 if value >= -(2**31) else dt.int64
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return dt.float32
    raise InvalidTypeError(f"expected a Python int or float, got {value!r} "
                           f"({type(value).__name__})")


# Inclusive value ranges of the integer scalars (what a Python int must fit to be stored).
_INT_RANGES = {dt.int16: (-(2**15), 2**15 - 1), dt.uint16: (0, 2**16 - 1),
               dt.int32: (-(2**31), 2**31 - 1), dt.uint32: (0, 2**32 - 1),
               dt.int64: (-(2**63), 2**63 - 1), dt.uint64: (0, 2**64 - 1)}


def literal_fits(value, scalar) -> bool:
    """Whether the Python number ``value`` is representable as ``scalar`` without loss of
    kind: any real into a float type, an in-range int into an integer type."""
    if dt.is_float_dtype(scalar):
        return is_number(value)
    if scalar in _INT_RANGES and _is_int(value):
        low, high = _INT_RANGES[scalar]
        return low <= int(value) <= high
    return False


def _int_range_text(scalar) -> str:
    low, high = _INT_RANGES[scalar]
    return f"[{low}, {high}]"


def _check_cast(value, scalar) -> None:
    """Raises unless converting ``value`` to the integer type ``scalar`` gives that number.

    An int may also be any value of the other signedness of the same width, which GLSL converts
    bit for bit (``uint(-1)`` is 4294967295, as user code of vkdispatch 0.1.0 relies on); a
    float must truncate into the range (GLSL leaves other conversions undefined)."""
    low, high = _INT_RANGES[scalar]
    bits = 8 * scalar.item_size
    if _is_int(value):
        if -(2 ** (bits - 1)) <= int(value) <= 2**bits - 1:
            return
        raise InvalidArgumentError(
            f"{scalar.name}({_shown(value)}): the literal is out of range; expected an int in "
            f"{scalar.name}'s range {_int_range_text(scalar)}, or of the other signedness of "
            f"that width (converted bit for bit): [{-(2 ** (bits - 1))}, {2**bits - 1}] in all")
    number = float(value)
    if not (math.isfinite(number) and low - 1 < number < high + 1):
        raise InvalidArgumentError(
            f"{scalar.name}({_shown(value)}): the float does not convert to {scalar.name}; "
            f"expected a finite number that truncates into {_int_range_text(scalar)}")


def cast_literal(value, scalar) -> str:
    """GLSL text of a Python number given to the constructor of a type of ``scalar``
    components (``vc.to_uint(x)``, ``vc.to_dtype(vd.ivec2, 3, 4)``); raises
    InvalidArgumentError for a number the conversion would not preserve: an int beyond the
    type's width, a float outside its range, NaN or infinity into an integer type, a finite
    number that a float type rounds to infinity."""
    if dt.is_float_dtype(scalar):
        return format_literal(value, scalar)
    if scalar in _INT_RANGES:
        _check_cast(value, scalar)
    return format_literal(value)


# The largest finite value of each float type, and the magnitude from which a number rounds to
# infinity there (the maximum plus half its spacing).
_FLOAT_LIMITS = {dt.float16: (65504.0, 65520.0),
                 dt.float32: (3.4028234663852886e38, 2.0**128 - 2.0**103),
                 dt.float64: (1.7976931348623157e308, math.inf)}


def _float_in_range(value, scalar) -> float:
    """``value`` as a float; raises when it is finite but the float type ``scalar`` would
    round it to infinity (a float literal never becomes infinity silently)."""
    largest, limit = _FLOAT_LIMITS[scalar]
    try:
        number = float(value)
    except OverflowError:  # an int beyond float64
        number = math.inf
    if abs(number) < limit or (math.isinf(number) and not _is_int(value)) or \
            math.isnan(number):
        return number
    raise InvalidArgumentError(f"the literal {_shown(value)} is out of {scalar.name}'s range "
                               f"(magnitudes up to {largest!r}): it would read as infinity; "
                               "use a wider type, or float('inf') if infinity is meant")


# 64-bit literals need a suffix (glslang rejects an unsuffixed literal above 32 bits); uint32
# values above the int range get `u` so they never read as a negative int.
_INT_SUFFIX = {dt.int64: "l", dt.uint64: "ul"}

_INF = {dt.float32: ("uintBitsToFloat(0x7F800000)", "uintBitsToFloat(0xFF800000)"),
        dt.float64: ("packDouble2x32(uvec2(0x00000000u, 0x7FF00000u))",
                     "packDouble2x32(uvec2(0x00000000u, 0xFFF00000u))"),
        dt.float16: ("float16_t(uintBitsToFloat(0x7F800000))",
                     "float16_t(uintBitsToFloat(0xFF800000))")}


def _format_int(value: int, as_type) -> str:
    scalar = as_type if as_type in _INT_RANGES else number_to_dtype(value)
    if scalar in _INT_SUFFIX:
        return f"{value}{_INT_SUFFIX[scalar]}"
    if scalar is dt.uint32 and value > 2**31 - 1:
        return f"{value}u"
    return str(value)


def format_literal(value, as_type: type[dt.dtype] | None = None) -> str:
    """GLSL text of a Python number, optionally spelled as a value of scalar ``as_type``.

    Floats print as their shortest repr plus ``f`` (``1.5f``; ``lf`` for float64, wrapped in
    ``float16_t(...)`` for float16); infinities as bit patterns; NaN as ``(0.0f / 0.0f)``. An
    int printed as a float type becomes a float literal; 64-bit ints get an ``l``/``ul``
    suffix. A finite number that ``as_type`` (a float type) would round to infinity raises
    InvalidArgumentError.
    """
    float_target = as_type is not None and dt.is_float_dtype(as_type)
    if _is_int(value) and not float_target:
        return _format_int(int(value), as_type)
    target = as_type if float_target and dt.is_scalar(as_type) else dt.float32
    value = _float_in_range(value, target) if float_target else float(value)
    if math.isinf(value):
        return _INF[target][0 if value > 0 else 1]
    if math.isnan(value):
        return "(0.0f / 0.0f)"
    text = repr(value)
    if "e" not in text and "." not in text:
        text += ".0"
    if target is dt.float64:
        return text + "lf"
    if target is dt.float16:
        return f"float16_t({text}f)"
    return text + "f"
