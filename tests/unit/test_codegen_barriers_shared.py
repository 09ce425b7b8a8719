"""Barrier statements and shared memory (``vc.barrier``, ``vc.memory_barrier*``,
``vc.shared_buffer``; docs/shaders.rst, "The DSL"), including ``shared_buffer(...).shape``,
which vkdispatch 0.1.0 lacked."""
from __future__ import annotations

import re

import pytest

import vkdispatch.codegen as vc
from codegen_helpers import assert_compiles, assert_glsl_type, header_lines, main_body, trace
from vkdispatch import dtypes as dt
from vkdispatch.codegen.abbreviations import Buff, Const, c64, f32, i32, u32, v4


@pytest.mark.parametrize("function, statement", [
    (vc.barrier, "barrier();"), (vc.memory_barrier, "memoryBarrier();"),
    (vc.memory_barrier_buffer, "memoryBarrierBuffer();"),
    (vc.memory_barrier_shared, "memoryBarrierShared();"),
    (vc.memory_barrier_image, "memoryBarrierImage();"),
    (vc.group_memory_barrier, "groupMemoryBarrier();"),
])
def test_barrier_statements(function, statement):
    description, _ = trace(lambda: function())
    assert main_body(description) == [statement]
    assert_compiles(description)


def test_shared_buffer_is_declared_before_the_uniform_block():
    def body(out, a):
        lid = vc.local_invocation_index()
        tid = vc.global_invocation_id().x
        sdata = vc.shared_buffer(dt.float32, 64, "sdata")
        sdata[lid] = a[tid]
        vc.memory_barrier_shared()
        vc.barrier()
        out[tid] = sdata[63 - lid]

    description, _ = trace(body, Buff[f32], Buff[f32])
    header = header_lines(description)
    shared = header.index("shared float sdata[64];")
    assert shared < header.index(
        "layout(set = 0, binding = 0, scalar) uniform UniformObjectBuffer {")
    assert main_body(description) == [
        "sdata[gl_LocalInvocationIndex] = buf1.data[gl_GlobalInvocationID.x];",
        "memoryBarrierShared();", "barrier();",
        "buf0.data[gl_GlobalInvocationID.x] = sdata[(63 - gl_LocalInvocationIndex)];"]
    assert_compiles(description)


def test_shared_buffer_names_come_from_the_counter_by_default():
    def body(n):
        first = vc.shared_buffer(dt.vec4, 8)
        second = vc.shared_buffer(dt.complex64, 16)
        return first, second

    description, (first, second) = trace(body, Const[i32])
    assert (first.name, second.name) == ("var1", "var2")
    assert "shared vec4 var1[8];" in header_lines(description)
    assert "shared vec2 var2[16];" in header_lines(description)
    assert_compiles(description)


def test_shared_buffer_shape_works():
    def body(out):
        sdata = vc.shared_buffer(dt.uint32, 32, "sdata")
        return [sdata.shape, sdata.shape.x, sdata.shape.w]

    description, (shape, x, w) = trace(body, Buff[u32])
    assert shape.var_type is dt.ivec4 and shape.name == "ivec4(32, 1, 1, 32)"
    for value in (shape, x, w):
        assert_glsl_type(description, value)


def test_shared_elements_of_vector_type_have_components():
    def body(out):
        s = vc.shared_buffer(dt.vec4, 4, "s")
        s[0].x = 1.0
        out[0] = s[0]

    description, _ = trace(body, Buff[v4])
    assert main_body(description) == ["s[0].x = 1.0f;", "buf0.data[0] = s[0];"]
    assert_compiles(description)


def test_shared_buffer_constant_index_out_of_range_raises():
    with pytest.raises(IndexError, match="out of range"):
        trace(lambda: vc.shared_buffer(dt.float32, 4)[4])


@pytest.mark.parametrize("var_type, size, error, message", [
    (float, 4, TypeError, "var_type must be a vkdispatch dtype, got <class 'float'>"),
    (dt.float32, 0, ValueError, "size must be a positive int, got 0"),
    (dt.float32, 2.5, ValueError, "size must be a positive int, got 2.5"),
], ids=["float-type", "size-0", "size-2.5"])
def test_shared_buffer_argument_checks(var_type, size, error, message):
    with pytest.raises(error, match=re.escape(message)):
        trace(lambda: vc.shared_buffer(var_type, size))


def test_shared_complex_array_compiles():
    def body(out):
        s = vc.shared_buffer(dt.complex64, 4, "s")
        s[1] = out[0]
        out[1] = vc.mult_complex(s[1], s[1])

    description, _ = trace(body, Buff[c64])
    assert_compiles(description)
