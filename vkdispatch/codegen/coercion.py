"""Making GLSL compute the type the DSL promised.

The DSL types an expression by the promotion rules of ``vkdispatch.dtypes``
(``uint32 + int32 -> int32``, ``float16 + float32 -> float32``, ...). GLSL's own
implicit conversions disagree in places (``uint + int`` is ``uint`` in GLSL, ``float16_t + 1``
does not compile, ``pow(vec2, float)`` has no overload), so every operand whose component type
differs from the result's is spelled with an explicit conversion, and every Python literal is
spelled as a value of the result's component type. Operands that already agree are printed
unchanged, which keeps the common case free of casts.
"""
from __future__ import annotations

from vkdispatch import dtypes as dt
from vkdispatch.codegen.literals import boolean, format_literal, literal_fits
from vkdispatch.dtypes import scalar_of
from vkdispatch.errors import InvalidTypeError

__all__ = ["with_scalar", "operand_text", "literal_text", "check_numeric"]


def with_scalar(var_type, scalar):
    """``var_type`` with its components changed to ``scalar`` (the shape is kept)."""
    if dt.is_vector(var_type):
        return dt.to_vector(scalar, var_type.child_count)
    if dt.is_complex(var_type):
        return dt.complex_from_float(dt.make_floating_dtype(scalar))
    if dt.is_matrix(var_type):
        return var_type  # matrices exist only as float32
    return scalar


def check_numeric(operation: str, *types) -> None:
    """Raises if a boolean (a comparison result) is used as a number."""
    for var_type in types:
        if var_type is boolean:
            raise InvalidTypeError(f"{operation} needs numbers, but got a boolean (the result of "
                                   "a comparison); convert it first, e.g. vc.to_int(a < b)")


def literal_text(value, scalar, strict: bool = False) -> str:
    """A Python number spelled so that GLSL reads it as a ``scalar`` operand.

    Small ints stay bare in 32-bit contexts (GLSL converts ``int`` to ``uint``/``float``
    implicitly), which keeps ``(x + 1)`` readable; ``strict`` spells a uint32 as ``1u`` for
    the places where GLSL takes the literal's own type (the left side of a shift). 16-bit
    types have no literal syntax and no implicit conversion from ``int``/``float``, so their
    literals are constructor calls.
    """
    if scalar is boolean:
        return "true" if value else "false"
    if not literal_fits(value, scalar):
        raise InvalidTypeError(f"the literal {value!r} cannot be used as a {scalar.name} value")
    if strict and scalar is dt.uint32:
        return f"{int(value)}u"
    if scalar in (dt.int16, dt.uint16):
        return f"{scalar.glsl_type}({int(value)})"
    if scalar in (dt.float32, dt.float64) and isinstance(value, int) and abs(value) < 2**31:
        return str(value)
    return format_literal(value, scalar)


def operand_text(operand, target, exact: bool = False, float_literal: bool = False) -> str:
    """GLSL text of ``operand`` converted to the components of ``target``.

    With ``exact`` the operand is converted to ``target`` itself, so a scalar becomes a vector
    (for GLSL operations that do not broadcast: comparisons, ``pow``, shifts of a scalar).
    With ``float_literal`` an int literal is spelled as a float (``2.0f``, as divisions read).
    """
    source = operand.var_type
    wanted = target if exact else with_scalar(source, scalar_of(target))
    if operand.is_literal and source is not boolean:
        value = operand.literal_value
        if float_literal and dt.is_float_dtype(scalar_of(target)):
            value = float(value)
        if source is wanted and not isinstance(value, float):
            return operand.name
        text = literal_text(value, scalar_of(target))
        return text if dt.is_scalar(wanted) else f"{wanted.glsl_type}({text})"
    if source is wanted:
        return operand.name
    return f"{wanted.glsl_type}({operand.name})"
