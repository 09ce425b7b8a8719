"""Built-in values and math, geometric, matrix and complex functions (docs/shaders.rst, "The
DSL"), with vkdispatch 0.1.0's wrong labels fixed (``dot``/``length``/``distance`` are scalars,
``min``/``max``/``abs`` keep integer types) and ``vc.abs(number)`` and ``vc.modf`` working.

Each call is checked for its label, its text where the shape matters, and for GLSL computing
exactly that label (which also proves the call has a GLSL overload).
"""
from __future__ import annotations

import math

import pytest

import vkdispatch.codegen as vc
from codegen_helpers import assert_glsl_type, trace
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import (Const, c32, c64, c128, f16, f32, f64, i16, i32,
                                              i64, iv3, m2, m3, m4, u32, u64, v2, v3, v4)
from vkdispatch.codegen.literals import boolean


def traced(annotations, build):
    description, results = trace(build, *annotations)
    for result in results:
        assert_glsl_type(description, result)
    return results


# -- built-in values -----------------------------------------------------------------------------

@pytest.mark.parametrize("function, glsl, var_type, subgroup", [
    (vc.global_invocation_id, "gl_GlobalInvocationID", dt.uvec3, False),
    (vc.local_invocation_id, "gl_LocalInvocationID", dt.uvec3, False),
    (vc.local_invocation_index, "gl_LocalInvocationIndex", dt.uint32, False),
    (vc.workgroup_id, "gl_WorkGroupID", dt.uvec3, False),
    (vc.workgroup_size, "gl_WorkGroupSize", dt.uvec3, False),
    (vc.num_workgroups, "gl_NumWorkGroups", dt.uvec3, False),
    (vc.num_subgroups, "gl_NumSubgroups", dt.uint32, True),
    (vc.subgroup_id, "gl_SubgroupID", dt.uint32, True),
    (vc.subgroup_size, "gl_SubgroupSize", dt.uint32, True),
    (vc.subgroup_invocation_id, "gl_SubgroupInvocationID", dt.uint32, True),
])
def test_builtin_values(function, glsl, var_type, subgroup):
    description, (value,) = trace(lambda: [function()])
    assert value.name == glsl and value.var_type is var_type
    assert ("GL_KHR_shader_subgroup_arithmetic" in description.extensions) is subgroup
    assert_glsl_type(description, value)


@pytest.mark.parametrize("function, var_type, text", [
    (vc.inf_f32, dt.float32, "uintBitsToFloat(0x7F800000)"),
    (vc.ninf_f32, dt.float32, "uintBitsToFloat(0xFF800000)"),
    (vc.inf_f64, dt.float64, "packDouble2x32(uvec2(0x00000000u, 0x7FF00000u))"),
    (vc.ninf_f64, dt.float64, "packDouble2x32(uvec2(0x00000000u, 0xFFF00000u))"),
    (vc.inf_f16, dt.float16, "float16_t(uintBitsToFloat(0x7F800000))"),
    (vc.ninf_f16, dt.float16, "float16_t(uintBitsToFloat(0xFF800000))"),
])
def test_infinities(function, var_type, text):
    description, (value,) = trace(lambda: [function()])
    assert value.name == text and value.var_type is var_type
    assert_glsl_type(description, value)


# -- common functions --------------------------------------------------------------------------

UNARY_FLOATING = ["sign", "floor", "ceil", "trunc", "round", "round_even", "fract", "sin",
                  "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                  "acosh", "atanh", "radians", "degrees", "exp", "exp2", "log", "log2", "sqrt",
                  "inversesqrt", "normalize"]


@pytest.mark.parametrize("name", UNARY_FLOATING)
@pytest.mark.parametrize("annotation", [f32, i32, u32, f16, f64, v3, iv3])
def test_unary_functions_give_the_floating_type(name, annotation):
    (result,) = traced([Const[annotation]], lambda x: [getattr(vc, name)(x)])
    assert result.var_type is dt.make_floating_dtype(annotation)


def test_transcendental_functions_of_doubles_are_evaluated_in_float():
    (a, b, c) = traced([Const[f64], Const[v2]],
                       lambda d, v: [vc.sin(d), vc.exp(vc.to_dvec2(v)), vc.sqrt(d)])
    assert a.name == "double(sin(float(UBO.var0)))"
    assert b.name == "dvec2(exp(vec2(dvec2(UBO.var1))))"
    assert c.name == "sqrt(UBO.var0)"  # GLSL has a double sqrt


def test_glsl_names_of_renamed_functions():
    (a, b, c) = traced([Const[f32]], lambda x: [vc.round_even(x), vc.atan2(x, 1.0),
                                                vc.inversesqrt(x)])
    assert a.name == "roundEven(UBO.var0)"
    assert b.name == "atan(UBO.var0, 1.0f)"
    assert c.name == "inversesqrt(UBO.var0)"


@pytest.mark.parametrize("annotation", [i32, u32, f32, i64, u64, i16, v3, iv3])
def test_min_max_clamp_keep_integer_types(annotation):
    results = traced([Const[annotation]], lambda x: [vc.min(x, x), vc.max(x, 1), vc.clamp(x, 0, 3),
                                                     vc.clip(x, 0, 3)])
    assert all(r.var_type is annotation for r in results)


def test_min_max_promote_mixed_arguments():
    (a, b, c, d) = traced([Const[i32], Const[u32], Const[f32]],
                          lambda i, u, f: [vc.min(i, u), vc.max(u, -1), vc.min(i, 2.5),
                                           vc.clamp(f, 0, 1)])
    assert a.var_type is dt.int32 and a.name == "min(UBO.var0, int(UBO.var1))"
    assert b.var_type is dt.int32
    assert c.var_type is dt.float32 and c.name == "min(float(UBO.var0), 2.5f)"
    assert d.name == "clamp(UBO.var2, 0.0f, 1.0f)"


def test_nested_min_max_of_the_same_operand_fold():
    """f(a, f(a, b)) in any operand order is f(a, b) (a driver miscompiled the nested form);
    another operand, another function or another type is left alone."""
    (f1, f2, f3, f4, kept1, kept2, kept3) = traced(
        [Const[i32], Const[i32], Const[f32]],
        lambda x, y, f: [vc.min(x, vc.min(x, -x)), vc.max(vc.max(-x, x), x),
                         vc.min(vc.min(y, x), x), vc.max(y, vc.max(x, y)),
                         vc.min(x, vc.min(y, -x)), vc.min(x, vc.max(x, y)),
                         vc.min(x, vc.min(x, f))])
    assert f1.name == "min(UBO.var0, (-UBO.var0))"
    assert f2.name == "max((-UBO.var0), UBO.var0)"
    assert f3.name == "min(UBO.var1, UBO.var0)"
    assert f4.name == "max(UBO.var0, UBO.var1)"
    assert kept1.name == "min(UBO.var0, min(UBO.var1, (-UBO.var0)))"
    assert kept2.name == "min(UBO.var0, max(UBO.var0, UBO.var1))"
    assert kept3.name == "min(float(UBO.var0), min(float(UBO.var0), UBO.var2))"


def test_vector_functions_accept_scalar_arguments_where_glsl_does():
    results = traced([Const[v3], Const[f32]], lambda v, f: [
        vc.min(v, f), vc.clamp(v, 0.0, 1.0), vc.mix(v, v, 0.25), vc.step(0.5, v),
        vc.smoothstep(0.0, 1.0, v), vc.mod(v, 2.0), vc.pow(v, 2.0), vc.fma(v, f, v),
        vc.atan2(v, 1.0)])
    assert all(r.var_type is dt.vec3 for r in results)
    assert results[0].name == "min(UBO.var0, UBO.var1)"
    assert results[6].name == "pow(UBO.var0, vec3(2.0f))"  # pow has no (vec3, float) overload
    assert results[7].name == "fma(UBO.var0, vec3(UBO.var1), UBO.var0)"


@pytest.mark.parametrize("annotation", [f32, i32, u32, i64, f16, f64, v2, iv3])
def test_abs_keeps_the_type(annotation):
    (a, b) = traced([Const[annotation]], lambda x: [vc.abs(x), abs(x)])
    assert a.var_type is b.var_type is annotation


def test_abs_of_a_python_number_is_the_python_abs():
    assert vc.abs(-3) == 3
    assert vc.abs(-2.5) == 2.5


def test_mod_and_modf():
    (a, b, whole, fraction) = traced([Const[f32], Const[i32]], lambda f, i: [
        vc.mod(f, 3.0), vc.mod(i, 2), *reversed(vc.modf(f))])
    assert a.name == "mod(UBO.var0, 3.0f)" and a.var_type is dt.float32
    assert b.name == "mod(float(UBO.var1), 2.0f)" and b.var_type is dt.float32
    assert whole.name == "trunc(UBO.var0)"
    assert fraction.name == "(UBO.var0 - trunc(UBO.var0))"


def test_modf_of_a_number_is_fraction_and_whole():
    assert vc.modf(2.75) == (0.75, 2.0)
    assert vc.modf(-1.5, 2.0) == (-0.5, -1.0)


def test_isnan_isinf_are_booleans():
    (a, b) = traced([Const[f32], Const[f64]], lambda f, d: [vc.isnan(f), vc.isinf(d)])
    assert a.var_type is b.var_type is boolean


def test_isnan_of_a_vector_raises():
    with pytest.raises(TypeError, match="boolean vector"):
        trace(lambda v: vc.isnan(v), Const[v2])


def test_bit_casts_keep_the_shape():
    results = traced([Const[f32], Const[v3], Const[i32], Const[u32]], lambda f, v, i, u: [
        vc.float_bits_to_int(f), vc.float_bits_to_uint(v), vc.int_bits_to_float(i),
        vc.uint_bits_to_float(u), vc.float_bits_to_int(i)])
    assert [r.var_type for r in results] == [dt.int32, dt.uvec3, dt.float32, dt.float32,
                                             dt.int32]
    assert results[4].name == "floatBitsToInt(float(UBO.var2))"


# -- geometric functions -----------------------------------------------------------------------

@pytest.mark.parametrize("annotation, scalar", [(v2, dt.float32), (v4, dt.float32),
                                                (iv3, dt.float32), (f32, dt.float32),
                                                (f64, dt.float64)])
def test_dot_length_distance_are_scalars(annotation, scalar):
    results = traced([Const[annotation]], lambda x: [vc.dot(x, x), vc.length(x),
                                                     vc.distance(x, x)])
    assert all(r.var_type is scalar for r in results)


def test_dot_can_be_assigned_to_a_float():
    def body(a, out):
        out[0] = vc.dot(a, a)

    from codegen_helpers import assert_compiles
    from vkdispatch.codegen.abbreviations import Buff
    description, _ = trace(body, Const[v3], Buff[f32])
    assert_compiles(description)


def test_cross_and_normalize():
    (c, n) = traced([Const[v3]], lambda v: [vc.cross(v, v), vc.normalize(v)])
    assert c.var_type is n.var_type is dt.vec3


def test_cross_of_non_vec3_raises():
    with pytest.raises(ValueError, match="cross needs two vec3"):
        trace(lambda v: vc.cross(v, v), Const[v2])


# -- matrices ----------------------------------------------------------------------------------

@pytest.mark.parametrize("matrix, vector", [(m2, v2), (m3, v3), (m4, v4)])
def test_matrix_functions(matrix, vector):
    results = traced([Const[matrix], Const[vector]], lambda m, v: [
        vc.matrix_comp_mult(m, m), vc.outer_product(v, v), vc.transpose(m), vc.inverse(m),
        vc.determinant(m)])
    assert [r.var_type for r in results] == [matrix] * 4 + [dt.float32]
    assert results[0].name == "matrixCompMult(UBO.var0, UBO.var0)"


def test_matrix_functions_reject_other_types():
    with pytest.raises(ValueError, match="needs matrices"):
        trace(lambda v: vc.transpose(v), Const[v2])
    with pytest.raises(ValueError, match="of one type"):
        trace(lambda a, b: vc.matrix_comp_mult(a, b), Const[m2], Const[m3])
    with pytest.raises(ValueError, match="outer_product"):
        trace(lambda a, b: vc.outer_product(a, b), Const[v2], Const[v3])


# -- complex helpers ---------------------------------------------------------------------------

@pytest.mark.parametrize("annotation, expected", [(f32, dt.complex64), (i32, dt.complex64),
                                                  (f16, dt.complex32), (f64, dt.complex128)])
def test_complex_from_euler_angle(annotation, expected):
    (z,) = traced([Const[annotation]], lambda a: [vc.complex_from_euler_angle(a)])
    assert z.var_type is expected


def test_complex_from_euler_angle_text():
    (z,) = traced([Const[f32]], lambda a: [vc.complex_from_euler_angle(a)])
    assert z.name == "vec2(cos(UBO.var0), sin(UBO.var0))"


def test_mult_complex_text_and_types():
    (a, b, c, d) = traced([Const[c64], Const[c128], Const[f32], Const[c32]],
                          lambda z, w, f, h: [vc.mult_complex(z, z), vc.mult_complex(z, w),
                                              vc.mult_complex(2 + 1j, z),
                                              vc.mult_complex(h, f)])
    assert a.name == ("vec2(fma(UBO.var0.x, UBO.var0.x, ((-UBO.var0.y) * UBO.var0.y)), "
                      "fma(UBO.var0.x, UBO.var0.y, (UBO.var0.y * UBO.var0.x)))")
    assert (a.var_type, b.var_type, c.var_type) == (dt.complex64, dt.complex128, dt.complex64)
    assert d.var_type is dt.complex64


def test_mult_complex_needs_a_complex_value():
    with pytest.raises(TypeError, match="at least one complex shader value"):
        trace(lambda f: vc.mult_complex(f, f), Const[f32])


# -- argument checking and Python evaluation ---------------------------------------------------

def test_non_numeric_arguments_raise_value_error():
    with pytest.raises(ValueError, match="arguments must be shader values or Python numbers"):
        trace(lambda f: vc.sin("x"), Const[f32])
    with pytest.raises(ValueError, match="arguments must be shader values"):
        trace(lambda f: vc.min(f, [1]), Const[f32])


def test_boolean_arguments_raise_type_error():
    with pytest.raises(TypeError, match="boolean"):
        trace(lambda f: vc.sin(f < 1), Const[f32])


@pytest.mark.parametrize("function, args, expected", [
    ("sign", (-2.0,), -1.0), ("floor", (1.5,), 1), ("ceil", (1.2,), 2), ("fract", (1.25,), 0.25),
    ("mod", (-1.0, 3.0), 2.0), ("clamp", (5, 0, 1), 1), ("mix", (0.0, 10.0, 0.25), 2.5),
    ("step", (0.5, 0.2), 0.0), ("smoothstep", (0.0, 1.0, 0.5), 0.5), ("fma", (2, 3, 4), 10),
    ("exp2", (3,), 8.0), ("pow", (2, 10), 1024), ("inversesqrt", (4.0,), 0.5),
    ("radians", (180.0,), math.pi), ("isnan", (float("nan"),), True), ("dot", (2, 3), 6),
    ("length", (-3.0,), 3.0), ("distance", (1.0, 4.0), 3.0), ("round_even", (2.5,), 2),
])
def test_functions_of_python_numbers_are_evaluated_in_python(function, args, expected):
    assert getattr(vc, function)(*args) == pytest.approx(expected)
