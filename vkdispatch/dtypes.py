"""Data types of vkdispatch shaders and buffers, and the rules that combine them.

A dtype is a *class* deriving from :class:`dtype`; it is never instantiated. Dtypes are
compared by identity (``is`` / ``==``) and may be used as dict keys. Every dtype carries
class attributes describing its GLSL spelling, its tightly packed size in bytes (no
std140/std430 padding: ``vec3`` is 12 bytes) and the shapes used on the host:

* ``name``: the public name (``"vec2"``); equal to the class ``__name__``.
* ``item_size``: bytes per element, tightly packed.
* ``glsl_type``: GLSL type spelling (``"f16vec2"``).
* ``dimentions`` (sic, kept for compatibility): 0 scalar/complex, 1 vector, 2 matrix.
* ``format_str``: printf format used by ``vc.print``.
* ``child_type`` / ``child_count``: component type and count (``None`` / 0 for scalars;
  the column vector for matrices).
* ``scalar``: component scalar of vectors and matrices; ``None`` for scalars and complex.
* ``shape``: logical component shape used by codegen (scalars ``(1,)``).
* ``numpy_shape``: per-element host shape when packing push constants / uniforms.
* ``true_numpy_shape``: trailing dims appended to a buffer's shape when read back.

The module is pure: it imports only numpy, the standard library and vkdispatch.errors, so both
the shader DSL (``vkdispatch.codegen``) and the runtime (``vkdispatch.base``) build on it without
depending on each other. It is thread-safe (everything in it is immutable after import). Code
written for vkdispatch 0.1.0 imports it as ``vkdispatch.base.dtype``, the same module object.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = [
    "dtype", "HostDtype",
    "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64",
    "complex32", "complex64", "complex128",
    "hvec2", "hvec3", "hvec4", "vec2", "vec3", "vec4", "dvec2", "dvec3", "dvec4",
    "ihvec2", "ihvec3", "ihvec4", "ivec2", "ivec3", "ivec4",
    "uhvec2", "uhvec3", "uhvec4", "uvec2", "uvec3", "uvec4",
    "mat2", "mat3", "mat4",
    "all_dtypes", "is_dtype", "is_scalar", "is_complex", "is_vector", "is_matrix",
    "is_float_dtype", "is_integer_dtype", "scalar_of", "to_vector", "vector_size", "complex_from_float",
    "make_floating_dtype", "cross_scalar_scalar", "cross_vector_scalar", "cross_vector_vector",
    "cross_vector", "cross_matrix", "cross_type", "cross_multiply_type",
    "from_numpy_dtype", "to_numpy_dtype", "host_numpy_dtype",
]  # fmt: skip


class dtype:
    """Root of all vkdispatch data types.

    Subclasses are type *descriptors*: they are used as classes (``vd.float32``), never
    instantiated, and compared by identity. Calling one raises ``TypeError``.
    """

    name: str
    item_size: int
    glsl_type: str
    dimentions: int
    format_str: str
    child_type: type[dtype] | None
    child_count: int
    scalar: type[dtype] | None
    shape: tuple[int, ...]
    numpy_shape: tuple[int, ...]
    true_numpy_shape: tuple[int, ...]

    def __new__(cls, *args: Any, **kwargs: Any) -> dtype:
        raise InvalidTypeError(
            f"dtype {getattr(cls, 'name', cls.__name__)!r} is a type descriptor and cannot be "
            "instantiated; pass the class itself (e.g. vd.float32), or build a shader value "
            "with vc.to_dtype(...)"
        )


class _Scalar(dtype):
    """Category of real scalar dtypes (ints and floats of 16, 32 and 64 bits)."""

    dimentions = 0
    child_type = None
    child_count = 0
    scalar = None
    shape = (1,)
    numpy_shape = (1,)
    true_numpy_shape = ()


class _Complex(dtype):
    """Category of complex dtypes: a pair (real, imaginary) of one float dtype.

    ``scalar`` is ``None`` so that host reads use the complex numpy type itself.
    """

    dimentions = 0
    child_count = 2
    scalar = None
    shape = (2,)
    numpy_shape = (1,)
    true_numpy_shape = ()


class _Vector(dtype):
    """Category of 2-, 3- and 4-component vectors of one scalar dtype."""

    dimentions = 1


class _Matrix(dtype):
    """Category of square float32 matrices (column-major, columns are vectors)."""

    dimentions = 2


def _new_dtype(base: type, name: str, doc: str, **attrs: Any) -> type[dtype]:
    """Creates the module-level dtype class ``name`` deriving from category ``base``."""
    namespace: dict[str, Any] = {
        "__module__": __name__,
        "__qualname__": name,
        "__doc__": doc,
        "name": name,
    }
    namespace.update(attrs)
    return type(name, (base,), namespace)


def _scalar(name: str, glsl_type: str, format_str: str) -> type[dtype]:
    # Scalar names coincide with numpy's, so the byte size is numpy's by construction.
    size = np.dtype(name).itemsize
    return _new_dtype(
        _Scalar,
        name,
        f"Scalar ``{glsl_type}`` in shaders; {size} bytes; host type numpy ``{name}``.",
        item_size=size,
        glsl_type=glsl_type,
        format_str=format_str,
    )


int16 = _scalar("int16", "int16_t", "%d")
uint16 = _scalar("uint16", "uint16_t", "%u")
int32 = _scalar("int32", "int", "%d")
uint32 = _scalar("uint32", "uint", "%u")
int64 = _scalar("int64", "int64_t", "%lld")
uint64 = _scalar("uint64", "uint64_t", "%llu")
float16 = _scalar("float16", "float16_t", "%f")
float32 = _scalar("float32", "float", "%f")
float64 = _scalar("float64", "double", "%lf")

# Name prefix and GLSL prefix of the vector types of each scalar that has vectors.
_VECTOR_PREFIXES: dict[type[dtype], tuple[str, str]] = {
    float16: ("hvec", "f16vec"),
    float32: ("vec", "vec"),
    float64: ("dvec", "dvec"),
    int16: ("ihvec", "i16vec"),
    int32: ("ivec", "ivec"),
    uint16: ("uhvec", "u16vec"),
    uint32: ("uvec", "uvec"),
}


def _tuple_format(component_format: str, count: int) -> str:
    return "(" + ", ".join([component_format] * count) + ")"


def _complex(name: str, part: type[dtype]) -> type[dtype]:
    glsl_type = _VECTOR_PREFIXES[part][1] + "2"
    return _new_dtype(
        _Complex,
        name,
        f"Complex number of two {part.name} (real, imaginary); ``{glsl_type}`` in shaders.",
        item_size=2 * part.item_size,
        glsl_type=glsl_type,
        format_str=_tuple_format(part.format_str, 2),
        child_type=part,
    )


complex32 = _complex("complex32", float16)
complex64 = _complex("complex64", float32)
complex128 = _complex("complex128", float64)


def _vector(scalar: type[dtype], count: int) -> type[dtype]:
    name_prefix, glsl_prefix = _VECTOR_PREFIXES[scalar]
    return _new_dtype(
        _Vector,
        f"{name_prefix}{count}",
        f"Vector of {count} {scalar.name}; ``{glsl_prefix}{count}`` in shaders, "
        f"{count * scalar.item_size} bytes tightly packed.",
        item_size=count * scalar.item_size,
        glsl_type=f"{glsl_prefix}{count}",
        format_str=_tuple_format(scalar.format_str, count),
        child_type=scalar,
        child_count=count,
        scalar=scalar,
        shape=(count,),
        numpy_shape=(count,),
        true_numpy_shape=(count,),
    )


hvec2 = _vector(float16, 2)
hvec3 = _vector(float16, 3)
hvec4 = _vector(float16, 4)
vec2 = _vector(float32, 2)
vec3 = _vector(float32, 3)
vec4 = _vector(float32, 4)
dvec2 = _vector(float64, 2)
dvec3 = _vector(float64, 3)
dvec4 = _vector(float64, 4)
ihvec2 = _vector(int16, 2)
ihvec3 = _vector(int16, 3)
ihvec4 = _vector(int16, 4)
ivec2 = _vector(int32, 2)
ivec3 = _vector(int32, 3)
ivec4 = _vector(int32, 4)
uhvec2 = _vector(uint16, 2)
uhvec3 = _vector(uint16, 3)
uhvec4 = _vector(uint16, 4)
uvec2 = _vector(uint32, 2)
uvec3 = _vector(uint32, 3)
uvec4 = _vector(uint32, 4)


def _matrix(column: type[dtype]) -> type[dtype]:
    count = column.child_count
    # The printf format is embedded in GLSL source, so the newline is spelled as the
    # two-character escape sequence "\\n" (a backslash pair and "n" in the Python string).
    newline = "\\\\n"
    row = "[" + ", ".join([column.scalar.format_str] * count) + "]"
    return _new_dtype(
        _Matrix,
        f"mat{count}",
        f"{count}x{count} float32 matrix of {count} ``{column.name}`` columns; "
        f"{count * column.item_size} bytes tightly packed.",
        item_size=count * column.item_size,
        glsl_type=f"mat{count}",
        format_str=newline + newline.join([row] * count) + newline,
        child_type=column,
        child_count=count,
        scalar=column.scalar,
        shape=(count, count),
        numpy_shape=(count, count),
        true_numpy_shape=(count, count),
    )


mat2 = _matrix(vec2)
mat3 = _matrix(vec3)
mat4 = _matrix(vec4)

_ALL_DTYPES: tuple[type[dtype], ...] = (
    int16, uint16, int32, uint32, int64, uint64, float16, float32, float64,
    complex32, complex64, complex128,
    hvec2, hvec3, hvec4, vec2, vec3, vec4, dvec2, dvec3, dvec4,
    ihvec2, ihvec3, ihvec4, ivec2, ivec3, ivec4,
    uhvec2, uhvec3, uhvec4, uvec2, uvec3, uvec4,
    mat2, mat3, mat4,
)  # fmt: skip

_FLOATS = (float16, float32, float64)
_INTEGERS = (int16, uint16, int32, uint32, int64, uint64)

# Promotion rank of scalars: the higher rank wins in cross_scalar_scalar.
_SCALAR_RANK: dict[type[dtype], int] = {
    uint16: 0,
    int16: 1,
    uint32: 2,
    int32: 3,
    uint64: 4,
    int64: 5,
    float16: 6,
    float32: 7,
    float64: 8,
}

_FLOAT_OF_WIDTH: dict[int, type[dtype]] = {t.item_size: t for t in _FLOATS}
_COMPLEX_OF_FLOAT: dict[type[dtype], type[dtype]] = {
    float16: complex32,
    float32: complex64,
    float64: complex128,
}
_PUBLIC_DTYPES = frozenset(_ALL_DTYPES)
# to_vector's table: scalar -> {count: vector}, count 1 being the scalar itself.
_VECTORS_OF: dict[type[dtype], dict[int, type[dtype]]] = {
    scalar: {1: scalar} for scalar in _VECTOR_PREFIXES
}
for _vector_type in filter(lambda t: issubclass(t, _Vector), _ALL_DTYPES):
    _VECTORS_OF[_vector_type.scalar][_vector_type.child_count] = _vector_type
del _vector_type


def all_dtypes() -> tuple[type[dtype], ...]:
    """Returns every public dtype class, in vkdispatch 0.1.0's order.

    Order: the 9 real scalars, the 3 complex types, the 21 vectors, the 3 matrices.
    """
    return _ALL_DTYPES


@dataclasses.dataclass(frozen=True)
class HostDtype:
    """Host-side description of a dtype that has no numpy scalar type.

    Only ``complex32`` needs one: numpy has no half-precision complex type, so
    ``to_numpy_dtype(complex32)`` returns an instance of this class. The data is stored as
    ``components`` values of ``storage_dtype`` per element (real, imaginary) and is
    presented to users as ``numpy_dtype`` after conversion.

    Attributes:
        name: The vkdispatch dtype name (``"complex32"``); ``from_numpy_dtype`` accepts
            the descriptor and maps it back through this name.
        numpy_dtype: The numpy scalar type host arrays use after conversion
            (``np.complex64``).
        storage_dtype: The numpy scalar type of one stored component (``np.float16``).
        components: Stored components per element (2: real, imaginary).
    """

    name: str
    numpy_dtype: type
    storage_dtype: type
    components: int

    @property
    def itemsize(self) -> int:
        """Stored bytes per element (4 for complex32)."""
        return np.dtype(self.storage_dtype).itemsize * self.components


_COMPLEX32_HOST = HostDtype(
    name="complex32", numpy_dtype=np.complex64, storage_dtype=np.float16, components=2
)

# Host type of each scalar/complex dtype, in table order; names double as numpy names.
_HOST_TYPES: dict[type[dtype], Any] = {
    int16: np.int16,
    uint16: np.uint16,
    int32: np.int32,
    uint32: np.uint32,
    int64: np.int64,
    uint64: np.uint64,
    float16: np.float16,
    float32: np.float32,
    float64: np.float64,
    complex32: _COMPLEX32_HOST,
    complex64: np.complex64,
    complex128: np.complex128,
}
_BY_HOST_NAME: dict[str, type[dtype]] = {t.name: t for t in _HOST_TYPES}


def _describe(value: Any) -> str:
    """Names a value for an error message: a dtype by its name, anything else by repr."""
    if isinstance(value, type) and issubclass(value, dtype) and hasattr(value, "name"):
        return value.name
    return f"{value!r} ({type(value).__name__})"


def _names(types: Any) -> str:
    return ", ".join(t.name for t in types)


def _require_class(value: Any, func: str, arg: str) -> type:
    if not isinstance(value, type):
        raise InvalidTypeError(
            f"{func}: {arg} must be a class (a dtype such as vd.float32), "
            f"got {_describe(value)}"
        )
    return value


def _require_dtype(value: Any, func: str, arg: str) -> type[dtype]:
    # Category bases (_Scalar, ...) are dtype subclasses but not usable types.
    if _require_class(value, func, arg) not in _PUBLIC_DTYPES:
        raise InvalidTypeError(
            f"{func}: {arg} must be a vkdispatch dtype such as vd.float32, "
            f"got {_describe(value)}"
        )
    return value


def is_dtype(t: Any) -> bool:
    """Tells whether ``t`` is a vkdispatch dtype class.

    Args:
        t: A class.

    Returns:
        True if ``t`` derives from :class:`dtype` (category bases included).

    Raises:
        TypeError: If ``t`` is not a class (e.g. an instance such as ``3``).
    """
    return issubclass(_require_class(t, "is_dtype", "t"), dtype)


def is_scalar(t: Any) -> bool:
    """Tells whether ``t`` is a real scalar dtype (int or float); complex is not scalar.

    Raises:
        TypeError: If ``t`` is not a class.
    """
    return issubclass(_require_class(t, "is_scalar", "t"), _Scalar)


def is_complex(t: Any) -> bool:
    """Tells whether ``t`` is one of complex32, complex64, complex128.

    Raises:
        TypeError: If ``t`` is not a class.
    """
    return issubclass(_require_class(t, "is_complex", "t"), _Complex)


def is_vector(t: Any) -> bool:
    """Tells whether ``t`` is a 2-, 3- or 4-component vector dtype.

    Raises:
        TypeError: If ``t`` is not a class.
    """
    return issubclass(_require_class(t, "is_vector", "t"), _Vector)


def is_matrix(t: Any) -> bool:
    """Tells whether ``t`` is a matrix dtype (mat2, mat3, mat4).

    Raises:
        TypeError: If ``t`` is not a class.
    """
    return issubclass(_require_class(t, "is_matrix", "t"), _Matrix)


def _component_scalar(t: Any, func: str) -> type[dtype | None]:
    """The scalar itself, the ``scalar`` of a vector/matrix, or None (complex, non-dtype)."""
    cls = _require_class(t, func, "t")
    if issubclass(cls, _Scalar):
        return cls
    if issubclass(cls, (_Vector, _Matrix)):
        return cls.scalar
    return None


def is_float_dtype(t: Any) -> bool:
    """Tells whether ``t``, or the component scalar of vector/matrix ``t``, is a float.

    Complex dtypes are neither float nor integer dtypes here (their ``scalar`` is None).

    Raises:
        TypeError: If ``t`` is not a class.
    """
    return _component_scalar(t, "is_float_dtype") in _FLOATS


def is_integer_dtype(t: Any) -> bool:
    """Tells whether ``t``, or the component scalar of vector ``t``, is a 16/32/64-bit int.

    Raises:
        TypeError: If ``t`` is not a class.
    """
    return _component_scalar(t, "is_integer_dtype") in _INTEGERS


def scalar_of(t: Any) -> type[dtype]:
    """Returns the component type of ``t``: a scalar itself, the ``scalar`` of a vector or
    matrix, the float part of a complex (``complex32 -> float16``).

    Unlike the ``scalar`` attribute, this is never None, so it names the type of every
    number ``t`` is made of (the GLSL component type, the host packing code).

    Raises:
        TypeError: If ``t`` is not a class.
    """
    if issubclass(_require_class(t, "scalar_of", "t"), _Complex):
        return t.child_type
    return t.scalar or t


def to_vector(scalar: Any, count: int) -> type[dtype]:
    """Returns the vector of ``count`` components of ``scalar``.

    Args:
        scalar: One of int16, uint16, int32, uint32, float16, float32, float64 (there are
            no vectors of 64-bit ints).
        count: Number of components, 1 to 4; 1 returns ``scalar`` itself.

    Returns:
        The vector dtype, e.g. ``to_vector(float32, 3) is vec3``.

    Raises:
        ValueError: If ``count`` is not an int in 1..4 or ``scalar`` has no vectors.
    """
    is_int = isinstance(count, (int, np.integer)) and not isinstance(count, bool)
    if not is_int or not 1 <= count <= 4:
        raise InvalidArgumentError(f"to_vector: count must be an int in 1..4, got {count!r}")
    table = _VECTORS_OF.get(scalar) if isinstance(scalar, type) else None
    if table is None:
        raise InvalidArgumentError(
            f"to_vector: scalar must be one of {_names(_VECTORS_OF)}, got {_describe(scalar)}"
        )
    return table[int(count)]


def vector_size(t: Any) -> int:
    """Returns the component count (2, 3 or 4) of vector dtype ``t``.

    Raises:
        ValueError: If ``t`` is not a vector dtype.
    """
    if not (isinstance(t, type) and issubclass(t, _Vector)):
        raise InvalidArgumentError(f"vector_size: t must be a vector dtype, got {_describe(t)}")
    return t.child_count


def complex_from_float(t: Any) -> type[dtype]:
    """Returns the complex dtype whose parts are float ``t``.

    float16 -> complex32, float32 -> complex64, float64 -> complex128.

    Raises:
        ValueError: If ``t`` is not float16, float32 or float64.
    """
    result = _COMPLEX_OF_FLOAT.get(t) if isinstance(t, type) else None
    if result is None:
        raise InvalidArgumentError(
            f"complex_from_float: t must be one of {_names(_COMPLEX_OF_FLOAT)}, "
            f"got {_describe(t)}"
        )
    return result


def _float_of_same_width(scalar: type[dtype]) -> type[dtype]:
    """int16/uint16 -> float16, 32-bit ints -> float32, 64-bit ints -> float64; floats kept."""
    return _FLOAT_OF_WIDTH[scalar.item_size]


def make_floating_dtype(t: Any) -> type[dtype]:
    """Returns the floating-point counterpart of ``t``, used as the type of divisions.

    Integer scalars become the float of the same width (16 -> float16, 32 -> float32,
    64 -> float64), integer vectors likewise per component (``ivec3 -> vec3``,
    ``uhvec2 -> hvec2``). Floats, float vectors, matrices and complex are returned as-is.

    Raises:
        TypeError: If ``t`` is not a dtype class.
    """
    _require_dtype(t, "make_floating_dtype", "t")
    if issubclass(t, _Scalar):
        return _float_of_same_width(t)
    if issubclass(t, _Vector):
        return _VECTORS_OF[_float_of_same_width(t.scalar)][t.child_count]
    return t


def _require_category(t: Any, category: type, what: str, func: str, arg: str) -> type[dtype]:
    _require_dtype(t, func, arg)
    if not issubclass(t, category):
        raise InvalidArgumentError(f"{func}: {arg} must be a {what} dtype, got {t.name}")
    return t


def cross_scalar_scalar(a: Any, b: Any) -> type[dtype]:
    """Returns the promoted type of two real scalars: the one of higher rank.

    Ranks: uint16 < int16 < uint32 < int32 < uint64 < int64 < float16 < float32 < float64.
    So ``uint32 x int32 -> int32`` and ``int64 x float16 -> float16``.

    Raises:
        TypeError: If an argument is not a dtype class.
        ValueError: If an argument is not a real scalar dtype.
    """
    _require_category(a, _Scalar, "scalar", "cross_scalar_scalar", "a")
    _require_category(b, _Scalar, "scalar", "cross_scalar_scalar", "b")
    return a if _SCALAR_RANK[a] >= _SCALAR_RANK[b] else b


def _vector_result(scalar: type[dtype], count: int, func: str, a: type[dtype],
                   b: type[dtype]) -> type[dtype]:
    table = _VECTORS_OF.get(scalar)
    if table is None:
        raise InvalidArgumentError(
            f"{func}: {a.name} x {b.name} promotes to {scalar.name}, which has no vector "
            f"type; expected components among {_names(_VECTORS_OF)}"
        )
    return table[count]


def cross_vector_scalar(a: Any, b: Any) -> type[dtype]:
    """Returns the type of vector ``a`` combined with scalar ``b``.

    The result keeps the length of ``a`` with the promoted component scalar
    (``ivec2 x float32 -> vec2``).

    Raises:
        TypeError: If an argument is not a dtype class.
        ValueError: If ``a`` is not a vector, ``b`` is not a real scalar, or the promoted
            scalar has no vectors (``ivec2 x int64``).
    """
    _require_category(a, _Vector, "vector", "cross_vector_scalar", "a")
    _require_category(b, _Scalar, "scalar", "cross_vector_scalar", "b")
    promoted = cross_scalar_scalar(a.scalar, b)
    return _vector_result(promoted, a.child_count, "cross_vector_scalar", a, b)


def cross_vector_vector(a: Any, b: Any) -> type[dtype]:
    """Returns the type of two vectors of equal length combined (promoted components).

    Raises:
        TypeError: If an argument is not a dtype class.
        ValueError: If an argument is not a vector or the lengths differ.
    """
    _require_category(a, _Vector, "vector", "cross_vector_vector", "a")
    _require_category(b, _Vector, "vector", "cross_vector_vector", "b")
    if a.child_count != b.child_count:
        raise InvalidArgumentError(
            f"cross_vector_vector: vectors must have equal lengths, got {a.name} "
            f"({a.child_count}) and {b.name} ({b.child_count})"
        )
    promoted = cross_scalar_scalar(a.scalar, b.scalar)
    return _vector_result(promoted, a.child_count, "cross_vector_vector", a, b)


def cross_vector(a: Any, b: Any) -> type[dtype]:
    """Returns the type of vector ``a`` combined with vector or scalar ``b``.

    Raises:
        TypeError: If an argument is not a dtype class.
        ValueError: If ``a`` is not a vector, ``b`` is complex or a matrix, or the
            vector/vector or vector/scalar rule rejects the pair.
    """
    _require_category(a, _Vector, "vector", "cross_vector", "a")
    _require_dtype(b, "cross_vector", "b")
    if issubclass(b, _Vector):
        return cross_vector_vector(a, b)
    if issubclass(b, _Scalar):
        return cross_vector_scalar(a, b)
    raise InvalidArgumentError(f"cross_vector: b must be a vector or real scalar dtype, got {b.name}")


def cross_matrix(a: Any, b: Any) -> type[dtype]:
    """Returns the type of matrix ``a`` combined with matrix or scalar ``b``.

    A matrix with a scalar stays the matrix; two matrices must have the same shape and
    the result is ``a``.

    Raises:
        TypeError: If an argument is not a dtype class.
        ValueError: If ``a`` is not a matrix, the shapes differ, or ``b`` is a vector or
            complex (use :func:`cross_multiply_type` for ``matN * vecN``).
    """
    _require_category(a, _Matrix, "matrix", "cross_matrix", "a")
    _require_dtype(b, "cross_matrix", "b")
    if issubclass(b, _Matrix):
        if a.shape != b.shape:
            raise InvalidArgumentError(
                f"cross_matrix: matrices must have equal shapes, got {a.name} {a.shape} "
                f"and {b.name} {b.shape}"
            )
        return a
    if issubclass(b, _Scalar):
        return a
    raise InvalidArgumentError(f"cross_matrix: b must be a matrix or real scalar dtype, got {b.name}")


def _cross_complex(c: type[dtype], other: type[dtype]) -> type[dtype]:
    """Complex ``c`` with complex or real scalar ``other``; ints widen to same-width floats.

    Matrices and vectors never reach here: cross_type applies their rules first.
    """
    part = other.child_type if issubclass(other, _Complex) else _float_of_same_width(other)
    return _COMPLEX_OF_FLOAT[cross_scalar_scalar(c.child_type, part)]


def cross_type(a: Any, b: Any) -> type[dtype]:
    """Returns the result type of a binary operation (other than ``*``) on ``a`` and ``b``.

    Rules, first match wins: if either is a matrix, :func:`cross_matrix`; if either is a
    vector, :func:`cross_vector`; if either is complex, complex of the promoted float
    (real int scalars first become the float of the same width, so
    ``complex32 x int32 -> complex64``); else :func:`cross_scalar_scalar`. The rule is
    symmetric in its result except that two equal-shape matrices yield ``a``.

    Raises:
        TypeError: If an argument is not a dtype class.
        ValueError: If the pair cannot be combined (see the rules above).
    """
    _require_dtype(a, "cross_type", "a")
    _require_dtype(b, "cross_type", "b")
    if issubclass(a, _Matrix):
        return cross_matrix(a, b)
    if issubclass(b, _Matrix):
        return cross_matrix(b, a)
    if issubclass(a, _Vector):
        return cross_vector(a, b)
    if issubclass(b, _Vector):
        return cross_vector(b, a)
    if issubclass(a, _Complex):
        return _cross_complex(a, b)
    if issubclass(b, _Complex):
        return _cross_complex(b, a)
    return cross_scalar_scalar(a, b)


def _check_matrix_vector(mat: type[dtype], vec: type[dtype], a: type[dtype],
                         b: type[dtype]) -> None:
    if mat.child_count != vec.child_count:
        raise InvalidArgumentError(
            f"cross_multiply_type: matrix and vector sizes must match, got "
            f"{a.name} * {b.name}"
        )
    if vec.scalar is not float32:
        raise InvalidArgumentError(
            f"cross_multiply_type: matrix/vector products need a float32 vector (vec2..4), "
            f"got {a.name} * {b.name}"
        )


def cross_multiply_type(a: Any, b: Any) -> type[dtype]:
    """Returns the result type of ``a * b``.

    Like :func:`cross_type`, except that ``matN * vecN`` and ``vecN * matN`` are allowed
    and yield ``vecN``.

    Raises:
        TypeError: If an argument is not a dtype class.
        ValueError: If a matrix/vector pair differs in size or the vector is not float32,
            or :func:`cross_type` rejects the pair.
    """
    _require_dtype(a, "cross_multiply_type", "a")
    _require_dtype(b, "cross_multiply_type", "b")
    if issubclass(a, _Matrix) and issubclass(b, _Vector):
        _check_matrix_vector(a, b, a, b)
        return b
    if issubclass(a, _Vector) and issubclass(b, _Matrix):
        _check_matrix_vector(b, a, a, b)
        return a
    return cross_type(a, b)


# numpy dtypes already resolved (every asbuffer asks; np.dtype(...).name costs a microsecond).
_BY_NUMPY_DTYPE: dict = {}


def _host_name(np_dtype: Any) -> str | None:
    if isinstance(np_dtype, HostDtype):
        return np_dtype.name
    if isinstance(np_dtype, str) and np_dtype in _BY_HOST_NAME:
        return np_dtype  # Lets "complex32", which numpy cannot parse, round-trip.
    if np_dtype is None:
        return None  # np.dtype(None) would silently mean float64.
    try:
        return np.dtype(np_dtype).name
    except (TypeError, ValueError):
        return None


def from_numpy_dtype(np_dtype: Any) -> type[dtype]:
    """Returns the scalar or complex dtype matching a numpy dtype, by dtype name.

    Numpy arrays always map to scalar or complex dtypes, never to vectors.

    Args:
        np_dtype: Anything ``np.dtype`` accepts (``arr.dtype``, ``np.float32``,
            ``"uint16"``), the string ``"complex32"`` or a :class:`HostDtype`. Byte order
            is ignored (``">f4"`` is float32); callers convert data with ``astype``.

    Returns:
        One of the 9 real scalar or 3 complex dtypes.

    Raises:
        ValueError: ``"Unsupported dtype (...)!"`` for any other dtype (bool, int8, uint8,
            object, strings, structured dtypes ...); the message lists the supported ones.
    """
    if isinstance(np_dtype, np.dtype):
        found = _BY_NUMPY_DTYPE.get(np_dtype)
        if found is not None:
            return found
    name = _host_name(np_dtype)
    result = _BY_HOST_NAME.get(name) if name is not None else None
    if result is None:
        shown = name if name is not None else _describe(np_dtype)
        raise InvalidArgumentError(
            f"Unsupported dtype ({shown})! from_numpy_dtype: np_dtype must be one of "
            f"{', '.join(_BY_HOST_NAME)}, got {np_dtype!r}"
        )
    if isinstance(np_dtype, np.dtype):
        _BY_NUMPY_DTYPE[np_dtype] = result
    return result


def to_numpy_dtype(t: Any) -> Any:
    """Returns the host type of a scalar or complex dtype (inverse of from_numpy_dtype).

    Returns:
        The numpy scalar type (``np.float32`` for float32, ``np.complex64`` for
        complex64, ...). ``complex32`` has no numpy type: it yields the frozen
        :class:`HostDtype` descriptor ``HostDtype(name="complex32",
        numpy_dtype=np.complex64, storage_dtype=np.float16, components=2)``.

    Raises:
        ValueError: If ``t`` is a vector, a matrix or not a dtype; use ``t.scalar``
            (see :func:`host_numpy_dtype`) for those.
    """
    result = _HOST_TYPES.get(t) if isinstance(t, type) else None
    if result is None:
        raise InvalidArgumentError(
            f"to_numpy_dtype: t must be a scalar or complex dtype "
            f"({', '.join(_BY_HOST_NAME)}), got {_describe(t)}"
        )
    return result


def host_numpy_dtype(t: Any) -> np.dtype:
    """Returns the numpy dtype of the raw host view of buffer elements of dtype ``t``.

    For vectors and matrices this is the dtype of ``t.scalar`` (the host array gets the
    extra trailing axes ``t.true_numpy_shape``); for scalars and complex, of ``t`` itself.
    complex32 is the exception: it returns ``np.dtype(np.float16)``; the raw bytes then
    hold (real, imaginary) float16 pairs, i.e. an array of ``shape + (2,)`` that callers
    convert to complex64 (``raw[..., 0] + 1j * raw[..., 1]``, cast to ``np.complex64``),
    so a complex32 buffer reads back as complex64.

    Raises:
        TypeError: If ``t`` is not a dtype class.
    """
    _require_dtype(t, "host_numpy_dtype", "t")
    host = to_numpy_dtype(t.scalar if t.scalar is not None else t)
    if isinstance(host, HostDtype):
        return np.dtype(host.storage_dtype)
    return np.dtype(host)
