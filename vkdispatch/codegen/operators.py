"""Python operators on shader values: arithmetic, comparisons, bitwise and in-place forms.

Result types follow the promotion rules of ``vkdispatch.dtypes`` (docs/shaders.rst, "The DSL");
``coercion.py`` spells the operands so that GLSL computes that same type. Python literals are
typed by ``number_to_dtype`` in expressions; in-place operators accept any literal that fits
the target (``h += 1`` on a float16 register works, ``i += 1.5`` on an int raises).
"""
from __future__ import annotations

import numbers

from vkdispatch import dtypes as dt
from vkdispatch.codegen.coercion import check_numeric, literal_text, operand_text, with_scalar
from vkdispatch.codegen.literals import boolean, is_number, literal_fits
from vkdispatch.dtypes import scalar_of
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["ArithmeticMixin"]

_UNSIGNED = (dt.uint16, dt.uint32, dt.uint64)


def _power_of_two(value) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
            and value & (value - 1) == 0:
        return value.bit_length() - 1
    return None


def _floor_quotient(a: str, b: str, var_type) -> str:
    """GLSL of Python's ``a // b`` for signed integers (scalars or vectors of ``var_type``):
    GLSL's ``/`` truncates toward zero, so a quotient whose remainder is not zero and whose
    operands differ in sign is one less."""
    t, q = var_type.glsl_type, f"({a} / {b})"
    if dt.is_scalar(var_type):
        return f"({q} - {t}(({q} * {b} != {a}) && (({a} ^ {b}) < {t}(0))))"
    return f"({q} - {t}(notEqual({q} * {b}, {a})) * {t}(lessThan({a} ^ {b}, {t}(0))))"


def _floor_remainder(a: str, b: str, var_type) -> str:
    """GLSL of Python's ``a % b`` for signed integers: the sign of ``b`` (GLSL's ``%`` is
    undefined for negative operands). From the truncated remainder, plus ``b`` where that
    remainder is not zero and differs from ``b`` in sign."""
    t, r = var_type.glsl_type, f"({a} - ({a} / {b}) * {b})"
    if dt.is_scalar(var_type):
        return f"({r} + {b} * {t}(({r} != {t}(0)) && (({r} ^ {b}) < {t}(0))))"
    return (f"({r} + {b} * {t}(notEqual({r}, {t}(0))) * "
            f"{t}(lessThan({r} ^ {b}, {t}(0))))")


def _is_integer(var_type) -> bool:
    return var_type is not boolean and dt.is_integer_dtype(var_type)


def _is_int_literal(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def pow_text(base, exponent, result) -> str:
    """``pow(base, exponent)`` computing ``result``; GLSL has no double ``pow``, so float64 is
    evaluated in float32 (as vkdispatch 0.1.0 does for every transcendental function)."""
    if scalar_of(result) is dt.float64:
        narrow = with_scalar(result, dt.float32)
        return (f"{result.glsl_type}(pow({operand_text(base, narrow, True, True)}, "
                f"{operand_text(exponent, narrow, True, True)}))")
    return (f"pow({operand_text(base, result, True, True)}, "
            f"{operand_text(exponent, result, True, True)})")


class ArithmeticMixin:
    """Operators of :class:`~vkdispatch.codegen.variables.ShaderVariable`.

    Relies on the variable's ``var_type``/``name``/``settable`` and its hooks ``_operand``
    (Python value -> shader value), ``_literal`` (a typed constant), ``_derived`` (new
    expression) and ``_emit_update``.
    """

    # -- helpers -------------------------------------------------------------------------------

    def _promote(self, other, operation: str, combine=dt.cross_type):
        self._operand(self)
        check_numeric(operation, self.var_type, other.var_type)
        return combine(self.var_type, other.var_type)

    def _binary(self, other, symbol: str, result, reverse: bool = False,
                exact_left: bool = False, float_literals: bool = False):
        left, right = (other, self) if reverse else (self, other)
        text = (f"({operand_text(left, result, exact_left, float_literals)} {symbol} "
                f"{operand_text(right, result, False, float_literals)})")
        return self._derived(result, text, left, right)

    def _require_integer(self, other, message: str):
        other = self._operand(other)
        for operand in (self, other):
            if not _is_integer(operand.var_type):
                raise InvalidTypeError(f"{message}, but '{operand.name}' is of type "
                                       f"'{operand.var_type.name}'")
        return other

    # -- arithmetic ----------------------------------------------------------------------------

    def _additive(self, other, symbol: str, reverse: bool = False):
        other = self._operand(other)
        result = self._promote(other, f"'{symbol}'")
        if other.is_literal and other.literal_value == 0 and _is_integer(result) \
                and result is self.var_type and not (reverse and symbol == "-"):
            return self  # x + 0, 0 + x, x - 0 (integers: index arithmetic)
        return self._binary(other, symbol, result, reverse)

    def __add__(self, other):
        return self._additive(other, "+")

    def __radd__(self, other):
        return self._additive(other, "+", reverse=True)

    def __sub__(self, other):
        return self._additive(other, "-")

    def __rsub__(self, other):
        return self._additive(other, "-", reverse=True)

    def _multiply(self, other, reverse: bool = False):
        other = self._operand(other)
        self._operand(self)
        a, b = self.var_type, other.var_type
        check_numeric("'*'", a, b)
        if dt.is_complex(a) and dt.is_complex(b):
            raise InvalidArgumentError("Complex multiplication is not supported via the * "
                                       "operator. Use vc.mult_complex(a, b).")
        if dt.is_matrix(a) and dt.is_matrix(b):
            raise InvalidArgumentError("Matrix multiplication is not supported via the * "
                                       "operator. Use @ operator instead.")
        result = dt.cross_multiply_type(*((b, a) if reverse else (a, b)))
        if other.is_literal and result is a:
            if other.literal_value == 1:
                return self
            if other.literal_value == 0 and _is_integer(a) and dt.is_scalar(a):
                return self._literal(0, a)  # integers only: a float times 0 may be NaN
            shift = _power_of_two(other.literal_value)
            if shift is not None and _is_integer(a):
                return self._derived(a, f"({self.name} << {shift})", self)
        return self._binary(other, "*", result, reverse)

    def __mul__(self, other):
        return self._multiply(other)

    def __rmul__(self, other):
        return self._multiply(other, reverse=True)

    def __matmul__(self, other):
        other = self._operand(other)
        if not (dt.is_matrix(self.var_type) or dt.is_matrix(other.var_type)):
            raise InvalidTypeError(f"'@' needs a matrix operand, got {self.var_type.name} and "
                                   f"{other.var_type.name}")
        result = self._promote(other, "'@'", dt.cross_multiply_type)
        return self._binary(other, "*", result)

    def _divide(self, other, reverse: bool = False):
        other = self._operand(other)
        a, b = self.var_type, other.var_type
        check_numeric("'/'", a, b)
        if (dt.is_complex(a) and dt.is_complex(b)) or (dt.is_matrix(a) and dt.is_matrix(b)):
            raise InvalidArgumentError(f"cannot divide {a.name} by {b.name} with '/'"
                                       + ("; multiply by the conjugate with vc.mult_complex"
                                          if dt.is_complex(a) else ""))
        result = dt.make_floating_dtype(self._promote(other, "'/'"))
        return self._binary(other, "/", result, reverse, float_literals=True)

    def __truediv__(self, other):
        return self._divide(other)

    def __rtruediv__(self, other):
        return self._divide(other, reverse=True)

    def _floor_divide(self, other, reverse: bool = False):
        other = self._require_integer(other, "Floor division is only supported for integer "
                                             "types (use vc.floor(a / b) for floats)")
        result = self._promote(other, "'//'")
        if other.is_literal and not reverse:
            if other.literal_value == 1 and result is self.var_type:
                return self
            shift = _power_of_two(other.literal_value)
            if shift is not None:  # an arithmetic shift floors, as Python does
                return self._derived(result, f"({operand_text(self, result)} >> {shift})", self)
        return self._python_rounding(other, "/", _floor_quotient, result, reverse)

    def _python_rounding(self, other, symbol: str, signed_text, result, reverse: bool):
        """``self symbol other`` with Python's flooring: GLSL's own operator where the type is
        unsigned (they agree there), ``signed_text`` otherwise."""
        if scalar_of(result) in _UNSIGNED:
            return self._binary(other, symbol, result, reverse)
        left, right = (other, self) if reverse else (self, other)
        return self._derived(result, signed_text(operand_text(left, result, True),
                                                 operand_text(right, result, True), result),
                             left, right)

    def __floordiv__(self, other):
        return self._floor_divide(other)

    def __rfloordiv__(self, other):
        return self._floor_divide(other, reverse=True)

    def _modulus(self, other, reverse: bool = False):
        other = self._require_integer(other, "Modulus is only supported for integer types "
                                             "(use vc.mod(a, b) for floats)")
        result = self._promote(other, "'%'")
        shift = _power_of_two(other.literal_value) if other.is_literal else None
        if shift is not None and not reverse:  # two's complement: Python's % of a power of 2
            mask = literal_text((1 << shift) - 1, scalar_of(result), strict=True)
            return self._derived(result, f"({operand_text(self, result)} & {mask})", self)
        return self._python_rounding(other, "%", _floor_remainder, result, reverse)

    def __mod__(self, other):
        return self._modulus(other)

    def __rmod__(self, other):
        return self._modulus(other, reverse=True)

    def _typed_one(self):
        return self._derived(self.var_type, f"{self.var_type.glsl_type}(1)", self)

    def __pow__(self, exponent):
        self._operand(self)
        check_numeric("'**'", self.var_type)
        if dt.is_complex(self.var_type) or dt.is_matrix(self.var_type):
            raise InvalidTypeError(f"'**' is element-wise and not defined for "
                                   f"{self.var_type.name} values; use vc.mult_complex or "
                                   "explicit products")
        if _is_int_literal(exponent) and abs(int(exponent)) <= 4:
            count = abs(int(exponent))
            if count == 0:
                return self._typed_one()
            # Small integer powers are products: exact for integers, cheaper than pow().
            product = self if count == 1 else self._derived(
                self.var_type, "(" + " * ".join([self.name] * count) + ")", self)
            if exponent > 0:
                return product
            floating = dt.make_floating_dtype(self.var_type)
            return self._derived(floating, f"({literal_text(1.0, scalar_of(floating))} / "
                                           f"{operand_text(product, floating)})", self)
        exponent = self._operand(exponent)
        result = dt.make_floating_dtype(self._promote(exponent, "'**'"))
        return self._derived(result, pow_text(self, exponent, result), self, exponent)

    def __rpow__(self, base):
        return self._operand(base).__pow__(self)

    def __neg__(self):
        self._operand(self)
        check_numeric("unary '-'", self.var_type)
        return self._derived(self.var_type, f"(-{self.name})", self)

    def __pos__(self):
        return self

    def __abs__(self):
        self._operand(self)
        check_numeric("abs()", self.var_type)
        if scalar_of(self.var_type) in _UNSIGNED:
            return self  # GLSL has no abs() of unsigned types; it is the identity anyway
        return self._derived(self.var_type, f"abs({self.name})", self)

    # -- bitwise -------------------------------------------------------------------------------

    def _bitwise(self, other, symbol: str, reverse: bool = False):
        other = self._require_integer(other, "Bitwise operations are only supported on "
                                             "integer types")
        result = self._promote(other, f"'{symbol}'")
        left, right = (other, self) if reverse else (self, other)
        if symbol not in ("<<", ">>"):
            return self._binary(other, symbol, result, reverse)
        # A shift has the type of its left operand and GLSL cannot shift a scalar by a
        # vector: the left side is spelled as the full result type.
        if left.is_literal:
            text = literal_text(left.literal_value, scalar_of(result), strict=True)
            left_text = text if dt.is_scalar(result) else f"{result.glsl_type}({text})"
        else:
            left_text = operand_text(left, result, exact=True)
        return self._derived(result, f"({left_text} {symbol} {operand_text(right, result)})",
                             left, right)

    def __and__(self, other):
        return self._bitwise(other, "&")

    def __rand__(self, other):
        return self._bitwise(other, "&", True)

    def __or__(self, other):
        return self._bitwise(other, "|")

    def __ror__(self, other):
        return self._bitwise(other, "|", True)

    def __xor__(self, other):
        return self._bitwise(other, "^")

    def __rxor__(self, other):
        return self._bitwise(other, "^", True)

    def __lshift__(self, other):
        return self._bitwise(other, "<<")

    def __rlshift__(self, other):
        return self._bitwise(other, "<<", True)

    def __rshift__(self, other):
        return self._bitwise(other, ">>")

    def __rrshift__(self, other):
        return self._bitwise(other, ">>", True)

    def __invert__(self):
        self._require_integer(self, "Bitwise operations are only supported on integer types")
        return self._derived(self.var_type, f"(~{self.name})", self)

    # -- comparisons ---------------------------------------------------------------------------

    def _compare(self, other, symbol: str):
        other = self._operand(other)
        self._operand(self)
        a, b = self.var_type, other.var_type
        if a is boolean and b is boolean and symbol in ("==", "!="):
            common = boolean
        else:
            common = self._promote(other, f"'{symbol}'")
            if symbol not in ("==", "!=") and not dt.is_scalar(common):
                raise InvalidTypeError(
                    f"'{symbol}' compares scalars only, but got {a.name} and {b.name}; compare "
                    "components (v.x < w.x) and combine them with vc.all(...)/vc.any(...)")
        text = f"({operand_text(self, common, True)} {symbol} {operand_text(other, common, True)})"
        return self._derived(boolean, text, self, other)

    def __lt__(self, other):
        return self._compare(other, "<")

    def __le__(self, other):
        return self._compare(other, "<=")

    def __gt__(self, other):
        return self._compare(other, ">")

    def __ge__(self, other):
        return self._compare(other, ">=")

    def __eq__(self, other):  # type: ignore[override]
        return self._compare(other, "==")

    def __ne__(self, other):  # type: ignore[override]
        return self._compare(other, "!=")

    # -- in-place operators --------------------------------------------------------------------

    def _inplace(self, other, symbol: str, combine, integer_only: str | None = None):
        self._operand(self)
        if not self.settable:
            raise InvalidArgumentError(
                f"In-place '{symbol}=' needs a settable variable, but '{self.name}' is an "
                "expression or argument; materialize it first with .to_register()")
        if integer_only is not None:
            self._require_integer(other, integer_only)
        target = self.var_type
        if is_number(other):
            # A literal only has to fit the target: `h += 1` on float16 or `u16 &= 3` are fine.
            if not literal_fits(other, scalar_of(target)):
                raise InvalidTypeError(
                    "Inplace arithmetic requires the result type to match the variable type, "
                    f"but the literal {other!r} is not a {scalar_of(target).name} value "
                    f"('{self.name}' is {target.name})")
            text = literal_text(other, scalar_of(target))
        else:
            other = self._operand(other)
            result = self._promote(other, f"'{symbol}='", combine)
            if result is not target:
                raise InvalidTypeError(
                    "Inplace arithmetic requires the result type to match the variable type, "
                    f"but got '{result.name}' and '{target.name}' respectively.")
            text = operand_text(other, target)
        self._emit_update(f"{self.name} {symbol}= {text};", other)
        return self

    def __iadd__(self, other):
        return self._inplace(other, "+", dt.cross_type)

    def __isub__(self, other):
        return self._inplace(other, "-", dt.cross_type)

    def __imul__(self, other):
        if dt.is_complex(self.var_type) and isinstance(other, ArithmeticMixin) \
                and dt.is_complex(other.var_type):
            raise InvalidArgumentError("Complex multiplication is not supported via *=; use "
                                       "x[:] = vc.mult_complex(x, y)")
        return self._inplace(other, "*", dt.cross_multiply_type)

    def __itruediv__(self, other):
        if _is_integer(self.var_type):
            raise InvalidArgumentError("Inplace true division is not supported for integer "
                                       f"types ('{self.name}' is {self.var_type.name}); use "
                                       "//= for integer division")
        return self._inplace(other, "/", lambda a, b: dt.make_floating_dtype(dt.cross_type(a, b)))

    def __ifloordiv__(self, other):
        if scalar_of(self.var_type) in _UNSIGNED:
            return self._inplace(other, "/", dt.cross_type,
                                 "Floor division is only supported for integer types")
        return self._inplace_result(self // other)

    def __imod__(self, other):
        if scalar_of(self.var_type) in _UNSIGNED:
            return self._inplace(other, "%", dt.cross_type,
                                 "Modulus is only supported for integer types")
        return self._inplace_result(self % other)

    def _inplace_result(self, result):
        """``self`` set to ``result``, an operation no GLSL compound assignment has (``**=``,
        and ``//=``/``%=`` of a signed integer with Python's flooring)."""
        if result.var_type is not self.var_type:
            raise InvalidTypeError(
                "Inplace arithmetic requires the result type to match the variable type, but "
                f"got '{result.var_type.name}' and '{self.var_type.name}' respectively.")
        self.set_value(result)
        return self

    def __ipow__(self, other):
        return self._inplace_result(self ** other)

    def _inplace_bitwise(self, other, symbol: str):
        return self._inplace(other, symbol, dt.cross_type,
                             "Bitwise operations are only supported on integer types")

    def __iand__(self, other):
        return self._inplace_bitwise(other, "&")

    def __ior__(self, other):
        return self._inplace_bitwise(other, "|")

    def __ixor__(self, other):
        return self._inplace_bitwise(other, "^")

    def __ilshift__(self, other):
        return self._inplace_bitwise(other, "<<")

    def __irshift__(self, other):
        return self._inplace_bitwise(other, ">>")
