"""Atomics: ``vc.atomic_add`` on buffer and shared-memory elements, and ``vc.coherent``, with
which one workgroup reads what another stored (docs/shaders.rst, "The DSL")."""
from __future__ import annotations

import pytest

import vkdispatch.codegen as vc
from codegen_helpers import assert_compiles, assert_glsl_type, main_body, trace
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i16, i32, iv2, u32


def test_atomic_add_returns_the_previous_value_in_a_register():
    def body(counts, n):
        old = vc.atomic_add(counts[0], 1)
        counts[1] = old
        return old

    description, old = trace(body, Buff[i32], Const[i32])
    assert main_body(description) == ["int var1 = atomicAdd(buf0.data[0], int(1));",
                                      "buf0.data[1] = var1;"]
    assert old.var_type is dt.int32 and old.register
    assert description.binding_access[1] == (True, True)
    assert_compiles(description)


def test_atomic_add_with_a_shader_value_casts_it_to_the_target_type():
    def body(counts, n):
        vc.atomic_add(counts[vc.global_invocation_id().x], n)

    description, _ = trace(body, Buff[u32], Const[i32])
    assert main_body(description) == [
        "uint var1 = atomicAdd(buf0.data[gl_GlobalInvocationID.x], uint(UBO.var0));"]
    assert_compiles(description)


def test_atomic_add_on_a_vector_component_of_a_buffer_element():
    description, old = trace(lambda b: vc.atomic_add(b[2].y, -1), Buff[iv2])
    assert main_body(description) == ["int var0 = atomicAdd(buf0.data[2].y, int(-1));"]
    assert_glsl_type(description, old)


def test_atomic_add_on_shared_memory():
    def body(out):
        counter = vc.shared_buffer(dt.uint32, 4, "counter")
        old = vc.atomic_add(counter[0], 2)
        vc.barrier()
        out[0] = old

    description, _ = trace(body, Buff[u32])
    assert main_body(description)[0] == "uint var0 = atomicAdd(counter[0], uint(2));"
    assert_compiles(description)


def test_atomic_add_on_a_register_raises():
    def body(out):
        r = vc.new_int_register(0)
        vc.atomic_add(r, 1)

    with pytest.raises(TypeError, match="does not support register/local variables"):
        trace(body, Buff[i32])


def test_atomic_add_on_a_register_component_raises():
    def body(out):
        r = vc.new_ivec2_register(0)
        vc.atomic_add(r.x, 1)

    with pytest.raises(TypeError, match="register/local variables"):
        trace(body, Buff[i32])


@pytest.mark.parametrize("annotation, match", [
    (f32, "only int32/uint32 targets, got 'float32'"),
    (i16, "only int32/uint32 targets, got 'int16'"),
    (iv2, "must be a scalar lvalue")])
def test_atomic_add_on_unsupported_element_types_raises(annotation, match):
    with pytest.raises(TypeError, match=match):
        trace(lambda b: vc.atomic_add(b[0], 1), Buff[annotation])


def test_atomic_add_on_a_constant_raises():
    with pytest.raises(TypeError, match="must be a writable lvalue"):
        trace(lambda n: vc.atomic_add(n, 1), Const[i32])


def test_atomic_add_on_an_expression_raises():
    with pytest.raises(TypeError, match="writable lvalue"):
        trace(lambda b: vc.atomic_add(b[0] + 1, 1), Buff[i32])


def test_atomic_add_on_a_whole_buffer_raises():
    with pytest.raises(TypeError, match="scalar lvalue"):
        trace(lambda b: vc.atomic_add(b, 1), Buff[i32])


@pytest.mark.parametrize("value", [1.5, "1", None])
def test_atomic_add_with_a_non_integer_value_raises(value):
    with pytest.raises(TypeError, match="atomic_add value must be an int"):
        trace(lambda b: vc.atomic_add(b[0], value), Buff[i32])


def test_atomic_add_with_a_float_shader_value_raises():
    with pytest.raises(TypeError, match="integer scalar"):
        trace(lambda b, f: vc.atomic_add(b[0], f), Buff[i32], Const[f32])


def test_coherent_declares_only_that_buffer_coherent():
    def body(partials, data):
        vc.coherent(partials)
        partials[0] = data[0]
        vc.memory_barrier_buffer()

    description, _ = trace(body, Buff[f32], Buff[f32])
    header = description.backend.header(description)
    assert "coherent buffer Buffer1 { float data[]; } buf0;" in header
    assert "readonly buffer Buffer2 { float data[]; } buf1;" in header
    assert "coherent" not in header.split("buf0;")[1]
    assert main_body(description)[-1] == "memoryBarrierBuffer();"
    assert_compiles(description)


@pytest.mark.parametrize("target", ["shared", "element", "number"])
def test_coherent_of_anything_but_a_buffer_argument_raises(target):
    def body(out):
        what = {"shared": lambda: vc.shared_buffer(dt.float32, 4, "s"),
                "element": lambda: out[0], "number": lambda: 3}[target]()
        vc.coherent(what)

    with pytest.raises(TypeError, match="coherent takes a storage buffer argument"):
        trace(body, Buff[f32])
