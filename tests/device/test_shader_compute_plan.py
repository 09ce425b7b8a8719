"""Device tests of the low-level execution objects with hand-written GLSL
(``ComputePlan``, ``DescriptorSet``, ``CommandList``), and of two threads tracing and
dispatching their own shaders at the same time."""
from __future__ import annotations

import struct
import threading

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.base.command_list import CommandList
from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.base.descriptor_set import DescriptorSet
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i32

STORAGE, UNIFORM = 1, 3

AXPY = """#version 450
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, scalar) uniform Params { float a; uint n; } params;
layout(set = 0, binding = 1, scalar) readonly buffer X { float x[]; };
layout(set = 0, binding = 2, scalar) buffer Y { float y[]; };
layout(push_constant, scalar) uniform PC { float b; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= params.n) return;
    y[i] = params.a * x[i] + y[i] + pc.b;
}
"""


def _axpy_objects(n: int, a: float, x: np.ndarray, y: np.ndarray, extra: int = 0):
    plan = ComputePlan(AXPY, [UNIFORM, STORAGE, STORAGE], 4, "axpy")
    params = vd.Buffer((4,), vd.uint32)       # 16 bytes: {float a; uint n;} plus padding
    params.write(np.frombuffer(struct.pack("<fIII", a, n, 0, 0), dtype=np.uint32))
    xbuf = vd.asbuffer(x)
    ybuf = vd.asbuffer(y)
    descriptors = DescriptorSet(plan)
    descriptors.bind_buffer(params, 0, uniform=True, write_access=False)
    descriptors.bind_buffer(xbuf, 1, write_access=False)
    descriptors.bind_buffer(ybuf, 2)
    commands = CommandList()
    commands.record_compute_plan(plan, descriptors, ((n + 63) // 64, 1, 1))
    return plan, descriptors, commands, ybuf, [params, xbuf]


def test_hand_written_axpy_matches_numpy(context, rng):
    n, tail = 1000, 24                       # the last workgroup is partial
    a = float(rng.uniform(-3, 3))
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n + tail).astype(np.float32)
    plan, descriptors, commands, ybuf, _keep = _axpy_objects(n, a, x, y)
    assert plan.pc_size == 4
    assert commands.get_instance_size() == 4
    b = float(rng.uniform(-1, 1))
    commands.submit(struct.pack("<f", b))
    expected = y.copy()
    expected[:n] = np.float32(a) * x + y[:n] + np.float32(b)
    np.testing.assert_allclose(ybuf.read(0), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(ybuf.read(0)[n:], y[n:])   # beyond n: untouched
    for handle in (commands, descriptors, plan):
        handle.destroy()


def test_hand_written_axpy_replays_instances_with_their_push_constants(context, rng):
    n = 777
    a = float(rng.uniform(0.5, 1.5))
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    plan, descriptors, commands, ybuf, _keep = _axpy_objects(n, a, x, y)
    bs = rng.uniform(-1, 1, 3).astype(np.float32)
    commands.submit(bs.tobytes(), instance_count=3)
    expected = y.astype(np.float64)
    for b in bs:
        expected = np.float32(a) * x + expected + b
    np.testing.assert_allclose(ybuf.read(0), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError):
        commands.submit(b"\0" * 6)           # not a multiple of the instance size
    for handle in (commands, descriptors, plan):
        handle.destroy()


def test_command_list_reset_and_rerecord_runs_only_new_dispatches(context, rng):
    # A CommandList can be reset and recorded again with another plan.
    n = 500
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    plan, descriptors, commands, ybuf, _keep = _axpy_objects(n, 2.0, x, y)
    commands.reset()
    assert commands.get_instance_size() == 0
    commands.record_compute_plan(plan, descriptors, [(n + 63) // 64, 1, 1])
    commands.record_compute_plan(plan, descriptors, [(n + 63) // 64, 1, 1])
    commands.submit(struct.pack("<ff", 0.5, -0.5))
    np.testing.assert_allclose(ybuf.read(0), y + 4 * x, rtol=1e-5, atol=1e-5)
    for handle in (commands, descriptors, plan):
        handle.destroy()


def test_two_threads_trace_and_dispatch_their_own_shaders_concurrently(context, rng):
    n, rounds = 3000, 20
    inputs = [rng.standard_normal(n).astype(np.float32), rng.integers(-1000, 1000, n,
                                                                      dtype=np.int32)]
    start = threading.Barrier(2)
    errors: list[BaseException] = []
    results: dict[int, np.ndarray] = {}

    def float_worker():
        @vd.shader("x.size")
        def scale(x: Buff[f32], k: Const[f32]):
            i = vc.global_invocation_id().x
            x[i] = x[i] * k + 1.0

        x = vd.asbuffer(inputs[0])
        start.wait()
        for _ in range(rounds):
            scale(x, 0.5)
        results[0] = x.read(0)

    def int_worker():
        @vd.shader("x.size")
        def bump(x: Buff[i32], k: Const[i32]):
            i = vc.global_invocation_id().x
            x[i] = x[i] * 3 + k

        x = vd.asbuffer(inputs[1])
        start.wait()
        for _ in range(rounds):
            bump(x, -7)
        results[1] = x.read(0)

    def run(worker):
        try:
            worker()
        except BaseException as error:  # reported by the main thread
            errors.append(error)
            start.abort()

    threads = [threading.Thread(target=run, args=(w,)) for w in (float_worker, int_worker)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"
    assert not errors, errors

    expected_float = inputs[0].copy()
    expected_int = inputs[1].copy()
    with np.errstate(over="ignore"):
        for _ in range(rounds):
            expected_float = expected_float * np.float32(0.5) + np.float32(1.0)
            expected_int = expected_int * np.int32(3) + np.int32(-7)
    np.testing.assert_allclose(results[0], expected_float, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(results[1], expected_int)
