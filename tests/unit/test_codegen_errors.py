"""Misuse while tracing raises at once, with a TypeError/ValueError (or RuntimeError for a
wrong tracing state) whose message names the value and what was expected."""
from __future__ import annotations

import dataclasses

import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from codegen_helpers import LOCAL_SIZE, assert_compiles, trace
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import (Buff, Const, Img2, Img2Array, Var, c64, f32, f64,
                                              i16, i32, iv2, m2, u32, v2, v3)
from vkdispatch.errors import InvalidStateError, VkDispatchError


def raises(error, match, body, *annotations, **kwargs):
    with pytest.raises(error, match=match) as info:
        trace(body, *annotations, **kwargs)
    assert isinstance(info.value, VkDispatchError)
    return info.value


# -- Python-side use of shader values --------------------------------------------------------------

def test_python_if_on_a_shader_value_raises():
    def body(n):
        if n > 0:
            pass

    error = raises(TypeError, "cannot be cast to a python boolean", body, Const[f32])
    assert "vc.if_block" in str(error)
    # vkdispatch 0.1.0 raised ValueError here: code catching that keeps working.
    raises(ValueError, "cannot be cast to a python boolean", body, Const[f32])


def test_python_and_or_not_raise():
    raises(TypeError, "python boolean", lambda n: (n > 0) and (n < 1), Const[f32])
    raises(TypeError, "python boolean", lambda n: not n, Const[f32])


@pytest.mark.parametrize("misuse, match", [
    (len, "len\\(\\) of a shader value"), (int, "int\\(\\) of a shader value"),
    (float, "float\\(\\) of a shader value"), (list, "cannot be iterated"),
    (lambda v: range(v), "int\\(\\) of a shader value")])
def test_len_int_float_and_iteration_raise(misuse, match):
    raises(TypeError, match, lambda v: misuse(v), Const[v2])


def test_shader_values_are_unhashable():
    with pytest.raises(TypeError, match="unhashable"):
        trace(lambda n: {n: 1}, Const[f32])


# -- annotations -------------------------------------------------------------------------------

@pytest.mark.parametrize("annotation, error, match", [
    (int, TypeError, "must have a type annotation such as Buff\\[f32\\]"),
    (Buff[int], TypeError, "needs a vkdispatch dtype such as f32"),
    (Const["f32"], TypeError, "needs a vkdispatch dtype"),
    (list[int], TypeError, "list\\[<class 'int'>\\] needs a vkdispatch dtype"),
    ("Buff[f32]", TypeError, "unresolved string annotation"),
])
def test_wrong_annotations_raise_naming_the_argument(annotation, error, match):
    with pytest.raises(error, match=match) as info:
        with vc.shader_context() as ctx:
            ctx.declare_input_arguments([annotation], ["arg_x"])
    assert "arg_x" in str(info.value)


def test_dataclass_field_without_a_dtype_raises():
    @dataclasses.dataclass
    class Bad:
        scale: float

    with pytest.raises(ValueError, match="Unsupported type .* for field 'Bad.scale'"):
        trace(lambda p: None, Bad)


def test_decorator_errors_name_the_shader_and_line():
    with pytest.raises(TypeError, match=r"\[in shader 'broken' at .*test_codegen_errors.py:\d+\]"):
        @vd.shader(local_size=LOCAL_SIZE)
        def broken(out: Buff[i32]):
            out[0] = 1.5


@pytest.mark.parametrize("var_type", [float, "float32", dt.dtype, None])
def test_unknown_dtype_in_a_register_or_cast_raises(var_type):
    raises(TypeError, "must be a vkdispatch dtype", lambda: vc.new_register(var_type))
    raises(TypeError, "must be a vkdispatch dtype", lambda: vc.to_dtype(var_type, 1))


def test_cast_without_a_value_raises():
    raises(ValueError, "needs at least one value", lambda: vc.to_dtype(dt.float32))


# -- assignment ----------------------------------------------------------------------------------

def test_assignment_type_mismatch_names_both_types():
    raises(TypeError, "Cannot set variable of type 'float32' to value of type 'uint32'",
           lambda out: out.__setitem__(0, vc.global_invocation_id().x), Buff[f32])
    raises(TypeError, "Cannot set variable of type 'vec2' to value of type 'vec3'",
           lambda out, v: out.__setitem__(0, v), Buff[v2], Const[v3])


def test_assigning_a_comparison_to_a_number_raises():
    raises(TypeError, "'int32' to value of type 'bool'",
           lambda out, n: out.__setitem__(0, n < 1), Buff[i32], Const[i32])


def test_assigning_non_numbers_raises():
    raises(TypeError, "cannot assign 'x'", lambda out: out.__setitem__(0, "x"), Buff[f32])
    raises(TypeError, "booleans only go into bool registers",
           lambda out: out.__setitem__(0, True), Buff[i32])
    raises(TypeError, "cannot assign 1j to 'buf0.data\\[0\\]' of type float32",
           lambda out: out.__setitem__(0, 1j), Buff[f32])


def test_assigning_to_a_non_settable_value_raises():
    raises(ValueError, "Cannot set value of 'UBO.var0' because it is not a settable variable",
           lambda n: n.set_value(1.0), Const[f32])
    raises(ValueError, "not a settable variable", lambda n: n.__setitem__(slice(None), 1),
           Var[f32])
    raises(ValueError, "not a settable variable",
           lambda a: (a[0] + 1).set_value(2.0), Buff[f32])
    raises(ValueError, "not a settable variable",
           lambda: vc.global_invocation_id().__setattr__("x", 1))
    raises(ValueError, "not a settable variable",
           lambda v: v.__setitem__(0, 1.0), Const[v2])


def test_assigning_an_unknown_attribute_raises():
    with pytest.raises(AttributeError, match="no settable attribute 'foo'"):
        trace(lambda out: out[0].__setattr__("foo", 1), Buff[f32])


# -- in-place operators --------------------------------------------------------------------------

def test_in_place_with_mismatched_types_raises():
    raises(TypeError, "'float32' and 'int32' respectively",
           lambda out, f: out[0].__iadd__(f), Buff[i32], Const[f32])
    raises(TypeError, "'vec2' and 'float32' respectively",
           lambda out, v: out[0].__imul__(v), Buff[f32], Const[v2])


def test_integer_in_place_true_division_raises():
    raises(ValueError, "Inplace true division is not supported for integer types",
           lambda out: out[0].__itruediv__(2), Buff[u32])


def test_in_place_floor_division_and_modulus_of_floats_raise():
    raises(TypeError, "Floor division is only supported for integer types",
           lambda out: out[0].__ifloordiv__(2), Buff[f32])
    raises(TypeError, "Modulus is only supported for integer types",
           lambda out: out[0].__imod__(2), Buff[f32])


def test_in_place_complex_multiplication_raises():
    raises(ValueError, "vc.mult_complex", lambda out, z: out[0].__imul__(z), Buff[c64],
           Const[c64])


# -- operators on the wrong types ----------------------------------------------------------------

@pytest.mark.parametrize("op", ["&", "|", "^", "<<", ">>"])
def test_bitwise_on_floats_raises(op):
    raises(TypeError, "Bitwise operations are only supported on integer types.*float32",
           lambda f, i: eval(f"i {op} f"), Const[f32], Const[i32])


def test_invert_of_a_float_raises():
    raises(TypeError, "only supported on integer types", lambda f: ~f, Const[f32])


def test_floor_division_and_modulus_of_floats_raise():
    raises(TypeError, "Floor division is only supported for integer types",
           lambda f: f // 2, Const[f32])
    raises(TypeError, "Floor division", lambda i: i // 2.0, Const[i32])
    raises(TypeError, "Modulus is only supported for integer types", lambda f: f % 2, Const[f32])
    raises(TypeError, "Modulus", lambda i, f: i % f, Const[i32], Const[f32])


def test_complex_and_matrix_products_with_star_raise():
    raises(ValueError, "Complex multiplication is not supported via the \\* operator",
           lambda z: z * z, Const[c64])
    raises(ValueError, "Matrix multiplication is not supported via the \\* operator",
           lambda m: m * m, Const[m2])
    raises(ValueError, "cannot divide complex64 by complex64", lambda z: z / z, Const[c64])


def test_python_complex_literals_raise():
    raises(TypeError, "Python built-in complex numbers are not supported", lambda z: z + 1j,
           Const[c64])


def test_arithmetic_on_a_boolean_raises():
    raises(TypeError, "needs numbers, but got a boolean", lambda n: (n < 1) + 1, Const[f32])
    raises(TypeError, "boolean", lambda n: -(n < 1), Const[f32])


def test_ordering_comparison_of_vectors_raises():
    raises(TypeError, "'<' compares scalars only", lambda v: v < v, Const[v2])


def test_mismatched_vector_lengths_raise():
    raises(ValueError, "equal lengths", lambda a, b: a + b, Const[v2], Const[v3])


def test_buffers_and_images_are_not_values():
    raises(TypeError, "'buf0' is a buffer, not a value", lambda a: a + 1, Buff[f32])
    raises(TypeError, "is a buffer", lambda a: a.to_register(), Buff[f32])
    raises(TypeError, "'tex0' is a image", lambda t: t * 2.0, Img2[f32])
    raises(TypeError, "is a buffer", lambda a, out: out.__setitem__(0, a), Buff[f32], Buff[f32])


def test_other_python_objects_in_arithmetic_raise():
    raises(TypeError, "operand must be a shader value or a Python number", lambda n: n + "1",
           Const[f32])
    raises(TypeError, "shader value or a Python number", lambda n: n == None, Const[f32])  # noqa


def test_power_of_complex_values_raises():
    raises(TypeError, "'\\*\\*' is element-wise", lambda z: z ** 2, Const[c64])


# -- literals GLSL cannot hold ---------------------------------------------------------------------

@pytest.mark.parametrize("body, match", [
    (lambda: vc.to_uint(-2**31 - 1), r"uint32\(-2147483649\).* range \[0, 4294967295\]"),
    (lambda: vc.to_uint(2**32), r"uint32\(4294967296\).* range \[0, 4294967295\]"),
    (lambda: vc.to_int(2**32), r"int32\(4294967296\).* range \[-2147483648, 2147483647\]"),
    (lambda: vc.to_int16(70000), r"int16\(70000\).* range \[-32768, 32767\]"),
    (lambda: vc.to_uint64(2**64), r"uint64\(18446744073709551616\).* range \[0, "),
    (lambda: vc.to_int64(-2**63 - 1), r"int64\(-9223372036854775809\).* range"),
    (lambda: vc.to_uvec2(1, -2**31 - 1), r"uint32\(-2147483649\)"),
    (lambda: vc.to_dtype(dt.ivec3, 2**40), r"int32\(1099511627776\)"),
    (lambda: vc.to_uint(1e20), r"uint32\(1e\+20\).* truncates into \[0, 4294967295\]"),
    (lambda: vc.to_int(-3e9), r"int32\(-3000000000\.0\).* truncates into"),
    (lambda: vc.to_int(float("nan")), r"int32\(nan\).* finite number"),
    (lambda: vc.to_uint(float("inf")), r"uint32\(inf\).* finite number"),
    (lambda: vc.to_float(1e39), r"1e\+39 is out of float32's range .*3\.4028234663852886e\+38"),
    (lambda: vc.to_float(10**400), r"10000000000000000000\.\.\. \(401 digits\) is out of "
                                   r"float32's range"),
    (lambda: vc.to_float16(70000.0), r"70000\.0 is out of float16's range .*65504"),
    (lambda: vc.to_vec2(1.0, -1e39), r"-1e\+39 is out of float32's range"),
], ids=["uint-below", "uint-above", "int-above", "int16", "uint64", "int64", "uvec2", "ivec3",
        "float-to-uint", "float-to-int", "nan-to-int", "inf-to-uint", "float32", "huge-int-float",
        "float16", "vec2"])
def test_casts_of_literals_they_cannot_hold_raise_naming_value_and_range(body, match):
    """Each used to trace and then fail to compile (64-bit literals) or silently wrap, saturate
    or read as infinity."""
    error = raises(ValueError, match, lambda: body())
    assert isinstance(error, vd.errors.InvalidArgumentError)


@pytest.mark.parametrize("body, match", [
    (lambda x: x + 2**64, r"integer literal 18446744073709551616 fits no shader integer type: "
                          r"literals must lie in \[-9223372036854775808, 18446744073709551615\]"),
    (lambda x: vc.min(x, -2**64), r"integer literal -18446744073709551616 fits no"),
    (lambda x: vc.to_float(x) * 1e40, r"1e\+40 is out of float32's range"),
], ids=["add", "min", "float32-product"])
def test_literals_beyond_every_type_raise_while_tracing(body, match):
    raises(ValueError, match, body, Const[u32])


def test_casts_at_the_edges_of_their_ranges_trace_and_compile():
    """The other signedness of the same width converts bit for bit (vkdispatch 0.1.0 code
    relies on vc.to_uint(-1)); the values are checked on a device in test_shader_errors.py."""
    def body(out):
        return [vc.to_uint(-1), vc.to_uint(-2**31), vc.to_int(2**32 - 1), vc.to_uint16(-1),
                vc.to_int16(65535), vc.to_int64(2**64 - 1), vc.to_uint64(-2**63),
                vc.to_uint(4294967295.5), vc.to_int(-2147483648.9), vc.to_float(3.4028235e38),
                vc.to_float16(-65504.0), vc.to_float64(1e300), vc.to_float(float("inf"))]

    description, _ = trace(lambda out: [out.__setitem__(0, vc.to_float(v)) for v in body(out)],
                           Buff[f32])
    assert_compiles(description)


# -- indexing, components, swizzles ------------------------------------------------------------

def test_indexing_a_scalar_raises():
    raises(ValueError, "Variable 'UBO.var0' of type 'float32' cannot be indexed into",
           lambda n: n[0], Const[f32])


def test_multi_dimensional_index_raises():
    raises(ValueError, "Only single index is supported", lambda a: a[0, 1], Buff[f32])
    raises(ValueError, "Only single index is supported", lambda v: v[0, 1], Const[v2])


@pytest.mark.parametrize("index, error, match", [
    (1.0, TypeError, "Index must be a ShaderVariable or int type"),
    (True, TypeError, "Index must be a ShaderVariable or int type"),
    (2, IndexError, "index 2 is out of range .* \\(0..1\\)"),
    (-1, IndexError, "index -1 is out of range")])
def test_bad_vector_indices_raise(index, error, match):
    raises(error, match, lambda v: v[index], Const[v2])


def test_index_by_a_non_integer_or_non_scalar_value_raises():
    raises(TypeError, "Indexing variable must be an integer type", lambda a, f: a[f], Buff[f32],
           Const[f32])
    raises(TypeError, "Indexing variable must be a scalar", lambda a, v: a[v], Buff[f32],
           Const[iv2])
    raises(TypeError, "Indexing variable must be an integer", lambda a, f: a[f < 1], Buff[f32],
           Const[f32])


def test_negative_buffer_index_raises():
    raises(IndexError, "out of range", lambda a: a[-1], Buff[f32])


def test_a_constant_buffer_index_must_fit_32_bits():
    """2**40 reached glslang as a "numeric literal too big" build error."""
    raises(IndexError, "index 1099511627776 is out of range .* \\(0..2147483647\\)",
           lambda a: a[2**40], Buff[f32])
    raises(IndexError, "index 2147483648 is out of range", lambda a: a[2**31], Buff[f32])

    def body(a):
        a[2**31 - 1] = a[0]

    description, _ = trace(body, Buff[f32])
    assert f"buf0.data[{2**31 - 1}] = buf0.data[0];" in assert_compiles(description)


@pytest.mark.parametrize("function, arguments, arity", [
    (vc.clamp, 2, 3), (vc.clamp, 4, 3), (vc.min, 1, 2), (vc.max, 3, 2), (vc.mix, 2, 3),
    (vc.fma, 2, 3), (vc.pow, 1, 2), (vc.atan2, 1, 2), (vc.dot, 1, 2), (vc.sin, 2, 1),
    (vc.smoothstep, 2, 3), (vc.step, 3, 2)])
def test_builtins_called_with_the_wrong_argument_count_raise(function, arguments, arity):
    """vc.clamp(x, 0.0) used to reach glslang ("no matching overloaded function")."""
    name = "atan2" if function is vc.atan2 else function.__name__
    raises(ValueError, f"vc.{name} takes {arity} argument", lambda x: function(*[x] * arguments),
           Const[f32])


@pytest.mark.parametrize("body, match", [
    (lambda x: vc.to_vec3(x, x), "vec3\\(...\\) needs 3 components .* supplying 1 \\+ 1"),
    (lambda x: vc.to_vec4(vc.to_vec2(x, x), x), "vec4\\(...\\) needs 4 components"),
    (lambda x: vc.to_vec2(x, x, x), "vec2\\(...\\) needs 2 components .* 1 \\+ 1 \\+ 1"),
    (lambda x: vc.to_vec4(vc.to_vec3(x)), "vec4\\(...\\) needs 4 components"),
    (lambda x: vc.to_mat2(x, x, x), "mat2\\(...\\) needs 4 components"),
    (lambda x: vc.to_float(x, x), "float32\\(...\\) needs 1 component")])
def test_constructors_with_the_wrong_component_count_raise(body, match):
    """vc.to_vec3(a, b) used to reach glslang ("not enough data provided for construction")."""
    raises(ValueError, match, body, Const[f32])


def test_constructors_glsl_accepts_still_trace_and_compile():
    def body(x):
        for value in [vc.to_vec3(x), vc.to_vec3(vc.to_vec2(x, x), x), vc.to_vec3(vc.to_vec4(x)),
                      vc.to_vec3(x, vc.to_vec2(x, x)), vc.to_vec4(vc.to_vec3(x), vc.to_vec2(x)),
                      vc.to_mat2(vc.to_mat3(x)), vc.to_mat2(x), vc.to_mat2(vc.to_vec4(x)),
                      vc.to_float(vc.to_vec2(x, x))]:
            value.to_register()

    description, _ = trace(body, Const[f32])
    assert_compiles(description)


@pytest.mark.parametrize("letters", ["", "xyzwx", "xa", "rgb", 3])
def test_bad_swizzles_raise(letters):
    raises(ValueError, "swizzle takes 1-4 letters of 'xyzw'", lambda v: v.swizzle(letters),
           Const[v3])


def test_swizzle_of_a_missing_component_raises():
    raises(ValueError, "'z' does not exist on 'UBO.var0' of type vec2", lambda v: v.swizzle("xz"),
           Const[v2])
    raises(ValueError, "'w' does not exist", lambda v: v.w, Const[v3])
    raises(ValueError, "has only the component 'x'", lambda n: n.swizzle("y"), Const[f32])
    raises(ValueError, "cannot be swizzled", lambda m: m.swizzle("x"), Const[m2])


def test_xyzw_on_complex_values_point_to_real_and_imag():
    raises(ValueError, "use 'real' and 'imag' instead", lambda z: z.x, Const[c64])
    raises(ValueError, "use 'real' and 'imag' instead",
           lambda out: out[0].__setattr__("x", 1.0), Buff[c64])


def test_real_imag_and_conjugate_on_real_values_raise():
    raises(ValueError, "real/imag exist only on complex values", lambda f: f.real, Const[f32])
    raises(ValueError, "conjugate\\(\\) needs a complex value", lambda f: f.conjugate(),
           Const[v2])


# -- atomics -------------------------------------------------------------------------------------

def test_atomic_on_a_register_or_a_float_raises():
    raises(TypeError, "register/local variables", lambda: vc.atomic_add(vc.new_int_register(), 1))
    raises(TypeError, "only int32/uint32 targets, got 'float32'",
           lambda a: vc.atomic_add(a[0], 1), Buff[f32])


# -- tracing state -------------------------------------------------------------------------------

def test_nested_tracing_raises():
    def body(out):
        with vc.shader_context():
            pass

    raises(RuntimeError, "already set for the current thread", body, Buff[f32])


def test_nested_decorator_raises_and_the_outer_trace_still_works():
    def body(out):
        with pytest.raises(RuntimeError, match="inside another shader's trace"):
            @vd.shader(local_size=LOCAL_SIZE)
            def inner(x: Buff[f32]):
                pass
        out[0] = 1.0

    description, _ = trace(body, Buff[f32])
    assert "buf0.data[0] = 1.0f;" in description.body


def test_a_value_kept_from_another_trace_raises():
    _, escaped = trace(lambda n: n * 2.0, Const[f32])
    error = raises(InvalidStateError, "was created while tracing another shader",
                   lambda out: out.__setitem__(0, escaped), Buff[f32])
    assert "UBO.var0 * 2.0f" in str(error)
    raises(RuntimeError, "another shader", lambda: escaped + 1)
    raises(RuntimeError, "another shader", lambda: vc.sin(escaped))
    raises(RuntimeError, "another shader", lambda: vc.if_block(escaped > 0))


def test_a_value_used_after_its_trace_raises():
    _, escaped = trace(lambda n: n * 2.0, Const[f32])
    with pytest.raises(RuntimeError, match="No global ShaderBuilder is set"):
        escaped + 1


def test_a_value_escaping_a_decorated_shader_names_that_shader():
    kept = []

    @vd.shader(local_size=LOCAL_SIZE)
    def leaky(out: Buff[f32]):
        kept.append(out[0] * 2.0)

    raises(RuntimeError, "created while tracing shader 'leaky'",
           lambda out: out.__setitem__(0, kept[0]), Buff[f32])


def test_sampling_a_2d_image_with_a_scalar_raises():
    raises(TypeError, "needs 2 coordinates", lambda t, f: t.sample(f), Img2[f32], Const[f32])


def test_layered_images_need_a_layer_coordinate():
    raises(TypeError, "needs 2 coordinates and a layer",
           lambda t, c: t.fetch(c), Img2Array[f32], Const[v2])


@pytest.mark.parametrize("texel", [f64, c64, i16, m2])
def test_images_of_other_texel_types_are_refused(texel):
    raises(TypeError, "images hold f32, i32 or u32 texels", lambda t: None, Img2[texel])
