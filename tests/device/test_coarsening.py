"""Coarsened shaders (several logical invocations per invocation) against numpy: random
elementwise programs at factors 1-4 and odd sizes (1, primes, just above a multiple of factor x
workgroup), multi-dimensional exec_size, one buffer bound to two parameters, atomics, control
flow and registers; get_src shows the variant built."""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i32

LOCAL = 64
FACTORS = [1, 2, 3, 4]


def random_tree(rng, depth: int):
    """An expression over inputs 0..2 and literals: ("in", k), ("lit", v) or (op, l, r)."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.75:
            return ("in", int(rng.integers(3)))
        return ("lit", float(np.float32(rng.uniform(-2, 2))))
    return (str(rng.choice(["+", "-", "*"])), random_tree(rng, depth - 1),
            random_tree(rng, depth - 1))


def evaluate(tree, inputs, literal):
    kind = tree[0]
    if kind == "in":
        return inputs[tree[1]]
    if kind == "lit":
        return literal(tree[1])
    left, right = evaluate(tree[1], inputs, literal), evaluate(tree[2], inputs, literal)
    return left + right if kind == "+" else left - right if kind == "-" else left * right


def program(tree, factor: int):
    def body(out: Buff[f32], a: Buff[f32], b: Buff[f32], c: Buff[f32]):
        i = vc.global_invocation_id().x
        out[i] = evaluate(tree, [a[i], b[i], c[i]], lambda v: v)

    return vd.shader("out.size", local_size=(LOCAL, 1, 1), coarsen=factor)(body)


@pytest.mark.parametrize("seed", range(6))
def test_random_elementwise_programs_match_numpy(context, seed):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, 3)
    for factor in FACTORS:
        shader = program(tree, factor)
        for n in (1, 7, 1009, factor * LOCAL + 1, 3 * factor * LOCAL - 1):
            hosts = [rng.standard_normal(n).astype(np.float32) for _ in range(3)]
            out = vd.Buffer((n,), vd.float32)
            shader(out, *(vd.asbuffer(h) for h in hosts))
            expected = np.broadcast_to(evaluate(tree, hosts, np.float32), (n,))
            np.testing.assert_allclose(out.read(0), expected, rtol=1e-5, atol=1e-5,
                                       err_msg=f"tree {tree}, factor {factor}, n {n}")
        assert shader.bounds.factor == factor


@pytest.mark.parametrize("factor", FACTORS)
def test_two_dimensional_exec_size(context, rng, factor):
    rows, cols = 5, 2 * factor * LOCAL + 3

    @vd.shader("(cols, rows)", local_size=(LOCAL, 1, 1), coarsen=factor)
    def grid(out: Buff[f32], a: Buff[f32], cols: Const[i32], rows: Const[i32]):
        x, y = vc.global_invocation_id().x, vc.global_invocation_id().y
        index = vc.to_dtype(vd.int32, y) * cols + vc.to_dtype(vd.int32, x)
        out[index] = a[index] * 2.0 + vc.to_float(y)

    host = rng.standard_normal((rows, cols)).astype(np.float32)
    out = vd.Buffer((rows * cols,), vd.float32)
    grid(out, vd.asbuffer(host.reshape(-1)), cols, rows)
    expected = host * 2 + np.arange(rows, dtype=np.float32)[:, None]
    np.testing.assert_allclose(out.read(0).reshape(rows, cols), expected, rtol=1e-6)


@pytest.mark.parametrize("factor", FACTORS)
def test_one_buffer_bound_to_two_parameters(context, rng, factor):
    @vd.shader("out.size", local_size=(LOCAL, 1, 1), coarsen=factor)
    def scale_add(out: Buff[f32], a: Buff[f32], b: Buff[f32]):
        i = vc.global_invocation_id().x
        out[i] = a[i] * 3.0 + b[i]

    n = 4 * factor * LOCAL + 5
    host, other = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    buffer = vd.asbuffer(host)
    scale_add(buffer, buffer, vd.asbuffer(other))  # out is a: each element reads its own
    np.testing.assert_allclose(buffer.read(0), host * np.float32(3) + other, rtol=1e-6)


@pytest.mark.parametrize("factor", FACTORS)
def test_a_store_then_a_load_through_two_parameters_of_one_buffer(context, rng, factor):
    """The second statement must load what the first stored when x and y are one buffer
    (SPIR-V lets a compiler move that load above the store for two distinct bindings: such
    calls run the variant reaching the buffer through one binding); with distinct buffers the
    ordinary build runs."""
    @vd.shader("x.size", local_size=(LOCAL, 1, 1), coarsen=factor)
    def double_then_shift(x: Buff[f32], y: Buff[f32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] * 2.0
        y[i] = y[i] * y[i] + 1.0

    n = 4 * factor * LOCAL + 5
    host, other = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    shared, first, second = vd.asbuffer(host), vd.asbuffer(host), vd.asbuffer(other)
    double_then_shift(shared, shared)
    doubled = host * np.float32(2)
    np.testing.assert_allclose(shared.read(0), doubled * doubled + np.float32(1), rtol=1e-6)
    double_then_shift(first, second)
    np.testing.assert_allclose(first.read(0), doubled, rtol=1e-6)
    np.testing.assert_allclose(second.read(0), other * other + np.float32(1), rtol=1e-6)
    assert len(double_then_shift._build.aliased) == 1  # the variant, built once


@pytest.mark.parametrize("factor", FACTORS)
def test_atomics_count_every_logical_invocation_once(context, rng, factor):
    @vd.shader("values.size", local_size=(LOCAL, 1, 1), coarsen=factor)
    def count(counters: Buff[i32], values: Buff[i32]):
        i = vc.global_invocation_id().x
        vc.atomic_add(counters[0], 1)
        vc.atomic_add(counters[1], values[i])

    n = 2 * factor * LOCAL + 7
    values = rng.integers(-1000, 1000, n).astype(np.int32)
    counters = vd.asbuffer(np.zeros(2, np.int32))
    count(counters, vd.asbuffer(values))
    np.testing.assert_array_equal(counters.read(0), [n, values.sum()])


@pytest.mark.parametrize("factor", FACTORS)
def test_control_flow_and_registers(context, rng, factor):
    @vd.shader("out.size", local_size=(LOCAL, 1, 1), coarsen=factor)
    def clip_square(out: Buff[f32], a: Buff[f32]):
        i = vc.global_invocation_id().x
        value = vc.new_register(vd.float32, a[i], var_name="x")
        with vc.if_block(value > 0.5):
            value[:] = 0.5
        with vc.else_if_block(value < -0.5):
            value[:] = value * value
        out[i] = value + 1.0
        a[i] = value

    n = 3 * factor * LOCAL + 1
    host = rng.standard_normal(n).astype(np.float32)
    out, a = vd.Buffer((n,), vd.float32), vd.asbuffer(host)
    clip_square(out, a)
    value = np.where(host > 0.5, np.float32(0.5), np.where(host < -0.5, host * host, host))
    np.testing.assert_allclose(out.read(0), value + 1, rtol=1e-6)
    np.testing.assert_allclose(a.read(0), value, rtol=1e-6)


@pytest.mark.parametrize("factor", [2, 3])
def test_workgroups_count_in_the_workgroups_the_shader_would_have_uncoarsened(context, factor):
    """A coarsened shader without local_size gets smaller workgroups; a call giving
    workgroups= still runs workgroups x the device's default size logical invocations."""
    @vd.shader("out.size", coarsen=factor)
    def mark(out: Buff[i32]):
        out[vc.global_invocation_id().x] = 1

    nominal = context.max_workgroup_size[0]
    out = vd.asbuffer(np.zeros(4 * nominal, np.int32))
    mark(out, workgroups=(3, 1, 1))
    np.testing.assert_array_equal(out.read(0), np.repeat([1, 0], [3 * nominal, nominal]))
    assert mark.local_size[0] == min(nominal, 256)


def test_get_src_shows_the_variant_built(context):
    def body(out: Buff[f32], a: Buff[f32]):
        out[vc.global_invocation_id().x] = a[vc.global_invocation_id().x] * 2.0

    coarse = vd.shader("out.size", coarsen=2)(body)
    plain = vd.shader("out.size", coarsen=False)(body)
    assert "vkd_stride" in coarse.get_src().code and coarse.bounds.factor == 2
    assert "vkd_stride" not in plain.get_src().code and plain.bounds.factor == 1
