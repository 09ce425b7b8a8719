"""Registers (declared local variables) and casts (constructor expressions)."""
from __future__ import annotations

from vkdispatch import dtypes as dt
from vkdispatch.codegen.context import get_builder
from vkdispatch.codegen.literals import is_number
from vkdispatch.codegen.variables import ShaderVariable, as_variable, constructor
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

_TYPED = {
    "float16": dt.float16, "float": dt.float32, "float64": dt.float64, "int16": dt.int16,
    "int": dt.int32, "int64": dt.int64, "uint16": dt.uint16, "uint": dt.uint32,
    "uint64": dt.uint64, "complex32": dt.complex32, "complex64": dt.complex64,
    "complex128": dt.complex128, "mat2": dt.mat2, "mat3": dt.mat3, "mat4": dt.mat4,
    **{f"{prefix}{n}": getattr(dt, f"{prefix}{n}")
       for prefix in ("hvec", "vec", "dvec", "ihvec", "ivec", "uhvec", "uvec") for n in (2, 3, 4)},
}  # fmt: skip

__all__ = ["to_dtype", "cast_to", "str_to_dtype", "new_register", "to_complex",
           "new_complex_register"] + \
    [f"to_{name}" for name in _TYPED] + [f"new_{name}_register" for name in _TYPED]


def _check_dtype(var_type) -> None:
    if not (isinstance(var_type, type) and var_type in dt.all_dtypes()):
        raise InvalidTypeError(f"var_type must be a vkdispatch dtype such as vd.float32, "
                               f"got {var_type!r}")


def _complex_arguments(var_type, args) -> tuple:
    """One real scalar becomes ``(re, 0)``; a complex value or a 2-vector passes through."""
    if len(args) == 1 and not (isinstance(args[0], ShaderVariable)
                               and not dt.is_scalar(args[0].var_type)):
        return (args[0], 0)
    return args


def to_dtype(var_type, *args) -> ShaderVariable:
    """The constructor expression ``T(args...)``, e.g. ``vc.to_dtype(vd.vec2, x, 1.0)``."""
    _check_dtype(var_type)
    if not args:
        raise InvalidArgumentError(f"to_dtype({var_type.name}) needs at least one value to "
                                   "convert; use vc.new_register(vd.T) for a zero register")
    if dt.is_complex(var_type):
        args = _complex_arguments(var_type, args)
    return constructor(var_type, *args)


def cast_to(var_type, value: ShaderVariable) -> ShaderVariable:
    """``value`` as ``var_type``: ``value`` itself when it already has that type, else
    ``to_dtype(var_type, value)``. Skipping the no-op cast keeps generated sources free of
    redundant constructors such as ``vec2(vec2(...))``."""
    return value if value.var_type is var_type else to_dtype(var_type, value)


def str_to_dtype(var_type, value: str, parents=None, lexical_unit: bool = False,
                 settable: bool = False, register: bool = False) -> ShaderVariable:
    """Wraps raw source text as a typed shader value (an escape hatch). Buffers the text
    names count as read, and as written when ``settable`` (barriers and ``readonly``
    declarations follow from it)."""
    _check_dtype(var_type)
    builder = get_builder()
    builder.use_type(var_type)
    builder.mark_named_buffers(value, write=settable)
    return ShaderVariable(var_type, value if lexical_unit else f"({value})", lexical=True,
                          settable=settable, register=register)


def new_register(var_type, *args, var_name: str | None = None) -> ShaderVariable:
    """Declares ``T name = T(args...)`` (``T(0)`` without args); returns the register."""
    _check_dtype(var_type)
    value = to_dtype(var_type, *(args or (0,)))
    return value.to_register(var_name)


def _complex_type_of(args):
    floats = []
    for arg in args:
        var_type = as_variable(arg).var_type
        if dt.is_complex(var_type):
            return var_type
        floats.append(dt.make_floating_dtype(var_type))
    result = floats[0]
    for other in floats[1:]:
        result = dt.cross_type(result, other)
    if is_number(args[0]) and all(is_number(a) for a in args):
        return dt.complex64
    return dt.complex_from_float(result)


def to_complex(*args) -> ShaderVariable:
    """A complex value from ``(re)``, ``(re, im)`` or a complex value; width inferred."""
    if not 1 <= len(args) <= 2:
        raise InvalidArgumentError("Must give one of two arguments for complex init")
    return to_dtype(_complex_type_of(args), *args)


def new_complex_register(*args, var_name: str | None = None) -> ShaderVariable:
    """A complex register (complex64 zero without arguments)."""
    if not args:
        return new_register(dt.complex64, 0, 0, var_name=var_name)
    return new_register(_complex_type_of(args), *args, var_name=var_name)


def _typed_cast(var_type):
    def cast(*args) -> ShaderVariable:
        return to_dtype(var_type, *args)

    cast.__doc__ = f"Cast/constructor ``{var_type.glsl_type}(...)`` ({var_type.name})."
    return cast


def _typed_register(var_type):
    def register(*args, var_name: str | None = None) -> ShaderVariable:
        return new_register(var_type, *args, var_name=var_name)

    register.__doc__ = f"Declares a {var_type.name} register (zero without arguments)."
    return register


globals().update({f"to_{name}": _typed_cast(t) for name, t in _TYPED.items()})
globals().update({f"new_{name}_register": _typed_register(t) for name, t in _TYPED.items()})
