"""Device tests of traced control flow: if / else-if / else chains, while loops, early
returns, ``vc.any``/``vc.all`` and Python-level unrolling, each checked against numpy."""
from __future__ import annotations

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i32, u32

N = 3001


def test_if_else_if_else_selects_branch_per_element(context, rng):
    @vd.shader("out.size")
    def classify(out: Buff[f32], x: Buff[f32], lo: Const[f32], hi: Const[f32]):
        i = vc.global_invocation_id().x
        v = x[i].to_register("v")
        with vc.if_block(v < lo):
            out[i] = v * 2
        with vc.else_if_block(v < hi):
            out[i] = v + 100
        with vc.else_if_block(v == hi):
            out[i] = -1.0
        with vc.else_block():
            out[i] = vc.sqrt(v)

    x = rng.uniform(-10, 10, N).astype(np.float32)
    x[::97] = 2.5  # exact hits of the equality branch
    out = vd.Buffer((N,), vd.float32)
    classify(out, vd.asbuffer(x), -1.0, 2.5)
    expected = np.where(x < -1, x * 2, np.where(x < 2.5, x + 100,
                                                np.where(x == 2.5, -1.0, np.sqrt(np.abs(x)))))
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-6, atol=1e-6)


def test_nested_if_blocks_on_integers_match_numpy(context, rng):
    @vd.shader("out.size")
    def nested(out: Buff[i32], x: Buff[i32]):
        i = vc.global_invocation_id().x
        v = x[i].to_register("v")
        r = vc.new_int_register(var_name="r")
        with vc.if_block(v % 2 == 0):
            with vc.if_block(v > 500):
                r[:] = v // 2
            with vc.else_block():
                r[:] = v * 3
        with vc.else_block():
            r[:] = -v
        out[i] = r

    x = rng.integers(0, 1000, N, dtype=np.int32)
    out = vd.Buffer((N,), vd.int32)
    nested(out, vd.asbuffer(x))
    expected = np.where(x % 2 == 0, np.where(x > 500, x // 2, x * 3), -x)
    np.testing.assert_array_equal(out.read(0), expected)


def test_while_loop_collatz_steps_match_python(context, rng):
    @vd.shader("steps.size")
    def collatz(steps: Buff[u32], start: Buff[u32]):
        i = vc.global_invocation_id().x
        n = start[i].to_register("n")
        count = vc.new_uint_register(var_name="count")
        with vc.while_block(n != 1):
            with vc.if_block(n % 2 == 0):
                n[:] = n // 2
            with vc.else_block():
                n[:] = n * 3 + 1
            count += 1
        steps[i] = count

    start = rng.integers(1, 10_000, 1000, dtype=np.uint32)

    def reference(n: int) -> int:
        count = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            count += 1
        return count

    steps = vd.Buffer((start.size,), vd.uint32)
    collatz(steps, vd.asbuffer(start))
    np.testing.assert_array_equal(steps.read(0), [reference(int(n)) for n in start])


def test_while_loop_with_data_dependent_trip_count_sums_series(context, rng):
    @vd.shader("out.size")
    def partial_sums(out: Buff[f32], terms: Buff[i32], ratio: Buff[f32]):
        i = vc.global_invocation_id().x
        k = vc.new_int_register(var_name="k")
        total = vc.new_float_register(var_name="total")
        power = vc.new_float_register(1, var_name="power")
        with vc.while_block(k < terms[i]):
            total += power
            power *= ratio[i]
            k += 1
        out[i] = total

    terms = rng.integers(1, 40, N, dtype=np.int32)
    ratio = rng.uniform(-0.9, 0.9, N).astype(np.float32)
    out = vd.Buffer((N,), vd.float32)
    partial_sums(out, vd.asbuffer(terms), vd.asbuffer(ratio))
    r = ratio.astype(np.float64)
    expected = (1 - r ** terms) / (1 - r)
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-5, atol=1e-6)


def test_early_return_leaves_skipped_elements_untouched(context, rng):
    @vd.shader("out.size")
    def guarded(out: Buff[f32], x: Buff[f32]):
        i = vc.global_invocation_id().x
        with vc.if_block(x[i] < 0):
            vc.return_statement()
        out[i] = x[i] * 10

    x = rng.standard_normal(N).astype(np.float32)
    before = rng.standard_normal(N).astype(np.float32) + 50
    out = vd.asbuffer(before)
    guarded(out, vd.asbuffer(x))
    np.testing.assert_allclose(out.read(0), np.where(x < 0, before, x * 10), rtol=1e-6, atol=1e-6)


def test_any_and_all_combine_conditions(context, rng):
    @vd.shader("out.size")
    def logic(out: Buff[i32], a: Buff[f32], b: Buff[f32]):
        i = vc.global_invocation_id().x
        x = a[i].to_register("x")
        y = b[i].to_register("y")
        r = vc.new_int_register(var_name="r")
        with vc.if_block(vc.all(x > 0, y > 0)):
            r[:] = 3
        with vc.else_if_block(vc.any(x > 0.5, y < -0.5, vc.all(x < -1, True))):
            r[:] = 2
        with vc.else_block():
            r[:] = 1
        out[i] = r + vc.to_int(vc.any(x > 1, y > 1)) * 10

    a = rng.standard_normal(N).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    out = vd.Buffer((N,), vd.int32)
    logic(out, vd.asbuffer(a), vd.asbuffer(b))
    expected = np.where((a > 0) & (b > 0), 3,
                        np.where((a > 0.5) | (b < -0.5) | (a < -1), 2, 1))
    expected += ((a > 1) | (b > 1)).astype(np.int32) * 10
    np.testing.assert_array_equal(out.read(0), expected)


def test_python_loop_unrolls_polynomial_evaluation(context, rng):
    coefficients = rng.uniform(-2, 2, 6).astype(np.float32)

    @vd.shader("out.size")
    def horner(out: Buff[f32], x: Buff[f32]):
        i = vc.global_invocation_id().x
        v = x[i].to_register("v")
        acc = vc.new_float_register(float(coefficients[0]), var_name="acc")
        for c in coefficients[1:]:      # runs at trace time: one statement per coefficient
            acc[:] = acc * v + float(c)
        out[i] = acc

    x = rng.uniform(-1.5, 1.5, N).astype(np.float32)
    out = vd.Buffer((N,), vd.float32)
    horner(out, vd.asbuffer(x))
    expected = np.polyval(coefficients.astype(np.float64), x.astype(np.float64))
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-5, atol=1e-5)


def test_comparison_cast_to_float_yields_zero_or_one(context, rng):
    @vd.shader("out.size")
    def indicator(out: Buff[f32], a: Buff[f32], b: Buff[f32]):
        i = vc.global_invocation_id().x
        out[i] = vc.to_float(a[i] < b[i]) * 2 + vc.to_float(a[i] >= 0)

    a = rng.standard_normal(N).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    out = vd.Buffer((N,), vd.float32)
    indicator(out, vd.asbuffer(a), vd.asbuffer(b))
    np.testing.assert_array_equal(out.read(0), (a < b) * 2.0 + (a >= 0))
