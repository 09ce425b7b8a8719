"""Arithmetic and typing of traced expressions: the promotion rules of ``vkdispatch.base.dtype``
(docs/shaders.rst, "The DSL"), with vkdispatch 0.1.0's wrong labels fixed (comparisons are
booleans, ``abs`` keeps integer types, ``x ** 2`` on integers multiplies integers, ``x ** 0``
is a typed 1).

Every case checks three things: the DSL's dtype label, the shape of the emitted text, and that
GLSL computes exactly the labelled type (``assert_glsl_type`` compiles a probe that only
type-checks on an exact match), so labels and generated code cannot drift apart.
"""
from __future__ import annotations

import math

import pytest

import vkdispatch.codegen as vc
from codegen_helpers import assert_compiles, assert_glsl_type, main_body, trace
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import (Buff, Const, Var, c64, f16, f32, f64, i16, i32,
                                              i64, iv2, m2, u16, u32, u64, uv3, v2, v3)
from vkdispatch.codegen.literals import boolean, format_literal, number_to_dtype

SCALARS = {"f32": f32, "i32": i32, "u32": u32}


def traced(annotations, build):
    """Traces ``build(*args)`` (which returns a list of expressions); checks that every
    expression compiles with its label; returns (description, expressions)."""
    description, expressions = trace(lambda *args: build(*args), *annotations)
    for expression in expressions:
        assert_glsl_type(description, expression)
    return description, expressions


# -- literals ------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    (0, dt.uint32), (7, dt.uint32), (2**32 - 1, dt.uint32), (2**32, dt.uint64),
    (-1, dt.int32), (-(2**31), dt.int32), (-(2**31) - 1, dt.int64), (1.5, dt.float32),
])
def test_number_to_dtype_follows_reference_literal_typing(value, expected):
    assert number_to_dtype(value) is expected


@pytest.mark.parametrize("value, as_type, text", [
    (3, None, "3"), (1.5, None, "1.5f"), (2.0, None, "2.0f"), (1e-07, None, "1e-07f"),
    (float("inf"), None, "uintBitsToFloat(0x7F800000)"),
    (float("-inf"), None, "uintBitsToFloat(0xFF800000)"),
    (float("nan"), None, "(0.0f / 0.0f)"),
    (float("inf"), dt.float64, "packDouble2x32(uvec2(0x00000000u, 0x7FF00000u))"),
    (float("-inf"), dt.float16, "float16_t(uintBitsToFloat(0xFF800000))"),
    (3, dt.float32, "3.0f"), (0.25, dt.float64, "0.25lf"), (0.5, dt.float16, "float16_t(0.5f)"),
    (3_000_000_000, None, "3000000000u"), (5_000_000_000, None, "5000000000ul"),
    (-5_000_000_000, None, "-5000000000l"), (7, dt.int64, "7l"), (7, dt.uint64, "7ul"),
])
def test_format_literal_spells_values_for_glsl(value, as_type, text):
    assert format_literal(value, as_type) == text


def test_literals_of_every_kind_compile():
    def build(out):
        i = vc.global_invocation_id().x
        return [out[i] + 1.5, out[i] + float("inf"), out[i] * float("-inf"), out[i] + 1e-07,
                out[i] + float("nan")]

    traced([Buff[f32]], build)


def test_big_literals_get_suffixes_and_their_extension():
    def build(out):
        i = vc.global_invocation_id().x
        return [i + 3_000_000_000, i + 5_000_000_000, i + -5_000_000_000]

    description, (a, b, c) = traced([Buff[u32]], build)
    assert a.var_type is dt.uint32 and "3000000000u" in a.name
    assert b.var_type is dt.uint64 and "uint64_t(gl_GlobalInvocationID.x)" in b.name
    assert c.var_type is dt.int64 and "-5000000000l" in c.name
    assert "GL_ARB_gpu_shader_int64" in description.extensions


# -- binary operators: labels follow cross_type; GLSL agrees -----------------------------------

@pytest.mark.parametrize("left", SCALARS)
@pytest.mark.parametrize("right", SCALARS)
@pytest.mark.parametrize("op", ["+", "-", "*"])
def test_binary_op_of_two_values_is_typed_by_cross_type(left, right, op):
    def build(a, b):
        return [eval(f"a {op} b")]

    _, (result,) = traced([Const[SCALARS[left]], Var[SCALARS[right]]], build)
    assert result.var_type is dt.cross_type(SCALARS[left], SCALARS[right])


def test_uint_plus_int_is_int_and_the_uint_is_converted():
    _, (result,) = traced([Const[u32], Const[i32]], lambda a, b: [a + b])
    assert result.var_type is dt.int32
    assert result.name == "(int(UBO.var0) + UBO.var1)"


def test_same_type_operands_are_printed_without_casts():
    _, (a, b, c) = traced([Const[f32], Const[f32]],
                          lambda x, y: [x + y, x * y - y, x + 1])
    assert a.name == "(UBO.var0 + UBO.var1)"
    assert b.name == "((UBO.var0 * UBO.var1) - UBO.var1)"
    assert c.name == "(UBO.var0 + 1)"


@pytest.mark.parametrize("literal, expected", [
    (1, dt.uint32), (-1, dt.int32), (2.5, dt.float32)])
def test_uint_value_with_literal_promotes_like_the_literal_type(literal, expected):
    _, (result,) = traced([Const[u32]], lambda a: [a + literal])
    assert result.var_type is dt.cross_type(dt.uint32, expected)


def test_reverse_operators_keep_operand_order():
    _, (a, b, c) = traced([Const[f32]], lambda x: [1 - x, 2.5 / x, 3 + x])
    assert a.name == "(1 - UBO.var0)"
    assert b.name == "(2.5f / UBO.var0)"
    assert c.name == "(3 + UBO.var0)"


def test_multiplying_by_one_returns_the_value_itself():
    _, (result,) = trace(lambda a: [a * 1], Const[f32])
    assert result.name == "UBO.var0"


def test_multiplying_an_int_by_float_one_makes_a_float():
    _, (result,) = traced([Const[i32]], lambda a: [a * 1.0])
    assert result.var_type is dt.float32
    assert result.name == "(float(UBO.var0) * 1.0f)"


def test_integer_times_power_of_two_is_a_shift():
    _, (a, b) = traced([Const[i32], Const[u32]], lambda x, y: [x * 8, 4 * y])
    assert a.name == "(UBO.var0 << 3)" and a.var_type is dt.int32
    assert b.name == "(UBO.var1 << 2)" and b.var_type is dt.uint32


def test_integer_index_arithmetic_with_zero_is_folded():
    """x * 0 -> 0, x + 0, 0 + x and x - 0 -> x for integers (what index helpers and strides of
    0 produce); 0 - x stays a subtraction."""
    _, (zero, reverse_zero, plus, before, minus, negated, chained) = traced(
        [Const[i32], Const[u32]],
        lambda x, y: [x * 0, 0 * y, x + 0, 0 + y, x - 0, 0 - x, y * 3 + x * 0 + 0])
    assert zero.name == "0" and zero.is_literal and zero.var_type is dt.int32
    assert reverse_zero.name == "0u" and reverse_zero.var_type is dt.uint32
    assert (plus.name, before.name, minus.name) == ("UBO.var0", "UBO.var1", "UBO.var0")
    assert negated.name == "(0 - UBO.var0)"
    # uint + int is int: the folded int 0 still converts y * 3; the final + 0 is dropped
    assert chained.name == "(int((UBO.var1 * 3)) + 0)"


def test_float_arithmetic_with_zero_is_left_alone():
    """A float times 0 is NaN for infinities and NaNs, and x + 0.0 turns -0.0 into 0.0."""
    _, (product, total) = traced([Const[f32]], lambda x: [x * 0.0, x + 0.0])
    assert product.name == "(UBO.var0 * 0.0f)"
    assert total.name == "(UBO.var0 + 0.0f)"


def test_modulus_by_a_power_of_two_is_a_mask():
    _, (masked, signed, other) = traced([Const[u32], Const[i32]],
                                        lambda u, i: [u % 16, i % 16, u % 12])
    assert masked.name == "(UBO.var0 & 15u)" and masked.var_type is dt.uint32
    assert signed.name == "(UBO.var1 & 15)"  # two's complement: Python's % of a power of 2
    assert other.name == "(UBO.var0 % 12)"


def test_float_times_power_of_two_is_a_multiplication():
    _, (result,) = traced([Const[f32]], lambda x: [x * 8])
    assert result.name == "(UBO.var0 * 8)"


# -- division ----------------------------------------------------------------------------------

def test_true_division_converts_integers_to_float():
    _, (a, b, c) = traced([Const[i32], Const[u32]], lambda x, y: [x / 2, 3 / x, x / y])
    assert a.name == "(float(UBO.var0) / 2.0f)"
    assert b.name == "(3.0f / float(UBO.var0))"
    assert c.name == "(float(UBO.var0) / float(UBO.var1))"
    assert a.var_type is b.var_type is c.var_type is dt.float32


@pytest.mark.parametrize("annotation, expected", [
    (i16, dt.float16), (f16, dt.float16), (i64, dt.float64), (f64, dt.float64),
    (iv2, dt.vec2), (v3, dt.vec3)])
def test_true_division_gives_the_floating_type_of_the_operands(annotation, expected):
    _, (result,) = traced([Const[annotation]], lambda x: [x / x])
    assert result.var_type is expected


def test_floor_division_by_power_of_two_is_a_shift():
    _, (a, b, c) = traced([Const[i32]], lambda x: [x // 4, x // 1, x // 3])
    assert a.name == "(UBO.var0 >> 2)"
    assert b.name == "UBO.var0"
    # Python's flooring: GLSL's truncating quotient, one less where the remainder is not zero
    # and the operands differ in sign.
    assert c.name == ("((UBO.var0 / 3) - int(((UBO.var0 / 3) * 3 != UBO.var0) && "
                      "((UBO.var0 ^ 3) < int(0))))")


def test_floor_division_and_modulus_of_mixed_integers():
    _, (a, b, c) = traced([Const[u32], Const[i32]], lambda u, i: [u // i, u % i, 7 // u])
    assert a.var_type is b.var_type is dt.int32
    assert a.name.startswith("((int(UBO.var0) / UBO.var1) - int(")  # signed: flooring
    assert b.name.startswith("((int(UBO.var0) - (int(UBO.var0) / UBO.var1) * UBO.var1) + ")
    assert c.name == "(7 / UBO.var0)"  # unsigned: GLSL's / already floors


# -- powers ------------------------------------------------------------------------------------

def test_integer_square_is_an_integer_multiplication():
    _, (a, b) = traced([Const[i32], Const[u32]], lambda i, u: [i ** 2, u ** 3])
    assert a.name == "(UBO.var0 * UBO.var0)" and a.var_type is dt.int32
    assert b.name == "(UBO.var1 * UBO.var1 * UBO.var1)" and b.var_type is dt.uint32


def test_power_zero_is_a_typed_one():
    _, (a, b, c) = traced([Const[i32], Const[f32], Const[v2]],
                          lambda i, f, v: [i ** 0, f ** 0, v ** 0])
    assert (a.name, a.var_type) == ("int(1)", dt.int32)
    assert (b.name, b.var_type) == ("float(1)", dt.float32)
    assert (c.name, c.var_type) == ("vec2(1)", dt.vec2)


def test_power_one_is_the_value():
    _, (result,) = trace(lambda x: [x ** 1], Const[f32])
    assert result.name == "UBO.var0"


def test_negative_small_power_is_a_reciprocal_of_floats():
    _, (a, b) = traced([Const[i32], Const[f32]], lambda i, f: [i ** -2, f ** -1])
    assert a.var_type is dt.float32
    assert a.name == "(1.0f / float((UBO.var0 * UBO.var0)))"
    assert b.name == "(1.0f / UBO.var1)"


def test_other_powers_use_pow_on_floats():
    _, (a, b, c, d) = traced([Const[i32], Const[f32], Const[v2]],
                             lambda i, f, v: [i ** 5, f ** 0.5, 2 ** f, v ** 1.5])
    assert a.name == "pow(float(UBO.var0), 5.0f)" and a.var_type is dt.float32
    assert b.name == "pow(UBO.var1, 0.5f)"
    assert c.name == "pow(2.0f, UBO.var1)"
    assert d.name == "pow(UBO.var2, vec2(1.5f))" and d.var_type is dt.vec2


def test_pow_of_doubles_is_evaluated_in_float():
    _, (result,) = traced([Const[f64]], lambda d: [d ** 0.5])
    assert result.var_type is dt.float64
    assert result.name == "double(pow(float(UBO.var0), 0.5f))"


# -- unary and builtin abs ---------------------------------------------------------------------

def test_negation_and_abs_keep_the_type():
    _, (a, b, c, d) = traced([Const[i32], Const[u32], Const[v2]],
                             lambda i, u, v: [-i, abs(i), abs(u), -v])
    assert a.name == "(-UBO.var0)" and a.var_type is dt.int32
    assert b.name == "abs(UBO.var0)" and b.var_type is dt.int32
    assert c.name == "UBO.var1"  # abs of an unsigned value is the value
    assert d.var_type is dt.vec2


def test_unary_plus_is_identity():
    _, (result,) = trace(lambda x: [+x], Const[f32])
    assert result.name == "UBO.var0"


# -- bitwise -----------------------------------------------------------------------------------

def test_bitwise_operators_on_integers():
    def build(i, u):
        return [i & 255, u | i, i ^ u, ~u, u << 2, i >> u, 1 << u, 0xF0 & u]

    _, results = traced([Const[i32], Const[u32]], build)
    assert [r.name for r in results] == [
        "(UBO.var0 & 255)", "(int(UBO.var1) | UBO.var0)", "(UBO.var0 ^ int(UBO.var1))",
        "(~UBO.var1)", "(UBO.var1 << 2)", "(UBO.var0 >> int(UBO.var1))", "(1u << UBO.var1)",
        "(240 & UBO.var1)"]


def test_shifting_a_scalar_by_a_vector_widens_the_scalar():
    _, (result,) = traced([Const[i32], Const[iv2]], lambda i, v: [i << v])
    assert result.var_type is dt.ivec2
    assert result.name == "(ivec2(UBO.var0) << UBO.var1)"


# -- comparisons -------------------------------------------------------------------------------

def test_comparisons_are_booleans():
    def build(f, i, u):
        return [f < 1.5, i <= 2, u > i, f >= i, i == 3, u != 4, 1 < f]

    _, results = traced([Const[f32], Const[i32], Const[u32]], build)
    assert all(r.var_type is boolean for r in results)
    assert [r.name for r in results] == [
        "(UBO.var0 < 1.5f)", "(UBO.var1 <= 2)", "(int(UBO.var2) > UBO.var1)",
        "(UBO.var0 >= float(UBO.var1))", "(UBO.var1 == 3)", "(UBO.var2 != 4)",
        "(UBO.var0 > 1)"]


def test_vector_equality_broadcasts_a_scalar():
    _, (a, b) = traced([Const[v2]], lambda v: [v == v, v != 1.0])
    assert a.var_type is boolean and b.name == "(UBO.var0 != vec2(1.0f))"


def test_booleans_compare_with_booleans():
    _, (result,) = traced([Const[f32]], lambda f: [(f < 1) == (f > 0)])
    assert result.var_type is boolean


def test_a_comparison_can_be_cast_to_a_number():
    _, (a, b) = traced([Const[f32], Const[f32]],
                       lambda x, y: [vc.to_float(x < y), vc.to_int(x < y) + 1])
    assert a.name == "float((UBO.var0 < UBO.var1))" and a.var_type is dt.float32
    assert b.var_type is dt.int32


# -- vectors, matrices, complex ----------------------------------------------------------------

def test_vector_scalar_arithmetic_keeps_the_vector_shape():
    def build(v, f, i, u):
        return [v * f, v + i, i * v, u + vc.global_invocation_id(), v / 10.0]

    _, results = traced([Const[v2], Const[f32], Const[i32], Const[uv3]], build)
    assert [r.var_type for r in results] == [dt.vec2, dt.vec2, dt.vec2, dt.uvec3, dt.vec2]
    assert results[1].name == "(UBO.var0 + float(UBO.var2))"


def test_int_vector_with_float_scalar_is_a_float_vector():
    _, (result,) = traced([Const[iv2], Const[f32]], lambda v, f: [v * f])
    assert result.var_type is dt.vec2
    assert result.name == "(vec2(UBO.var0) * UBO.var1)"


def test_matrix_vector_products_and_scalar_scaling():
    _, (a, b, c, d, e) = traced([Const[m2], Const[v2]],
                                lambda m, v: [m * v, v * m, m * 2.0, m @ m, m @ v])
    assert (a.var_type, b.var_type, c.var_type) == (dt.vec2, dt.vec2, dt.mat2)
    assert d.var_type is dt.mat2 and d.name == "(UBO.var0 * UBO.var0)"
    assert e.var_type is dt.vec2


def test_complex_scaled_by_real_values():
    _, (a, b, c) = traced([Const[c64], Const[f32], Const[i32]],
                          lambda z, f, i: [z * f, z * i, z + z])
    assert a.var_type is b.var_type is c.var_type is dt.complex64
    assert b.name == "(UBO.var0 * float(UBO.var2))"


# -- 16- and 64-bit types ----------------------------------------------------------------------

def test_float16_arithmetic_with_literals_stays_float16():
    description, (a, b, c) = traced([Const[f16]], lambda h: [h * 2, h + h, h / 4])
    assert a.var_type is dt.float16 and a.name == "(UBO.var0 * float16_t(2.0f))"
    assert b.var_type is dt.float16
    assert c.var_type is dt.float16 and c.name == "(UBO.var0 / float16_t(4.0f))"
    assert "GL_EXT_shader_explicit_arithmetic_types_float16" in description.extensions


def test_float16_with_float_literal_promotes_to_float32():
    _, (result,) = traced([Const[f16]], lambda h: [h + 1.5])
    assert result.var_type is dt.float32
    assert result.name == "(float(UBO.var0) + 1.5f)"


def test_int16_with_literal_follows_the_literal_rank():
    _, (a, b) = traced([Const[i16], Const[u16]], lambda i, u: [i + 1, u + u])
    assert a.var_type is dt.uint32  # the literal is uint32, which outranks int16
    assert b.var_type is dt.uint16


def test_double_arithmetic_spells_float_literals_as_doubles():
    _, (result,) = traced([Const[f64]], lambda d: [d * 0.1])
    assert result.name == "(UBO.var0 * 0.1lf)"


def test_int64_and_uint64_mix_with_32_bit_values():
    _, (a, b) = traced([Const[i64], Const[u64], Const[i32]], lambda a, b, c: [a + c, b * c])
    assert a.var_type is dt.int64 and a.name == "(UBO.var0 + int64_t(UBO.var2))"
    assert b.var_type is dt.uint64


# -- expressions are inlined -------------------------------------------------------------------

def test_expressions_emit_no_statements_until_used():
    def body(out, n):
        i = vc.global_invocation_id().x
        unused = (n + 1) * 3  # noqa: F841 - built but never consumed
        out[i] = n * 2.0

    description, _ = trace(body, Buff[f32], Const[f32])
    assert main_body(description) == ["buf0.data[gl_GlobalInvocationID.x] = (UBO.var0 * 2.0f);"]
    assert_compiles(description)


def test_constant_folding_of_python_numbers_stays_in_python():
    assert vc.sin(0.0) == 0.0
    assert vc.min(3, 2) == 2
    assert vc.sqrt(16) == 4.0
    assert math.isclose(vc.atan2(1.0, 1.0), math.pi / 4)
