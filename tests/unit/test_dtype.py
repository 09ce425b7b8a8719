"""Unit tests of vkdispatch.dtypes: the dtype table, promotion rules, numpy mapping.

The expected values are written out independently, from vkdispatch 0.1.0's dtype table and
helpers, not derived from the module under test.
"""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

import vkdispatch
from vkdispatch import dtypes as dt

NL = "\\\\n"  # A backslash pair followed by "n", as the matrix format strings spell newlines.

# name, kind, glsl_type, item_size, shape, numpy_shape, true_numpy_shape, child_type,
# child_count, scalar, format_str  (vkdispatch 0.1.0's values, row by row)
TABLE = [
    ("int16", "scalar", "int16_t", 2, (1,), (1,), (), None, 0, None, "%d"),
    ("uint16", "scalar", "uint16_t", 2, (1,), (1,), (), None, 0, None, "%u"),
    ("int32", "scalar", "int", 4, (1,), (1,), (), None, 0, None, "%d"),
    ("uint32", "scalar", "uint", 4, (1,), (1,), (), None, 0, None, "%u"),
    ("int64", "scalar", "int64_t", 8, (1,), (1,), (), None, 0, None, "%lld"),
    ("uint64", "scalar", "uint64_t", 8, (1,), (1,), (), None, 0, None, "%llu"),
    ("float16", "scalar", "float16_t", 2, (1,), (1,), (), None, 0, None, "%f"),
    ("float32", "scalar", "float", 4, (1,), (1,), (), None, 0, None, "%f"),
    ("float64", "scalar", "double", 8, (1,), (1,), (), None, 0, None, "%lf"),
    ("complex32", "complex", "f16vec2", 4, (2,), (1,), (), "float16", 2, None, "(%f, %f)"),
    ("complex64", "complex", "vec2", 8, (2,), (1,), (), "float32", 2, None, "(%f, %f)"),
    ("complex128", "complex", "dvec2", 16, (2,), (1,), (), "float64", 2, None, "(%lf, %lf)"),
    ("hvec2", "vector", "f16vec2", 4, (2,), (2,), (2,), "float16", 2, "float16", "(%f, %f)"),
    ("hvec3", "vector", "f16vec3", 6, (3,), (3,), (3,), "float16", 3, "float16",
     "(%f, %f, %f)"),
    ("hvec4", "vector", "f16vec4", 8, (4,), (4,), (4,), "float16", 4, "float16",
     "(%f, %f, %f, %f)"),
    ("vec2", "vector", "vec2", 8, (2,), (2,), (2,), "float32", 2, "float32", "(%f, %f)"),
    ("vec3", "vector", "vec3", 12, (3,), (3,), (3,), "float32", 3, "float32", "(%f, %f, %f)"),
    ("vec4", "vector", "vec4", 16, (4,), (4,), (4,), "float32", 4, "float32",
     "(%f, %f, %f, %f)"),
    ("dvec2", "vector", "dvec2", 16, (2,), (2,), (2,), "float64", 2, "float64", "(%lf, %lf)"),
    ("dvec3", "vector", "dvec3", 24, (3,), (3,), (3,), "float64", 3, "float64",
     "(%lf, %lf, %lf)"),
    ("dvec4", "vector", "dvec4", 32, (4,), (4,), (4,), "float64", 4, "float64",
     "(%lf, %lf, %lf, %lf)"),
    ("ihvec2", "vector", "i16vec2", 4, (2,), (2,), (2,), "int16", 2, "int16", "(%d, %d)"),
    ("ihvec3", "vector", "i16vec3", 6, (3,), (3,), (3,), "int16", 3, "int16", "(%d, %d, %d)"),
    ("ihvec4", "vector", "i16vec4", 8, (4,), (4,), (4,), "int16", 4, "int16",
     "(%d, %d, %d, %d)"),
    ("ivec2", "vector", "ivec2", 8, (2,), (2,), (2,), "int32", 2, "int32", "(%d, %d)"),
    ("ivec3", "vector", "ivec3", 12, (3,), (3,), (3,), "int32", 3, "int32", "(%d, %d, %d)"),
    ("ivec4", "vector", "ivec4", 16, (4,), (4,), (4,), "int32", 4, "int32",
     "(%d, %d, %d, %d)"),
    ("uhvec2", "vector", "u16vec2", 4, (2,), (2,), (2,), "uint16", 2, "uint16", "(%u, %u)"),
    ("uhvec3", "vector", "u16vec3", 6, (3,), (3,), (3,), "uint16", 3, "uint16",
     "(%u, %u, %u)"),
    ("uhvec4", "vector", "u16vec4", 8, (4,), (4,), (4,), "uint16", 4, "uint16",
     "(%u, %u, %u, %u)"),
    ("uvec2", "vector", "uvec2", 8, (2,), (2,), (2,), "uint32", 2, "uint32", "(%u, %u)"),
    ("uvec3", "vector", "uvec3", 12, (3,), (3,), (3,), "uint32", 3, "uint32", "(%u, %u, %u)"),
    ("uvec4", "vector", "uvec4", 16, (4,), (4,), (4,), "uint32", 4, "uint32",
     "(%u, %u, %u, %u)"),
    ("mat2", "matrix", "mat2", 16, (2, 2), (2, 2), (2, 2), "vec2", 2, "float32",
     NL + "[%f, %f]" + NL + "[%f, %f]" + NL),
    ("mat3", "matrix", "mat3", 36, (3, 3), (3, 3), (3, 3), "vec3", 3, "float32",
     NL + (("[%f, %f, %f]" + NL) * 3)),
    ("mat4", "matrix", "mat4", 64, (4, 4), (4, 4), (4, 4), "vec4", 4, "float32",
     NL + (("[%f, %f, %f, %f]" + NL) * 4)),
]
ROWS = {row[0]: row for row in TABLE}
NAMES = [row[0] for row in TABLE]

SCALARS = ["int16", "uint16", "int32", "uint32", "int64", "uint64",
           "float16", "float32", "float64"]
COMPLEX = ["complex32", "complex64", "complex128"]
VECTORS = [name for name in NAMES if ROWS[name][1] == "vector"]
MATRICES = ["mat2", "mat3", "mat4"]
RANK_ORDER = ["uint16", "int16", "uint32", "int32", "uint64", "int64",
              "float16", "float32", "float64"]
SAME_WIDTH_FLOAT = {"int16": "float16", "uint16": "float16", "int32": "float32",
                    "uint32": "float32", "int64": "float64", "uint64": "float64",
                    "float16": "float16", "float32": "float32", "float64": "float64"}
COMPLEX_OF = {"float16": "complex32", "float32": "complex64", "float64": "complex128"}
VECTOR_PREFIX = {"float16": "hvec", "float32": "vec", "float64": "dvec", "int16": "ihvec",
                 "int32": "ivec", "uint16": "uhvec", "uint32": "uvec"}
# numpy type whose itemsize times the component count gives item_size.
LEAF_NUMPY = {"complex32": np.float16, "complex64": np.float32, "complex128": np.float64,
              **{name: getattr(np, name) for name in SCALARS}}
NUMPY_OF = {"complex64": np.complex64, "complex128": np.complex128,
            **{name: getattr(np, name) for name in SCALARS}}


def t(name):
    """The dtype class named ``name`` in the module under test."""
    return getattr(dt, name)


def expected_promotion(a, b):
    return max(a, b, key=RANK_ORDER.index)


def expected_vector(scalar, count):
    """Name of the vector of ``count`` ``scalar`` components, or None if there is none."""
    if scalar not in VECTOR_PREFIX:
        return None
    return scalar if count == 1 else f"{VECTOR_PREFIX[scalar]}{count}"


def leaf_count(name):
    kind = ROWS[name][1]
    if kind == "scalar":
        return 1, getattr(np, name)
    if kind == "complex":
        return 2, LEAF_NUMPY[name]
    count = int(np.prod(ROWS[name][4]))
    return count, getattr(np, ROWS[name][9])


# --- table -----------------------------------------------------------------------------


@pytest.mark.parametrize("row", TABLE, ids=NAMES)
def test_dtype_table_row_attributes_match_reference(row):
    (name, kind, glsl, size, shape, numpy_shape, true_numpy_shape, child, child_count,
     scalar, format_str) = row
    cls = t(name)
    assert cls.name == name
    assert cls.__name__ == name
    assert cls.glsl_type == glsl
    assert cls.item_size == size
    assert cls.shape == shape
    assert cls.numpy_shape == numpy_shape
    assert cls.true_numpy_shape == true_numpy_shape
    assert cls.child_type is (None if child is None else t(child))
    assert cls.child_count == child_count
    assert cls.scalar is (None if scalar is None else t(scalar))
    assert cls.format_str == format_str
    dims = {"scalar": 0, "complex": 0, "vector": 1, "matrix": 2}[kind]
    assert cls.dimentions == dims


@pytest.mark.parametrize("name", NAMES)
def test_dtype_item_size_equals_numpy_itemsize_times_components(name):
    count, leaf = leaf_count(name)
    assert t(name).item_size == np.dtype(leaf).itemsize * count


@pytest.mark.parametrize("name", NAMES)
def test_dtype_category_predicates_match_table_kind(name):
    kind = ROWS[name][1]
    cls = t(name)
    assert dt.is_dtype(cls)
    assert issubclass(cls, dt.dtype)
    assert dt.is_scalar(cls) == (kind == "scalar")
    assert dt.is_complex(cls) == (kind == "complex")
    assert dt.is_vector(cls) == (kind == "vector")
    assert dt.is_matrix(cls) == (kind == "matrix")
    base = {"scalar": dt._Scalar, "complex": dt._Complex, "vector": dt._Vector,
            "matrix": dt._Matrix}[kind]
    assert issubclass(cls, base)


def test_all_dtypes_table_order_returns_every_public_dtype():
    assert [cls.name for cls in dt.all_dtypes()] == NAMES
    assert all(cls is t(cls.name) for cls in dt.all_dtypes())


def test_module_all_lists_every_dtype_and_helper():
    expected = set(NAMES) | {
        "dtype", "is_dtype", "is_scalar", "is_complex", "is_vector", "is_matrix",
        "is_float_dtype", "is_integer_dtype", "scalar_of", "to_vector", "vector_size",
        "complex_from_float", "make_floating_dtype", "cross_scalar_scalar",
        "cross_vector_scalar", "cross_vector_vector", "cross_vector", "cross_matrix",
        "cross_type", "cross_multiply_type", "from_numpy_dtype", "to_numpy_dtype",
        "host_numpy_dtype", "all_dtypes",
    }
    assert expected <= set(dt.__all__)
    assert all(hasattr(dt, name) for name in dt.__all__)


def test_dtype_identity_usable_as_dict_key_and_pickles_by_reference():
    table = {cls: cls.name for cls in dt.all_dtypes()}
    assert len(table) == len(NAMES)
    assert table[dt.vec3] == "vec3"
    assert dt.vec2 != dt.complex64  # Same GLSL spelling, distinct dtypes.
    assert pickle.loads(pickle.dumps(dt.mat3)) is dt.mat3


def test_old_module_path_is_the_same_module_with_the_same_objects():
    """vkdispatch 0.1.0 code imports ``vkdispatch.base.dtype``, or reaches it as an attribute
    after ``import vkdispatch``; pickles made then name that module."""
    from vkdispatch.base import dtype as old
    import vkdispatch.base.dtype as imported

    assert old is imported is vkdispatch.base.dtype is dt
    assert old.float32 is vkdispatch.float32 and old._Scalar is dt._Scalar
    assert pickle.loads(b"cvkdispatch.base.dtype\nmat3\n.") is vkdispatch.mat3


@pytest.mark.parametrize("row", TABLE, ids=NAMES)
def test_scalar_of_is_the_component_type_of_every_dtype(row):
    name, kind, child, scalar = row[0], row[1], row[7], row[9]
    expected = {"scalar": name, "complex": child, "vector": scalar, "matrix": scalar}[kind]
    assert dt.scalar_of(t(name)) is t(expected)


@pytest.mark.parametrize("value", [3, "float32", None])
def test_scalar_of_non_class_raises_type_error(value):
    with pytest.raises(TypeError, match="scalar_of: t must be a class"):
        dt.scalar_of(value)


@pytest.mark.parametrize("name", ["float32", "vec2", "mat4", "complex32"])
def test_dtype_instantiation_raises_type_error(name):
    with pytest.raises(TypeError, match="cannot be instantiated"):
        t(name)()


# --- predicates --------------------------------------------------------------------------


@pytest.mark.parametrize("value", [3, "float32", None, np.float32(1.0)])
def test_is_dtype_non_class_raises_type_error(value):
    with pytest.raises(TypeError, match="is_dtype: t must be a class"):
        dt.is_dtype(value)


@pytest.mark.parametrize("cls", [int, np.float32, object])
def test_is_dtype_foreign_class_returns_false(cls):
    assert dt.is_dtype(cls) is False
    assert dt.is_scalar(cls) is False
    assert dt.is_float_dtype(cls) is False


@pytest.mark.parametrize("name", NAMES)
def test_is_float_and_integer_dtype_follow_component_scalar(name):
    row = ROWS[name]
    component = name if row[1] == "scalar" else row[9]
    assert dt.is_float_dtype(t(name)) == (component in ("float16", "float32", "float64"))
    assert dt.is_integer_dtype(t(name)) == (
        component in ("int16", "uint16", "int32", "uint32", "int64", "uint64"))


# --- to_vector / vector_size ---------------------------------------------------------------


@pytest.mark.parametrize("count", [1, 2, 3, 4])
@pytest.mark.parametrize("scalar", list(VECTOR_PREFIX))
def test_to_vector_supported_scalar_returns_vector_of_count(scalar, count):
    result = dt.to_vector(t(scalar), count)
    assert result is t(expected_vector(scalar, count))
    if count > 1:
        assert result.scalar is t(scalar)
        assert result.child_count == count
        assert dt.vector_size(result) == count


@pytest.mark.parametrize("scalar", ["int64", "uint64", "complex64", "vec2", "mat2"])
def test_to_vector_unsupported_scalar_raises_value_error(scalar):
    with pytest.raises(ValueError, match=f"to_vector: scalar must be one of .*got {scalar}"):
        dt.to_vector(t(scalar), 2)


@pytest.mark.parametrize("count", [0, 5, 7, -1, 2.0, True, "2"])
def test_to_vector_count_out_of_range_raises_value_error(count):
    with pytest.raises(ValueError, match=r"to_vector: count must be an int in 1\.\.4"):
        dt.to_vector(dt.float32, count)


def test_to_vector_count_error_names_actual_value():
    with pytest.raises(ValueError, match="got 7$"):
        dt.to_vector(dt.float32, 7)


@pytest.mark.parametrize("name", SCALARS + COMPLEX + MATRICES)
def test_vector_size_non_vector_raises_value_error(name):
    with pytest.raises(ValueError, match=f"vector_size: t must be a vector dtype, got {name}"):
        dt.vector_size(t(name))


# --- complex_from_float / make_floating_dtype -----------------------------------------------


@pytest.mark.parametrize("name", list(COMPLEX_OF))
def test_complex_from_float_float_returns_complex_of_same_part(name):
    result = dt.complex_from_float(t(name))
    assert result is t(COMPLEX_OF[name])
    assert result.child_type is t(name)


@pytest.mark.parametrize("name", ["int32", "uint16", "int64", "complex64", "vec2", "mat2"])
def test_complex_from_float_non_float_raises_value_error(name):
    with pytest.raises(ValueError, match=f"complex_from_float: t must be .*got {name}"):
        dt.complex_from_float(t(name))


@pytest.mark.parametrize("name", SCALARS)
def test_make_floating_dtype_scalar_returns_float_of_same_width(name):
    result = dt.make_floating_dtype(t(name))
    assert result is t(SAME_WIDTH_FLOAT[name])
    assert result.item_size == t(name).item_size


@pytest.mark.parametrize("name", VECTORS)
def test_make_floating_dtype_vector_returns_float_vector_of_same_length(name):
    scalar = ROWS[name][9]
    count = ROWS[name][8]
    assert dt.make_floating_dtype(t(name)) is t(expected_vector(SAME_WIDTH_FLOAT[scalar], count))


@pytest.mark.parametrize("name", COMPLEX + MATRICES)
def test_make_floating_dtype_complex_and_matrix_returns_unchanged(name):
    assert dt.make_floating_dtype(t(name)) is t(name)


def test_make_floating_dtype_non_dtype_raises_type_error():
    with pytest.raises(TypeError, match="make_floating_dtype: t must be a vkdispatch dtype"):
        dt.make_floating_dtype(float)


# --- scalar promotion ------------------------------------------------------------------------


@pytest.mark.parametrize("a, b", list(itertools.product(SCALARS, SCALARS)))
def test_cross_scalar_scalar_all_pairs_higher_rank_wins(a, b):
    expected = t(expected_promotion(a, b))
    assert dt.cross_scalar_scalar(t(a), t(b)) is expected
    assert dt.cross_type(t(a), t(b)) is expected
    assert dt.cross_multiply_type(t(a), t(b)) is expected


def test_cross_type_examples_from_reference_hold():
    assert dt.cross_type(dt.uint32, dt.int32) is dt.int32
    assert dt.cross_type(dt.int32, dt.float32) is dt.float32
    assert dt.cross_type(dt.float16, dt.float32) is dt.float32
    assert dt.cross_type(dt.int64, dt.float16) is dt.float16
    assert dt.cross_type(dt.vec2, dt.float32) is dt.vec2
    assert dt.cross_type(dt.complex64, dt.complex64) is dt.complex64
    assert dt.cross_type(dt.complex64, dt.float32) is dt.complex64
    assert dt.cross_multiply_type(dt.mat4, dt.vec4) is dt.vec4


@pytest.mark.parametrize("other", COMPLEX + ["vec2", "mat2"])
def test_cross_scalar_scalar_non_scalar_raises_value_error(other):
    with pytest.raises(ValueError, match=f"cross_scalar_scalar: b must be a scalar .*{other}"):
        dt.cross_scalar_scalar(dt.float32, t(other))
    with pytest.raises(ValueError, match=f"cross_scalar_scalar: a must be a scalar .*{other}"):
        dt.cross_scalar_scalar(t(other), dt.float32)


@pytest.mark.parametrize("value", [int, 3, None, dt._Scalar])
def test_cross_type_non_dtype_raises_type_error(value):
    with pytest.raises(TypeError, match="cross_type: a must be"):
        dt.cross_type(value, dt.float32)
    with pytest.raises(TypeError, match="cross_type: b must be"):
        dt.cross_type(dt.float32, value)


# --- complex promotion -----------------------------------------------------------------------


@pytest.mark.parametrize("a, b", list(itertools.product(COMPLEX, COMPLEX)))
def test_cross_type_complex_complex_returns_complex_of_promoted_part(a, b):
    part = expected_promotion(ROWS[a][7], ROWS[b][7])
    assert dt.cross_type(t(a), t(b)) is t(COMPLEX_OF[part])


@pytest.mark.parametrize("c, s", list(itertools.product(COMPLEX, SCALARS)))
def test_cross_type_complex_scalar_widens_ints_to_float_first(c, s):
    part = expected_promotion(ROWS[c][7], SAME_WIDTH_FLOAT[s])
    expected = t(COMPLEX_OF[part])
    assert dt.cross_type(t(c), t(s)) is expected
    assert dt.cross_type(t(s), t(c)) is expected


def test_cross_type_complex32_int32_returns_complex64():
    assert dt.cross_type(dt.complex32, dt.int32) is dt.complex64
    assert dt.cross_type(dt.uint16, dt.complex32) is dt.complex32


# --- vector promotion ------------------------------------------------------------------------


@pytest.mark.parametrize("a, b", list(itertools.product(VECTORS, VECTORS)))
def test_cross_vector_vector_all_pairs_follow_length_and_rank_rule(a, b):
    if ROWS[a][8] != ROWS[b][8]:
        with pytest.raises(ValueError, match="cross_vector_vector: vectors must have equal"):
            dt.cross_vector_vector(t(a), t(b))
        with pytest.raises(ValueError, match=f"{a}.*{b}"):
            dt.cross_type(t(a), t(b))
        return
    expected = t(expected_vector(expected_promotion(ROWS[a][9], ROWS[b][9]), ROWS[a][8]))
    assert dt.cross_vector_vector(t(a), t(b)) is expected
    assert dt.cross_vector(t(a), t(b)) is expected
    assert dt.cross_type(t(a), t(b)) is expected
    assert dt.cross_multiply_type(t(a), t(b)) is expected


@pytest.mark.parametrize("v, s", list(itertools.product(VECTORS, SCALARS)))
def test_cross_vector_scalar_all_pairs_keep_length_with_promoted_scalar(v, s):
    promoted = expected_promotion(ROWS[v][9], s)
    name = expected_vector(promoted, ROWS[v][8])
    if name is None:  # e.g. ivec2 x int64: there are no 64-bit int vectors.
        with pytest.raises(ValueError, match=f"promotes to {promoted}, which has no vector"):
            dt.cross_vector_scalar(t(v), t(s))
        # cross_type puts the vector first, whichever side it was on.
        with pytest.raises(ValueError,
                           match=f"^cross_vector_scalar: {v} x {s} promotes to {promoted},"):
            dt.cross_type(t(s), t(v))
        return
    assert dt.cross_vector_scalar(t(v), t(s)) is t(name)
    assert dt.cross_vector(t(v), t(s)) is t(name)
    assert dt.cross_type(t(v), t(s)) is t(name)
    assert dt.cross_type(t(s), t(v)) is t(name)


@pytest.mark.parametrize("v, c", list(itertools.product(["vec2", "ivec3", "hvec4"], COMPLEX)))
def test_cross_type_vector_complex_raises_value_error(v, c):
    with pytest.raises(ValueError, match=f"cross_vector: b must be a vector or real scalar.*{c}"):
        dt.cross_vector(t(v), t(c))
    with pytest.raises(ValueError, match=c):
        dt.cross_type(t(v), t(c))
    with pytest.raises(ValueError, match=c):
        dt.cross_type(t(c), t(v))


def test_cross_vector_scalar_wrong_categories_raise_value_error():
    with pytest.raises(ValueError, match="cross_vector_scalar: a must be a vector dtype"):
        dt.cross_vector_scalar(dt.float32, dt.float32)
    with pytest.raises(ValueError, match="cross_vector_scalar: b must be a scalar dtype"):
        dt.cross_vector_scalar(dt.vec2, dt.vec2)
    with pytest.raises(ValueError, match="cross_vector: a must be a vector dtype, got mat2"):
        dt.cross_vector(dt.mat2, dt.vec2)
    with pytest.raises(ValueError, match="cross_vector: b must be .*got mat2"):
        dt.cross_vector(dt.vec2, dt.mat2)


# --- matrix promotion ------------------------------------------------------------------------


@pytest.mark.parametrize("a, b", list(itertools.product(MATRICES, MATRICES)))
def test_cross_matrix_matrix_equal_shape_returns_first_else_raises(a, b):
    if a == b:
        assert dt.cross_matrix(t(a), t(b)) is t(a)
        assert dt.cross_type(t(a), t(b)) is t(a)
        return
    with pytest.raises(ValueError, match=f"cross_matrix: matrices must have equal shapes.*{a}"):
        dt.cross_matrix(t(a), t(b))
    with pytest.raises(ValueError, match=f"^cross_matrix: matrices must have equal shapes, "
                                         f"got {a} .* and {b} "):
        dt.cross_type(t(a), t(b))


@pytest.mark.parametrize("m, s", list(itertools.product(MATRICES, SCALARS)))
def test_cross_type_matrix_scalar_returns_matrix(m, s):
    assert dt.cross_matrix(t(m), t(s)) is t(m)
    assert dt.cross_type(t(m), t(s)) is t(m)
    assert dt.cross_type(t(s), t(m)) is t(m)
    assert dt.cross_multiply_type(t(s), t(m)) is t(m)


@pytest.mark.parametrize("m, other", list(itertools.product(MATRICES, VECTORS + COMPLEX)))
def test_cross_type_matrix_vector_or_complex_raises_value_error(m, other):
    with pytest.raises(ValueError, match=f"cross_matrix: b must be a matrix or real .*{other}"):
        dt.cross_type(t(m), t(other))
    with pytest.raises(ValueError, match=other):
        dt.cross_type(t(other), t(m))


def test_cross_matrix_non_matrix_first_raises_value_error():
    with pytest.raises(ValueError, match="cross_matrix: a must be a matrix dtype, got vec2"):
        dt.cross_matrix(dt.vec2, dt.mat2)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_cross_multiply_type_matrix_vector_same_size_returns_vector(n):
    mat, vec = t(f"mat{n}"), t(f"vec{n}")
    assert dt.cross_multiply_type(mat, vec) is vec
    assert dt.cross_multiply_type(vec, mat) is vec


@pytest.mark.parametrize("m, v", [(m, v) for m, v in itertools.product(MATRICES, VECTORS)
                                  if ROWS[v][8] != ROWS[m][8]])
def test_cross_multiply_type_size_mismatch_raises_value_error(m, v):
    with pytest.raises(ValueError, match=f"sizes must match, got {m} \\* {v}"):
        dt.cross_multiply_type(t(m), t(v))
    with pytest.raises(ValueError, match=f"sizes must match, got {v} \\* {m}"):
        dt.cross_multiply_type(t(v), t(m))


@pytest.mark.parametrize("m, v", [(m, v) for m, v in itertools.product(MATRICES, VECTORS)
                                  if ROWS[v][8] == ROWS[m][8] and ROWS[v][9] != "float32"])
def test_cross_multiply_type_non_float32_vector_raises_value_error(m, v):
    with pytest.raises(ValueError, match=f"need a float32 vector.*got {m} \\* {v}"):
        dt.cross_multiply_type(t(m), t(v))
    with pytest.raises(ValueError, match="need a float32 vector"):
        dt.cross_multiply_type(t(v), t(m))


def test_cross_multiply_type_matrix_matrix_delegates_to_cross_type():
    assert dt.cross_multiply_type(dt.mat3, dt.mat3) is dt.mat3
    with pytest.raises(ValueError, match="matrices must have equal shapes"):
        dt.cross_multiply_type(dt.mat2, dt.mat3)


# --- numpy mapping -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCALARS + COMPLEX)
def test_to_numpy_dtype_from_numpy_dtype_round_trip_returns_same_dtype(name):
    host = dt.to_numpy_dtype(t(name))
    assert dt.from_numpy_dtype(host) is t(name)
    if name == "complex32":
        assert isinstance(host, dt.HostDtype)
        assert host.name == "complex32"
        assert host.numpy_dtype is np.complex64
        assert host.storage_dtype is np.float16
        assert host.components == 2
        assert host.itemsize == dt.complex32.item_size
    else:
        assert host is NUMPY_OF[name]
        assert dt.from_numpy_dtype(np.dtype(host)) is t(name)
        assert dt.from_numpy_dtype(name) is t(name)
        assert dt.from_numpy_dtype(np.zeros(3, dtype=host).dtype) is t(name)


def test_from_numpy_dtype_complex32_name_returns_complex32():
    assert dt.from_numpy_dtype("complex32") is dt.complex32


def test_from_numpy_dtype_python_builtins_map_by_numpy_name():
    assert dt.from_numpy_dtype(float) is dt.float64
    assert dt.from_numpy_dtype(complex) is dt.complex128
    assert dt.from_numpy_dtype(np.dtype(">f4")) is dt.float32  # Byte order is ignored.


@pytest.mark.parametrize("value, shown", [
    (np.bool_, "bool"), (bool, "bool"), (np.int8, "int8"), (np.uint8, "uint8"),
    (object, "object"), (np.dtype("U4"), "str"), (np.dtype([("x", np.float32)]), "void"),
])
def test_from_numpy_dtype_unsupported_raises_value_error_listing_supported(value, shown):
    with pytest.raises(ValueError, match=rf"^Unsupported dtype \({shown}") as info:
        dt.from_numpy_dtype(value)
    message = str(info.value)
    assert "from_numpy_dtype: np_dtype must be one of" in message
    assert all(name in message for name in SCALARS + COMPLEX)


@pytest.mark.parametrize("value", [None, "not-a-dtype", 3.5])
def test_from_numpy_dtype_uninterpretable_raises_value_error(value):
    with pytest.raises(ValueError, match=r"^Unsupported dtype \("):
        dt.from_numpy_dtype(value)


@pytest.mark.parametrize("name", VECTORS + MATRICES)
def test_to_numpy_dtype_vector_or_matrix_raises_value_error(name):
    with pytest.raises(ValueError, match=f"to_numpy_dtype: t must be a scalar or complex .*{name}"):
        dt.to_numpy_dtype(t(name))


@pytest.mark.parametrize("name", NAMES)
def test_host_numpy_dtype_uses_scalar_or_dtype_itself(name):
    row = ROWS[name]
    if name == "complex32":
        expected = np.dtype(np.float16)
    elif row[9] is not None:
        expected = np.dtype(getattr(np, row[9]))
    else:
        expected = np.dtype(NUMPY_OF[name])
    result = dt.host_numpy_dtype(t(name))
    assert isinstance(result, np.dtype)
    assert result == expected


@pytest.mark.parametrize("name", [n for n in NAMES if n != "complex32"])
def test_host_numpy_dtype_host_element_bytes_equal_item_size(name):
    host_elem = int(np.prod(t(name).true_numpy_shape, dtype=np.int64))
    assert dt.host_numpy_dtype(t(name)).itemsize * host_elem == t(name).item_size


def test_host_numpy_dtype_complex32_pairs_convert_to_complex64():
    raw = np.array([[1.5, -2.0], [0.25, 3.0]], dtype=dt.host_numpy_dtype(dt.complex32))
    assert raw.nbytes == 2 * dt.complex32.item_size
    values = (raw[..., 0] + 1j * raw[..., 1]).astype(dt.to_numpy_dtype(dt.complex32).numpy_dtype)
    assert values.dtype == np.complex64
    np.testing.assert_array_equal(values, np.array([1.5 - 2j, 0.25 + 3j], dtype=np.complex64))
