"""``vc.ravel_index`` (flat -> multi-dimensional) and ``vc.unravel_index`` (the other way),
named as in vkdispatch 0.1.0 (docs/shaders.rst, "The DSL")."""
from __future__ import annotations

import pytest

import vkdispatch.codegen as vc
from codegen_helpers import assert_compiles, assert_glsl_type, main_body, trace
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i32, iv3, uv2, uv3


def test_ravel_with_a_static_2d_shape_uses_shifts_for_powers_of_two():
    description, (index,) = trace(lambda: [vc.ravel_index(vc.global_invocation_id().x, (4, 8))])
    assert index.var_type is dt.uvec2
    assert index.name == "uvec2((gl_GlobalInvocationID.x >> 3), (gl_GlobalInvocationID.x & 7u))"
    assert_glsl_type(description, index)


def test_ravel_with_a_static_3d_shape():
    description, (index,) = trace(lambda: [vc.ravel_index(vc.global_invocation_id().x,
                                                          (2, 3, 5))])
    assert index.var_type is dt.uvec3
    assert index.name == ("uvec3((gl_GlobalInvocationID.x / 15), "
                          "((gl_GlobalInvocationID.x / 5) % 3), (gl_GlobalInvocationID.x % 5))")
    assert_glsl_type(description, index)


def test_ravel_with_a_buffer_shape_gives_three_components():
    description, (index,) = trace(lambda a: [vc.ravel_index(vc.global_invocation_id().x,
                                                            a.shape)], Buff[f32])
    assert index.var_type is dt.uvec3
    assert "UBO.buf0_shape[1]" in index.name and "UBO.buf0_shape[2]" in index.name
    assert_glsl_type(description, index)


def test_ravel_of_a_python_int_is_static():
    description, (index,) = trace(lambda: [vc.ravel_index(13, (4, 5))])
    assert index.name == "uvec2(2, 3)"


def test_ravel_with_a_shader_vector_shape():
    description, (index,) = trace(lambda s, i: [vc.ravel_index(i, s)], Const[uv2], Const[i32])
    assert index.var_type is dt.uvec2
    assert_glsl_type(description, index)


def test_unravel_of_static_values_is_a_python_int():
    assert vc.unravel_index((1, 2), (3, 4)) == 6
    assert vc.unravel_index((1, 2, 3), (2, 3, 4)) == 1 * 12 + 2 * 4 + 3
    assert vc.unravel_index(5, (3, 4)) == 5
    assert vc.unravel_index((7,), (3, 4)) == 7


def test_unravel_with_a_one_dimensional_shape_is_the_index():
    assert vc.unravel_index(5, (8,)) == 5 and vc.unravel_index((5,), 8) == 5

    def body(out):
        index = vc.global_invocation_id()
        out[vc.unravel_index(index, (8,))] = 1.0
        out[vc.unravel_index(index.x, 8)] = 2.0

    description, _ = trace(body, Buff[f32])
    assert main_body(description)[-2:] == ["buf0.data[gl_GlobalInvocationID[0]] = 1.0f;",
                                           "buf0.data[gl_GlobalInvocationID.x] = 2.0f;"]


def test_unravel_in_a_buffer_index_emits_the_folded_value():
    def body(out):
        out[vc.unravel_index((1, 2), (3, 4))] = 1.0

    description, _ = trace(body, Buff[f32])
    assert main_body(description) == ["buf0.data[6] = 1.0f;"]
    assert_compiles(description)


def test_unravel_of_shader_vectors_and_tuples():
    def body(i3, u3, out):
        tid = vc.global_invocation_id()
        return [vc.unravel_index(tid, (4, 8, 16)), vc.unravel_index(u3, out.shape),
                vc.unravel_index((tid.x, tid.y), (4, 8)), vc.unravel_index(i3, (2, 3, 4))]

    description, results = trace(body, Const[iv3], Const[uv3], Buff[f32])
    assert results[0].name == ("(((gl_GlobalInvocationID[0] << 7) + "
                               "(gl_GlobalInvocationID[1] << 4)) + gl_GlobalInvocationID[2])")
    assert results[2].name == "((gl_GlobalInvocationID.x << 3) + gl_GlobalInvocationID.y)"
    assert [r.var_type for r in results] == [dt.uint32, dt.int32, dt.uint32, dt.int32]
    for result in results:
        assert_glsl_type(description, result)


@pytest.mark.parametrize("shape", [(4,), (1, 2, 3, 4)])
def test_wrong_shape_arity_raises(shape):
    with pytest.raises(ValueError, match="shape must have 2 or 3 dimensions"):
        trace(lambda: vc.ravel_index(vc.global_invocation_id().x, shape))


def test_float_vector_shape_raises():
    from vkdispatch.codegen.abbreviations import v2
    with pytest.raises(ValueError, match="integer vector"):
        trace(lambda s: vc.ravel_index(vc.global_invocation_id().x, s), Const[v2])
