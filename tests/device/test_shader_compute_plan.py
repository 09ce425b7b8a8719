"""Device tests of the low-level execution objects with hand-written GLSL
(``ComputePlan``, ``DescriptorSet``, ``CommandList``): an axpy against numpy, instance
replays, reset and re-record, and the errors these objects raise (after which the objects and
the context keep working)."""
from __future__ import annotations

import struct

import numpy as np
import pytest

import vkdispatch as vd
from vkdispatch.base.command_list import CommandList
from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.base.descriptor_set import DescriptorSet

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
    with pytest.raises(ValueError, match=r"multiple of the instance size \(4\), got 6"):
        commands.submit(b"\0" * 6)
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


def test_descriptor_binding_errors_raise_value_error_and_set_stays_usable(context, rng):
    n = 300
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    plan, descriptors, commands, ybuf, keep = _axpy_objects(n, 1.0, x, y)
    with pytest.raises(ValueError, match="binding 7"):
        descriptors.bind_buffer(ybuf, 7)                      # the plan has bindings 0..2
    with pytest.raises(ValueError, match="storage buffer"):
        descriptors.bind_buffer(ybuf, 2, uniform=True)        # binding 2 is a storage buffer
    with pytest.raises(ValueError, match="uniform buffer"):
        descriptors.bind_buffer(keep[0], 0)                   # binding 0 is a uniform buffer
    commands.submit(struct.pack("<f", 0.0))
    np.testing.assert_allclose(ybuf.read(0), x + y, rtol=1e-6, atol=1e-6)
    for handle in (commands, descriptors, plan):
        handle.destroy()


def test_plan_and_dispatch_argument_errors_raise_value_error(context, rng):
    with pytest.raises(ValueError, match="binding_type_list"):
        ComputePlan(AXPY, [UNIFORM, 2, STORAGE], 4, "bad_code")
    with pytest.raises(ValueError, match="push"):
        ComputePlan(AXPY, [UNIFORM, STORAGE, STORAGE], 4096, "too_many_push_constants")
    n = 200
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    plan, descriptors, commands, ybuf, _keep = _axpy_objects(n, 1.0, x, y)
    limit = context.max_workgroup_count[0]
    with pytest.raises(ValueError, match=str(limit)):
        commands.record_compute_plan(plan, descriptors, (limit + 1, 1, 1))
    with pytest.raises(ValueError, match=r"^blocks: x = 0 workgroups; expected 1 \.\. "):
        commands.record_compute_plan(plan, descriptors, (0, 1, 1))
    with pytest.raises(ValueError, match="^blocks must have 3 entries, got 2$"):
        commands.record_compute_plan(plan, descriptors, (1, 1))
    with pytest.raises(ValueError, match="Data or instance count"):
        commands.submit()
    with pytest.raises(ValueError, match="product"):
        commands.submit(struct.pack("<f", 1.0), instance_count=2)
    with pytest.raises(IndexError, match=f"^queue_index: queue {context.queue_count} does not "
                                         rf"exist \(valid: 0\.\.{context.queue_count - 1}\)"):
        commands.submit(struct.pack("<f", 1.0), queue_index=context.queue_count)
    commands.submit(struct.pack("<f", 2.0))           # still records exactly one dispatch
    np.testing.assert_allclose(ybuf.read(0), x + y + 2, rtol=1e-6, atol=1e-6)
    for handle in (commands, descriptors, plan):
        handle.destroy()
