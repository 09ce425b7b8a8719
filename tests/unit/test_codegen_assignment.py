"""Assignment, registers, in-place operators and casts (docs/shaders.rst, "The DSL"),
including the checks vkdispatch 0.1.0 lacked: a conjugate view keeps its conjugation when
assigned, and a float literal assigned to an integer raises ``TypeError``."""
from __future__ import annotations

import pytest

import vkdispatch.codegen as vc
from codegen_helpers import assert_compiles, assert_glsl_type, main_body, trace
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import (Buff, Const, c32, c64, c128, f16, f32, f64, i16,
                                              i32, i64, iv3, m2, u16, u32, v2, v3)


def compiled(body, *annotations):
    description, result = trace(body, *annotations)
    assert_compiles(description)
    return description, result


# -- set_value and __setitem__ -----------------------------------------------------------------

def test_buffer_assignment_emits_a_statement_and_marks_read_write():
    def body(out, a):
        i = vc.global_invocation_id().x
        out[i] = a[i] * 2.0

    description, _ = compiled(body, Buff[f32], Buff[f32])
    assert main_body(description) == [
        "buf0.data[gl_GlobalInvocationID.x] = (buf1.data[gl_GlobalInvocationID.x] * 2.0f);"]
    assert description.binding_access == [(True, False), (True, True), (True, False)]


def test_int_literal_into_a_float_is_converted():
    description, _ = compiled(lambda out: out.__setitem__(0, 3), Buff[f32])
    assert main_body(description) == ["buf0.data[0] = 3.0f;"]


@pytest.mark.parametrize("annotation, value, text", [
    (f16, 1, "float16_t(1.0f)"), (f64, 0.1, "0.1lf"), (i16, -3, "int16_t(-3)"),
    (u16, 7, "uint16_t(7)"), (i64, -5, "-5l"), (u32, 3_000_000_000, "3000000000u"),
    (i32, -7, "-7"), (v3, 2, "vec3(2.0f)"), (iv3, 1, "ivec3(1)"),
    (m2, 1, "mat2(1.0f, 1.0f, 1.0f, 1.0f)"), (c64, 1 + 2j, "vec2(1.0f, 2.0f)"),
    (c64, 3, "vec2(3.0f, 0.0f)"), (c128, 0.5j, "dvec2(0.0lf, 0.5lf)"),
])
def test_literal_assignment_is_spelled_for_the_target_type(annotation, value, text):
    description, _ = compiled(lambda out: out.__setitem__(0, value), Buff[annotation])
    assert main_body(description) == [f"buf0.data[0] = {text};"]


def test_float_literal_into_an_int_raises_type_error():
    def body(out):
        out[0] = 2.5

    with pytest.raises(TypeError, match="float 2.5.*int32"):
        trace(body, Buff[i32])


def test_integral_float_literal_into_an_int_raises_too():
    with pytest.raises(TypeError, match="float 2.0"):
        trace(lambda out: out.__setitem__(0, 2.0), Buff[i32])


def test_out_of_range_literal_raises_value_error():
    with pytest.raises(ValueError, match="out of the range of uint32"):
        trace(lambda out: out.__setitem__(0, -1), Buff[u32])
    with pytest.raises(ValueError, match="int16"):
        trace(lambda out: out.__setitem__(0, 40000), Buff[i16])


def test_shader_value_assignment_requires_identical_types():
    with pytest.raises(TypeError, match="Cannot set variable of type 'float32' to value of "
                                        "type 'int32'"):
        trace(lambda out, n: out.__setitem__(0, n), Buff[f32], Const[i32])


def test_cast_makes_assignment_of_other_types_possible():
    def body(out, n):
        out[0] = vc.to_float(n)
        out[1] = n.to_dtype(dt.float32)

    description, _ = compiled(body, Buff[f32], Const[i32])
    assert main_body(description) == ["buf0.data[0] = float(UBO.var0);",
                                      "buf0.data[1] = float(UBO.var0);"]


def test_full_slice_assigns_a_register_and_plain_rebinding_emits_nothing():
    def body(out):
        r = vc.new_float_register(1.0)
        r[:] = r * 3.0
        r = r + 1.0  # noqa: F841 - Python rebinding only
        out[0] = vc.new_float_register(0, var_name="zero")

    description, _ = compiled(body, Buff[f32])
    assert main_body(description) == ["float var0 = float(1.0f);", "var0 = (var0 * 3.0f);",
                                      "float zero = float(0.0f);", "buf0.data[0] = zero;"]


def test_partial_slice_assignment_raises():
    def body(out):
        r = vc.new_float_register()
        r[1:] = 2.0

    with pytest.raises(ValueError, match=r"Only full slice \(:\)"):
        trace(body, Buff[f32])


def test_assigning_a_conjugate_keeps_the_conjugation():
    def body(out, z):
        out[0] = z.conjugate()

    description, _ = compiled(body, Buff[c64], Const[c64])
    assert main_body(description) == ["buf0.data[0] = vec2(UBO.var0.x, (-UBO.var0.y));"]


def test_bool_registers_take_bool_literals():
    def body(out, x):
        flag = (x > 0).to_register("flag")
        flag[:] = False
        out[0] = vc.to_float(flag)

    description, _ = compiled(body, Buff[f32], Const[f32])
    assert main_body(description)[:2] == ["bool flag = (UBO.var0 > 0);", "flag = false;"]


# -- in-place operators ------------------------------------------------------------------------

def test_in_place_on_a_register_emits_a_compound_assignment():
    def body(out, n):
        r = vc.new_int_register(0)
        r += 2
        r -= n
        r *= 3
        r //= 2
        r %= 5
        r &= 0xFF
        r |= 1
        r ^= n
        r <<= 1
        r >>= 2
        out[0] = r

    description, _ = compiled(body, Buff[i32], Const[i32])
    remainder = "(var1 - (var1 / 5) * 5)"  # Python's %: GLSL's %= is undefined for negatives
    assert main_body(description) == [
        "int var1 = int(0);", "var1 += 2;", "var1 -= UBO.var0;", "var1 *= 3;",
        "var1 = (var1 >> 1);",  # Python's //: an arithmetic shift floors
        f"var1 = ({remainder} + 5 * int(({remainder} != int(0)) && (({remainder} ^ 5) < "
        "int(0))));", "var1 &= 255;", "var1 |= 1;", "var1 ^= UBO.var0;", "var1 <<= 1;",
        "var1 >>= 2;", "buf0.data[0] = var1;"]


def test_in_place_floor_division_of_unsigned_integers_is_compound():
    def body(out, n):
        r = vc.new_uint_register(100)
        r //= n
        r %= n
        out[0] = r

    description, _ = compiled(body, Buff[u32], Const[u32])
    assert main_body(description)[1:3] == ["var1 /= UBO.var0;", "var1 %= UBO.var0;"]


def test_in_place_on_a_buffer_element_needs_no_extra_statement():
    def body(out, n):
        i = vc.global_invocation_id().x
        out[i] += n

    description, _ = compiled(body, Buff[f32], Const[f32])
    assert main_body(description) == ["buf0.data[gl_GlobalInvocationID.x] += UBO.var0;"]
    assert description.binding_access[1] == (True, True)


def test_in_place_through_an_alias_of_a_buffer_element_writes_the_buffer():
    def body(out):
        x = out[0]
        x += 1.0

    description, _ = compiled(body, Buff[f32])
    assert main_body(description) == ["buf0.data[0] += 1.0f;"]


def test_in_place_on_vector_components():
    def body(out):
        v = vc.new_vec3_register()
        v.x += 1.0
        v[2] *= 2.0
        out[0] = v

    description, _ = compiled(body, Buff[v3])
    assert main_body(description) == ["vec3 var0 = vec3(0.0f);", "var0.x += 1.0f;",
                                      "var0[2] *= 2.0f;", "buf0.data[0] = var0;"]


@pytest.mark.parametrize("annotation, literal, text", [
    (f16, 1, "float16_t(1.0f)"), (u16, 3, "uint16_t(3)"), (f64, 0.5, "0.5lf"),
    (i64, 2, "2l"), (v2, 1.5, "1.5f")])
def test_in_place_literals_only_have_to_fit_the_target(annotation, literal, text):
    def body(out):
        out[0] += literal

    description, _ = compiled(body, Buff[annotation])
    assert main_body(description) == [f"buf0.data[0] += {text};"]


def test_in_place_with_a_narrower_value_converts_it():
    def body(out, h):
        out[0] += h

    description, _ = compiled(body, Buff[f32], Const[f16])
    assert main_body(description) == ["buf0.data[0] += float(UBO.var0);"]


def test_in_place_with_mismatched_result_type_raises():
    with pytest.raises(TypeError, match="Inplace arithmetic requires the result type to match "
                                        "the variable type, but got 'float32' and 'int32'"):
        trace(lambda out, f: out[0].__iadd__(f), Buff[i32], Const[f32])
    with pytest.raises(TypeError, match="literal 1.5 is not a int32"):
        trace(lambda out: out[0].__iadd__(1.5), Buff[i32])
    with pytest.raises(TypeError, match="literal -1 is not a uint32"):
        trace(lambda out: out[0].__isub__(-1), Buff[u32])


def test_integer_true_division_in_place_raises():
    with pytest.raises(ValueError, match="Inplace true division is not supported for integer"):
        trace(lambda out: out[0].__itruediv__(2), Buff[i32])


def test_float_true_division_in_place():
    description, _ = compiled(lambda out: out[0].__itruediv__(2), Buff[f32])
    assert main_body(description) == ["buf0.data[0] /= 2;"]


def test_in_place_power():
    def body(out, n):
        r = vc.new_int_register(3)
        r **= 2
        f = vc.new_float_register(2.0)
        f **= 0.5
        out[0] = vc.to_float(r) + f

    description, _ = compiled(body, Buff[f32], Const[f32])
    assert main_body(description)[1] == "var1 = (var1 * var1);"
    assert main_body(description)[3] == "var2 = pow(var2, 0.5f);"


def test_in_place_power_that_changes_type_raises():
    def body(out):
        r = vc.new_int_register(3)
        r **= 0.5

    with pytest.raises(TypeError, match="'float32' and 'int32'"):
        trace(body, Buff[f32])


def test_in_place_on_a_constant_raises():
    with pytest.raises(ValueError, match="needs a settable variable"):
        trace(lambda n: n.__iadd__(1), Const[f32])


# -- registers ---------------------------------------------------------------------------------

def test_to_register_declares_a_local_with_a_counter_name_or_the_given_name():
    def body(out, n):
        a = (n * 2.0).to_register()
        b = n.to_register("named")
        c = n.copy()
        out[0] = a + b + c

    description, _ = compiled(body, Buff[f32], Const[f32])
    assert main_body(description)[:3] == ["float var1 = (UBO.var0 * 2.0f);",
                                          "float named = UBO.var0;", "float var2 = UBO.var0;"]


@pytest.mark.parametrize("name, var_type", [
    ("float16", dt.float16), ("float", dt.float32), ("float64", dt.float64),
    ("int16", dt.int16), ("int", dt.int32), ("int64", dt.int64), ("uint16", dt.uint16),
    ("uint", dt.uint32), ("uint64", dt.uint64), ("hvec2", dt.hvec2), ("vec3", dt.vec3),
    ("dvec4", dt.dvec4), ("ihvec3", dt.ihvec3), ("ivec2", dt.ivec2), ("uhvec4", dt.uhvec4),
    ("uvec3", dt.uvec3), ("mat2", dt.mat2), ("mat3", dt.mat3), ("mat4", dt.mat4),
    ("complex32", dt.complex32), ("complex64", dt.complex64), ("complex128", dt.complex128),
])
def test_typed_register_and_cast_shorthands_compile(name, var_type):
    def body(out):
        zero = getattr(vc, f"new_{name}_register")()
        one = getattr(vc, f"new_{name}_register")(1, var_name="one")
        cast = getattr(vc, f"to_{name}")(2)
        return zero, one, cast

    description, (zero, one, cast) = trace(body, Buff[f32])
    assert zero.var_type is one.var_type is cast.var_type is var_type
    assert one.name == "one"
    assert main_body(description)[0].startswith(f"{var_type.glsl_type} var0 = ")
    assert_glsl_type(description, cast)


def test_new_register_without_arguments_is_zero():
    def body(out):
        vc.new_register(dt.vec3)
        vc.new_register(dt.vec2, 1, 2.5, var_name="v")

    description, _ = compiled(body, Buff[f32])
    assert main_body(description) == ["vec3 var0 = vec3(0.0f);", "vec2 v = vec2(1.0f, 2.5f);"]


def test_complex_registers_infer_their_width():
    def body(h, f, d):
        return [vc.new_complex_register(), vc.new_complex_register(f), vc.to_complex(d, d),
                vc.to_complex(h), vc.to_complex(1, 2), vc.new_complex64_register(vc.to_vec2(1))]

    description, results = trace(body, Const[f16], Const[f32], Const[f64])
    assert [r.var_type for r in results] == [dt.complex64, dt.complex64, dt.complex128,
                                             dt.complex32, dt.complex64, dt.complex64]
    assert results[4].name == "vec2(1.0f, 2.0f)"
    assert main_body(description)[-1] == "vec2 var5 = vec2(vec2(1.0f));"
    assert_compiles(description)


def test_to_complex_with_three_arguments_raises():
    with pytest.raises(ValueError, match="Must give one of two arguments for complex init"):
        trace(lambda f: vc.to_complex(f, f, f), Const[f32])


def test_str_to_dtype_wraps_raw_source():
    def body(out):
        raw = vc.str_to_dtype(dt.float32, "gl_GlobalInvocationID.x * 2.0")
        out[0] = raw
        return raw

    description, raw = compiled(body, Buff[f32])
    assert raw.name == "(gl_GlobalInvocationID.x * 2.0)"
    assert main_body(description) == ["buf0.data[0] = (gl_GlobalInvocationID.x * 2.0);"]


def test_casts_between_all_scalar_kinds_compile():
    def body(h, f, d, i, u, z):
        values = [h, f, d, i, u]
        return [getattr(vc, f"to_{name}")(v) for name in
                ("float16", "float", "float64", "int16", "int", "int64", "uint16", "uint",
                 "uint64") for v in values] + [vc.to_complex128(z), vc.to_complex32(f)]

    description, results = trace(body, Const[f16], Const[f32], Const[f64], Const[i32],
                                 Const[u32], Const[c32])
    for result in results:
        assert_glsl_type(description, result)
