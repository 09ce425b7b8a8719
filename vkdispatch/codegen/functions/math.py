"""Math built-ins: common, trigonometric, exponential, geometric, matrix and complex.

With only Python numbers as arguments a function is evaluated in Python (constant folding);
otherwise it emits the GLSL call. The arguments are promoted to one type (Python literals adopt
the shader arguments' type when they fit) and converted explicitly where GLSL would not, so the
GLSL call always exists and returns the labelled type. Results are the floating counterpart of
that type, except where GLSL says otherwise: ``dot``/``length``/``distance`` are scalars,
``min``/``max``/``clamp``/``abs`` keep integer types, ``isnan``/``isinf`` are booleans. GLSL has
no double-precision transcendental functions, so float64 arguments of those are evaluated in
float32 (``double(sin(float(x)))``), as vkdispatch 0.1.0 does.
"""
from __future__ import annotations

import builtins
import functools
import math as pymath

from vkdispatch import dtypes as dt
from vkdispatch.codegen.coercion import check_numeric, operand_text, with_scalar
from vkdispatch.codegen.literals import boolean, is_number, literal_fits, number_to_dtype
from vkdispatch.codegen.variables import ShaderVariable, as_variable, builder_for, constructor
from vkdispatch.dtypes import scalar_of
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["abs", "sign", "floor", "ceil", "trunc", "round", "round_even", "fract", "mod",
           "modf", "min", "max", "clip", "clamp", "mix", "step", "smoothstep", "isnan", "isinf",
           "float_bits_to_int", "float_bits_to_uint", "int_bits_to_float", "uint_bits_to_float",
           "fma", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
           "asinh", "acosh", "atanh", "radians", "degrees", "exp", "exp2", "log", "log2", "pow",
           "sqrt", "inversesqrt", "length", "distance", "dot", "cross", "normalize",
           "matrix_comp_mult", "outer_product", "transpose", "determinant", "inverse",
           "complex_from_euler_angle", "mult_complex"]

_UNSIGNED = (dt.uint16, dt.uint32, dt.uint64)


def _all_numbers(args) -> bool:
    return builtins.all(is_number(a) for a in args)


def _variables(function: str, args) -> list[ShaderVariable]:
    out = []
    for arg in args:
        if not (isinstance(arg, ShaderVariable) or is_number(arg)):
            raise InvalidArgumentError(f"{function}: arguments must be shader values or Python "
                                       f"numbers, got {arg!r}")
        out.append(as_variable(arg, f"{function} argument"))
    return out


def _common_type(function: str, variables: list[ShaderVariable], args):
    """The promoted type of the shader arguments, widened for literals that do not fit it
    (``min(i, 2.5)`` is float, ``min(u, -1)`` int)."""
    check_numeric(function, *(v.var_type for v in variables))
    shader_types = [v.var_type for v, a in zip(variables, args) if isinstance(a, ShaderVariable)]
    common = functools.reduce(dt.cross_type, shader_types)
    for arg in args:
        if not isinstance(arg, ShaderVariable) and not literal_fits(arg, scalar_of(common)):
            common = dt.cross_type(common, number_to_dtype(arg))
    return common


def _call(glsl: str, variables, operand_type, result_type, scalar_ok=(),
          narrow_doubles: bool = False) -> ShaderVariable:
    """``glsl(args)`` with every argument converted to ``operand_type`` (positions in
    ``scalar_ok`` may stay scalars, as GLSL allows there)."""
    wrap = None
    if narrow_doubles and scalar_of(operand_type) is dt.float64:
        wrap, operand_type = result_type, with_scalar(operand_type, dt.float32)
    float_literals = dt.is_float_dtype(operand_type)
    texts = [operand_text(v, operand_type, i not in scalar_ok, float_literals)
             for i, v in enumerate(variables)]
    builder_for(*variables).use_type(result_type)
    text = f"{glsl}({', '.join(texts)})"
    if wrap is not None:
        text = f"{wrap.glsl_type}({text})"
    return ShaderVariable(result_type, text, lexical=True)


def _function(glsl: str, python=None, *, arity: int = 1, operand=dt.make_floating_dtype,
              result=None, scalar_ok=(), narrow_doubles: bool = False, doc: str = "",
              name: str = ""):
    """A built-in ``glsl(args...)`` of ``arity`` arguments: ``operand(common type)`` is what
    the arguments are converted to and ``result(operand type)`` the result's type (default:
    the same)."""

    def function(*args):
        if len(args) != arity:
            raise InvalidArgumentError(f"vc.{function.__name__} takes {arity} argument"
                                       f"{'s' if arity > 1 else ''}, got {len(args)}")
        if python is not None and _all_numbers(args):
            return python(*args)
        variables = _variables(glsl, args)
        operand_type = operand(_common_type(glsl, variables, args))
        result_type = result(operand_type) if result is not None else operand_type
        return _call(glsl, variables, operand_type, result_type, scalar_ok, narrow_doubles)

    function.__name__ = name or glsl
    function.__doc__ = doc or f"GLSL ``{glsl}`` (evaluated in Python for Python numbers)."
    return function


def _keep(var_type):
    return var_type


def _scalar_result(var_type):
    return scalar_of(var_type)


def _boolean_result(var_type):
    if not dt.is_scalar(var_type):
        raise InvalidTypeError(f"the test gives a boolean vector for {var_type.name} arguments, "
                               "which shaders cannot hold; test each component")
    return boolean


def _components(scalar):
    return lambda var_type: with_scalar(var_type, scalar)


def abs(x):  # noqa: A001 - the DSL's name
    """``abs(x)``, keeping the type of ``x`` (Python numbers: the builtin abs)."""
    if is_number(x):
        return builtins.abs(x)
    return builtins.abs(as_variable(x, "abs argument"))


sign = _function("sign", lambda x: float((x > 0) - (x < 0)))
floor = _function("floor", pymath.floor)
ceil = _function("ceil", pymath.ceil)
trunc = _function("trunc", pymath.trunc)
round = _function("round", builtins.round)  # noqa: A001
round_even = _function("roundEven", builtins.round, name="round_even")
fract = _function("fract", lambda x: x - pymath.floor(x))
def _extremum(glsl: str, python):
    """``min`` or ``max``, folding ``f(a, f(a, b))`` (in any operand order) into ``f(a, b)``
    when ``a`` is the same expression and type: the same value in fewer operations, and the
    nested integer form ``min(x, min(x, -x))`` is miscompiled by NVIDIA's Vulkan driver
    (H200, 2026-11: it returned x)."""
    plain = _function(glsl, python, arity=2, operand=_keep, scalar_ok=(1,))

    def function(*args):
        if len(args) == 2:
            for outer, inner in (args, args[::-1]):
                operands = getattr(inner, "_extremum_of", None)
                if operands is not None and operands[0] == glsl and \
                        isinstance(outer, ShaderVariable) and outer.name in operands[1:] and \
                        outer.var_type is inner.var_type:
                    return inner
        result = plain(*args)
        if isinstance(result, ShaderVariable):
            names = [a.name if isinstance(a, ShaderVariable) else None for a in args]
            object.__setattr__(result, "_extremum_of", (glsl, *names))
        return result

    function.__name__ = glsl
    function.__doc__ = f"GLSL ``{glsl}`` (evaluated in Python for Python numbers)."
    return function


min = _extremum("min", builtins.min)  # noqa: A001
max = _extremum("max", builtins.max)  # noqa: A001
clamp = _function("clamp", lambda x, lo, hi: builtins.min(builtins.max(x, lo), hi),
                  arity=3, operand=_keep, scalar_ok=(1, 2))
clip = clamp
mix = _function("mix", lambda x, y, a: x * (1 - a) + y * a, arity=3, scalar_ok=(2,))
step = _function("step", lambda edge, x: 0.0 if x < edge else 1.0, arity=2,
                 scalar_ok=(0,))
smoothstep = _function(
    "smoothstep",
    lambda e0, e1, x: (lambda t: t * t * (3 - 2 * t))(builtins.min(builtins.max(
        (x - e0) / (e1 - e0), 0.0), 1.0)), arity=3, scalar_ok=(0, 1))
isnan = _function("isnan", pymath.isnan, result=_boolean_result)
isinf = _function("isinf", pymath.isinf, result=_boolean_result)
float_bits_to_int = _function("floatBitsToInt", operand=_components(dt.float32),
                               result=_components(dt.int32), name="float_bits_to_int")
float_bits_to_uint = _function("floatBitsToUint", operand=_components(dt.float32),
                                result=_components(dt.uint32), name="float_bits_to_uint")
int_bits_to_float = _function("intBitsToFloat", operand=_components(dt.int32),
                               result=_components(dt.float32), name="int_bits_to_float")
uint_bits_to_float = _function("uintBitsToFloat", operand=_components(dt.uint32),
                                result=_components(dt.float32), name="uint_bits_to_float")
fma = _function("fma", lambda a, b, c: a * b + c, arity=3)
mod = _function("mod", lambda x, y: x - y * pymath.floor(x / y), arity=2, scalar_ok=(1,),
                doc="GLSL ``mod(x, y)``: the floored remainder ``x - y * floor(x / y)``.")


def modf(x, y=None):
    """``(fractional part, whole part)`` of ``x``, both with the sign of ``x`` (``y`` is
    accepted for compatibility and ignored)."""
    if is_number(x):
        return pymath.modf(x)
    whole = trunc(x)
    return as_variable(x, "modf argument") - whole, whole


_TRIG = {"sin": pymath.sin, "cos": pymath.cos, "tan": pymath.tan, "asin": pymath.asin,
         "acos": pymath.acos, "atan": pymath.atan, "sinh": pymath.sinh, "cosh": pymath.cosh,
         "tanh": pymath.tanh, "asinh": pymath.asinh, "acosh": pymath.acosh,
         "atanh": pymath.atanh, "radians": pymath.radians, "degrees": pymath.degrees,
         "exp": pymath.exp, "exp2": lambda x: 2.0 ** x, "log": pymath.log, "log2": pymath.log2}
sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, radians, degrees, \
    exp, exp2, log, log2 = (_function(name, fn, narrow_doubles=True)
                            for name, fn in _TRIG.items())
atan2 = _function("atan", pymath.atan2, arity=2, narrow_doubles=True, name="atan2",
                  doc="``atan(y, x)``: the angle of the point (x, y).")
pow = _function("pow", builtins.pow, arity=2, narrow_doubles=True)  # noqa: A001
sqrt = _function("sqrt", pymath.sqrt)
inversesqrt = _function("inversesqrt", lambda x: 1.0 / pymath.sqrt(x))

length = _function("length", builtins.abs, result=_scalar_result)
distance = _function("distance", lambda a, b: builtins.abs(a - b), arity=2,
                     result=_scalar_result)
dot = _function("dot", lambda a, b: a * b, arity=2, result=_scalar_result)
normalize = _function("normalize", lambda x: 1.0 if x > 0 else -1.0)


def cross(x, y) -> ShaderVariable:
    """``cross(x, y)`` of two vec3 values."""
    variables = _variables("cross", [x, y])
    if builtins.any(v.var_type is not dt.vec3 for v in variables):
        raise InvalidArgumentError("cross needs two vec3 values, got "
                                   + ", ".join(v.var_type.name for v in variables))
    return _call("cross", variables, dt.vec3, dt.vec3)


def _matrices(function: str, args) -> list[ShaderVariable]:
    variables = _variables(function, args)
    for v in variables:
        if not dt.is_matrix(v.var_type):
            raise InvalidArgumentError(f"{function} needs matrices, got {v.var_type.name}")
    if len({v.var_type for v in variables}) != 1:
        raise InvalidArgumentError(f"{function} needs matrices of one type")
    return variables


def matrix_comp_mult(a, b) -> ShaderVariable:
    """Component-wise product of two matrices of one type."""
    variables = _matrices("matrix_comp_mult", [a, b])
    return _call("matrixCompMult", variables, variables[0].var_type, variables[0].var_type)


def outer_product(u, v) -> ShaderVariable:
    """``outerProduct(u, v)`` of two float vectors of one size: a square matrix."""
    variables = _variables("outer_product", [u, v])
    vector = variables[0].var_type
    if vector not in (dt.vec2, dt.vec3, dt.vec4) or variables[1].var_type is not vector:
        raise InvalidArgumentError("outer_product needs two vec2, vec3 or vec4 of one type")
    matrix = {dt.vec2: dt.mat2, dt.vec3: dt.mat3, dt.vec4: dt.mat4}[vector]
    return _call("outerProduct", variables, vector, matrix)


def transpose(m) -> ShaderVariable:
    """``transpose(m)``."""
    variables = _matrices("transpose", [m])
    return _call("transpose", variables, variables[0].var_type, variables[0].var_type)


def inverse(m) -> ShaderVariable:
    """``inverse(m)``."""
    variables = _matrices("inverse", [m])
    return _call("inverse", variables, variables[0].var_type, variables[0].var_type)


def determinant(m) -> ShaderVariable:
    """``determinant(m)`` (float32)."""
    variables = _matrices("determinant", [m])
    return _call("determinant", variables, variables[0].var_type, dt.float32)


def complex_from_euler_angle(angle) -> ShaderVariable:
    """``e^(i angle)`` as a complex value: ``(cos(angle), sin(angle))``."""
    if not isinstance(angle, ShaderVariable):
        raise InvalidTypeError("complex_from_euler_angle needs a shader value")
    floating = dt.make_floating_dtype(angle.var_type)
    complex_type = dt.complex_from_float(floating)
    return constructor(complex_type, cos(angle), sin(angle))


def _complex_operand(value, other) -> ShaderVariable:
    """A complex operand of mult_complex: Python numbers and real scalars become complex."""
    if not isinstance(value, ShaderVariable):
        if not (is_number(value) or isinstance(value, complex)):
            raise InvalidTypeError(f"mult_complex arguments must be shader values or numbers, "
                                   f"got {value!r}")
        value = complex(value)
        return constructor(other.var_type, value.real, value.imag)
    value = as_variable(value, "mult_complex argument")
    if dt.is_complex(value.var_type):
        return value
    if not dt.is_scalar(value.var_type) or value.var_type is boolean:
        raise InvalidTypeError(f"mult_complex needs complex values (or real scalars), got "
                               f"'{value.name}' of type {value.var_type.name}")
    part = dt.make_floating_dtype(value.var_type)
    return constructor(dt.complex_from_float(part), value, 0)


def mult_complex(a, b) -> ShaderVariable:
    """The complex product ``a * b`` (Python numbers and real scalars accepted for either
    side, as long as one side is a complex shader value)."""
    complex_side = next((v for v in (a, b) if isinstance(v, ShaderVariable)
                         and dt.is_complex(v.var_type)), None)
    if complex_side is None:
        raise InvalidTypeError("mult_complex needs at least one complex shader value, got "
                               f"{a!r} and {b!r}")
    a, b = _complex_operand(a, complex_side), _complex_operand(b, complex_side)
    result = dt.cross_type(a.var_type, b.var_type)
    # Both sides in the result's precision: fma() of mixed widths is ambiguous in GLSL.
    a_text, b_text = operand_text(a, result), operand_text(b, result)
    ax, ay, bx, by = f"{a_text}.x", f"{a_text}.y", f"{b_text}.x", f"{b_text}.y"
    builder_for(a, b).use_type(result)
    return ShaderVariable(result, f"{result.glsl_type}(fma({ax}, {bx}, ((-{ay}) * {by})), "
                                  f"fma({ax}, {by}, ({ay} * {bx})))", lexical=True)
