"""Indexing, components, swizzles, complex parts, conjugates and image sampling
(docs/shaders.rst, "The DSL"; docs/images.rst)."""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch.codegen as vc
from codegen_helpers import assert_compiles, assert_glsl_type, main_body, trace
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import (Buff, Const, Img1, Img2, Img2Array, Img3, c64, f32,
                                              i32, iv2, iv3, iv4, m3, u32, uv2, uv4, v2, v3, v4)


def test_buffer_index_by_int_numpy_int_and_integer_values():
    def body(out, n, u):
        return [out[3], out[np.int64(4)], out[n], out[u], out[(5,)],
                out[vc.global_invocation_id().x]]

    description, results = trace(body, Buff[f32], Const[i32], Const[u32])
    assert [r.name for r in results] == [
        "buf0.data[3]", "buf0.data[4]", "buf0.data[UBO.var0]", "buf0.data[UBO.var1]",
        "buf0.data[5]", "buf0.data[gl_GlobalInvocationID.x]"]
    assert all(r.settable and r.var_type is dt.float32 for r in results)
    for result in results:
        assert_glsl_type(description, result)


def test_vector_components_by_index_attribute_and_swizzle():
    def body(v):
        return [v[0], v[np.int32(3)], v.x, v.y, v.z, v.w, v.swizzle("z"), v.swizzle("wzyx"),
                v.swizzle("xy"), v.swizzle("xxx")]

    description, results = trace(body, Const[v4])
    assert [r.name for r in results] == [
        "UBO.var0[0]", "UBO.var0[3]", "UBO.var0.x", "UBO.var0.y", "UBO.var0.z", "UBO.var0.w",
        "UBO.var0.z", "vec4(UBO.var0.w, UBO.var0.z, UBO.var0.y, UBO.var0.x)",
        "vec2(UBO.var0.x, UBO.var0.y)", "vec3(UBO.var0.x, UBO.var0.x, UBO.var0.x)"]
    assert [r.var_type for r in results[-3:]] == [dt.vec4, dt.vec2, dt.vec3]
    for result in results:
        assert_glsl_type(description, result)


def test_scalar_swizzle_of_x_builds_a_vector():
    description, (result,) = trace(lambda: [vc.global_invocation_id().x.swizzle("xxx")])
    assert result.var_type is dt.uvec3
    assert result.name == "uvec3(gl_GlobalInvocationID.x, gl_GlobalInvocationID.x, " \
                          "gl_GlobalInvocationID.x)"
    assert_glsl_type(description, result)


def test_swizzle_of_several_letters_is_not_assignable_but_one_letter_is():
    def body(out):
        v = vc.new_vec3_register()
        v.swizzle("y")[:] = 2.0
        assert not v.swizzle("xy").settable
        out[0] = v

    description, _ = trace(body, Buff[v3])
    assert main_body(description)[1] == "var0.y = 2.0f;"
    assert_compiles(description)


def test_component_assignment_on_buffer_elements_and_registers():
    def body(out, a):
        i = vc.global_invocation_id().x
        out[i].x = a[i].y
        out[i][1] = 1.0
        r = a[i].to_register("r")
        r.y = r.x

    description, _ = trace(body, Buff[v2], Buff[v2])
    assert main_body(description) == [
        "buf0.data[gl_GlobalInvocationID.x].x = buf1.data[gl_GlobalInvocationID.x].y;",
        "buf0.data[gl_GlobalInvocationID.x][1] = 1.0f;",
        "vec2 r = buf1.data[gl_GlobalInvocationID.x];", "r.y = r.x;"]
    assert description.binding_access[1:] == [(True, True), (True, False)]
    assert_compiles(description)


def test_matrix_index_gives_a_column():
    def body(m):
        return [m[1], m[1][2], m[2].z]

    description, (column, entry, z) = trace(body, Const[m3])
    assert column.var_type is dt.vec3 and column.name == "UBO.var0[1]"
    assert entry.var_type is dt.float32 and entry.name == "UBO.var0[1][2]"
    for result in (column, entry, z):
        assert_glsl_type(description, result)


def test_complex_real_and_imag_read_and_write():
    def body(out, z):
        w = z.to_register("w")
        w.real = z.imag
        w.imag = 0.5
        out[0] = w
        return [z.real, z.imag, z[0], z[1]]

    description, parts = trace(body, Buff[c64], Const[c64])
    assert [p.name for p in parts] == ["UBO.var0.x", "UBO.var0.y", "UBO.var0[0]",
                                       "UBO.var0[1]"]
    assert all(p.var_type is dt.float32 for p in parts)
    assert main_body(description)[1:3] == ["w.x = UBO.var0.y;", "w.y = 0.5f;"]
    assert_compiles(description)


def test_conjugate_view_negates_imag_and_is_read_only():
    def body(z):
        c = z.conjugate()
        return [c, c.imag, c.real]

    description, (c, imag, real) = trace(body, Const[c64])
    assert c.var_type is dt.complex64 and not c.settable
    assert c.name == "vec2(UBO.var0.x, (-UBO.var0.y))"
    assert imag.name == "vec2(UBO.var0.x, (-UBO.var0.y)).y"
    for result in (c, imag, real):
        assert_glsl_type(description, result)


def test_buffer_shape_is_a_lazily_declared_uniform():
    def body(a, b):
        return [a.shape, a.shape.x, a.shape[3], a.shape.y]

    description, results = trace(body, Buff[f32], Buff[f32])
    assert [r.name for r in results] == ["UBO.buf0_shape", "UBO.buf0_shape.x",
                                         "UBO.buf0_shape[3]", "UBO.buf0_shape.y"]
    assert [e.name for e in description.uniform_structure] == ["exec_count", "buf0_shape"]
    assert description.shader_arg_infos[0].shader_shape_name == "buf0_shape"
    for result in results:
        assert_glsl_type(description, result)


def test_indexing_a_buffer_with_its_shape_and_invocation_id():
    def body(out):
        i = vc.global_invocation_id().x
        with vc.if_block(i < out.shape.x):
            out[i] = vc.to_float(out.shape.w)

    description, _ = trace(body, Buff[f32])
    assert_compiles(description)


# -- images ------------------------------------------------------------------------------------

def test_image_sampling_of_each_dimension():
    def body(out, t1, t2, t3, c2, c3):
        i = vc.global_invocation_id().x
        return [t1.sample(i), t2.sample(c2), t3.sample(c3), t2.sample(c2, 1.5)]

    description, (s1, s2, s3, lod) = trace(body, Buff[v4], Img1[f32], Img2[f32], Img3[f32],
                                           Const[v2], Const[iv4])
    assert s1.name == ("texture(tex1, ((gl_GlobalInvocationID.x + 0.5) / "
                       "textureSize(tex1, 0)))")
    assert s2.name == ("texture(tex2, ((vec2(UBO.var0.x, UBO.var0.y) + 0.5) / "
                       "vec2(textureSize(tex2, 0))))")
    assert "vec3(UBO.var1.x, UBO.var1.y, UBO.var1.z)" in s3.name
    assert lod.name.startswith("textureLod(tex2, ") and lod.name.endswith(", 1.5f)")
    assert all(s.var_type is dt.vec4 for s in (s1, s2, s3, lod))
    header = description.make_source(64, 1, 1)
    assert "layout(set = 0, binding = 2) uniform sampler1D tex1;" in header
    assert "layout(set = 0, binding = 4) uniform sampler3D tex3;" in header
    assert description.binding_type_list == [3, 1, 5, 5, 5]
    for sample in (s1, s2, s3, lod):
        assert_glsl_type(description, sample)


def test_layered_and_integer_images_declare_their_sampler_types():
    def body(out, layers, ints, uints, c3, c2):
        return [layers.sample(c3), ints.sample(c2), uints.fetch(c2), layers.fetch(c3, 0),
                layers.size(), ints.size(1), uints.size()]

    description, (layer, ints, fetched, layer_texel, *sizes) = trace(
        body, Buff[v4], Img2Array[f32], Img2[iv4], Img2[u32], Const[v3], Const[iv2])
    header = description.make_source(64, 1, 1)
    for declaration in ("uniform sampler2DArray tex1;", "uniform isampler2D tex2;",
                        "uniform usampler2D tex3;"):
        assert declaration in header
    # Layers are not normalized: only x and y are divided by the extent.
    assert layer.name == ("texture(tex1, vec3(((vec2(UBO.var0.x, UBO.var0.y) + 0.5) / "
                          "vec2(textureSize(tex1, 0).xy)), UBO.var0.z))")
    assert fetched.name == "texelFetch(tex3, ivec2(int(UBO.var1.x), int(UBO.var1.y)), int(0))"
    assert [layer.var_type, ints.var_type, fetched.var_type, layer_texel.var_type] == [
        dt.vec4, dt.ivec4, dt.uvec4, dt.vec4]
    assert [s.var_type for s in sizes] == [dt.ivec3, dt.ivec2, dt.ivec2]
    for expression in (layer, ints, fetched, layer_texel, *sizes):
        assert_glsl_type(description, expression)
    assert description.binding_access[2:] == [(True, False)] * 3  # after the UBO and out


def test_one_dimensional_images_take_the_first_component():
    def body(out, tex, c):
        return [tex.sample(c), tex.fetch(c), tex.size()]

    description, (sampled, fetched, size) = trace(body, Buff[v4], Img1[f32], Const[v3])
    assert sampled.name == "texture(tex1, ((UBO.var0.x + 0.5) / textureSize(tex1, 0)))"
    assert fetched.name == "texelFetch(tex1, int(UBO.var0.x), int(0))"
    assert size.var_type is dt.int32
    for expression in (sampled, fetched, size):
        assert_glsl_type(description, expression)


def test_sampling_marks_the_image_read():
    def body(out, tex, c):
        out[0] = tex.sample(c)

    description, _ = trace(body, Buff[v4], Img2[f32], Const[uv2])
    assert description.binding_access == [(True, False), (True, True), (True, False)]
    assert_compiles(description)


@pytest.mark.parametrize("bad", [1.5, "0", None])
def test_buffer_index_of_wrong_kind_raises_type_error(bad):
    with pytest.raises(TypeError, match="Index must be a ShaderVariable or int type"):
        trace(lambda out: out[bad], Buff[f32])


def test_can_index_tells_which_values_take_an_index():
    description, flags = trace(lambda a, f, v, z, m, t: [a.can_index, f.can_index, v.can_index,
                                                         z.can_index, m.can_index, t.can_index],
                               Buff[f32], Const[f32], Const[v2], Const[c64], Const[m3],
                               Img2[f32])
    assert flags == [True, False, True, True, True, False]
