"""Subgroup operations (``vc.subgroup_*``) and the GLSL ``#extension`` line each needs."""
from __future__ import annotations

import pytest

import vkdispatch.codegen as vc
from codegen_helpers import (assert_compiles, assert_fails_to_compile, assert_glsl_type,
                             header_lines, main_body, trace)
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i32, u32, v2
from vkdispatch.codegen.literals import boolean

EXTENSION = "#extension GL_KHR_shader_subgroup_arithmetic : require"
ARITHMETIC = ["subgroup_add", "subgroup_mul", "subgroup_min", "subgroup_max"]
BITWISE = ["subgroup_and", "subgroup_or", "subgroup_xor"]


@pytest.mark.parametrize("name", ARITHMETIC)
@pytest.mark.parametrize("annotation", [f32, i32, u32, v2])
def test_arithmetic_subgroup_operations_keep_the_type(name, annotation):
    description, (result,) = trace(lambda x: [getattr(vc, name)(x)], Const[annotation])
    glsl = "subgroup" + name.split("_")[1].capitalize()
    assert result.name == f"{glsl}(UBO.var0)" and result.var_type is annotation
    assert EXTENSION in header_lines(description)
    assert_glsl_type(description, result)


@pytest.mark.parametrize("name", BITWISE)
def test_bitwise_subgroup_operations_on_integers_and_booleans(name):
    description, results = trace(lambda i, u: [getattr(vc, name)(i), getattr(vc, name)(u),
                                               getattr(vc, name)(i > 0)], Const[i32], Const[u32])
    assert [r.var_type for r in results] == [dt.int32, dt.uint32, boolean]
    for result in results:
        assert_glsl_type(description, result)


@pytest.mark.parametrize("name", BITWISE)
def test_bitwise_subgroup_operations_on_floats_raise(name):
    with pytest.raises(TypeError, match="needs an integer or boolean value"):
        trace(lambda f: getattr(vc, name)(f), Const[f32])


def test_subgroup_elect_and_barrier():
    def body(out):
        with vc.if_block(vc.subgroup_elect()):
            out[vc.subgroup_id()] = vc.subgroup_size()
        vc.subgroup_barrier()

    description, _ = trace(body, Buff[u32])
    assert main_body(description) == ["if(subgroupElect()) {",
                                      "buf0.data[gl_SubgroupID] = gl_SubgroupSize;", "}",
                                      "subgroupBarrier();"]
    assert EXTENSION in header_lines(description)
    assert_compiles(description)


def test_no_subgroup_extension_without_subgroup_use():
    description, _ = trace(lambda out: out.__setitem__(0, 1), Buff[u32])
    assert EXTENSION not in header_lines(description)


def test_no_subgroup_ops_flag_removes_only_the_extension_line():
    def body(out):
        out[0] = vc.subgroup_add(out[0])

    description, _ = trace(body, Buff[f32], flags=vc.ShaderFlags.NO_SUBGROUP_OPS)
    assert EXTENSION not in header_lines(description)
    assert main_body(description) == ["buf0.data[0] = subgroupAdd(buf0.data[0]);"]
    assert_fails_to_compile(description)  # the caller is expected to provide the extension
