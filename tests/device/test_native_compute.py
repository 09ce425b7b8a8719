"""Smoke tests of the native compute bridge (plans, descriptor sets, command lists, pipeline
caches) with hand-written GLSL, checked against numpy."""
from __future__ import annotations

import struct

import numpy as np
import pytest

import vkdispatch as vd
from vkdispatch.base.init import runtime

AXPY = """#version 450
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, scalar) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, scalar) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 2, scalar) uniform U { float a; uint n; };
layout(push_constant, scalar) uniform PC { float b; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) return;
    y[i] = a * x[i] + pc.b;
}
"""

INCREMENT = """#version 450
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, scalar) buffer D { uint data[]; };
layout(push_constant, scalar) uniform PC { uint n; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) data[i] += 1u;
}
"""

STORAGE, UNIFORM = 1, 3


@pytest.fixture
def native(context):
    return runtime().native


def compile_spirv(native, source: str, name: str) -> bytes:
    ok, spirv, log = native.compile_glsl(source, name)
    assert ok, log
    return spirv


def make_axpy(native, context):
    spirv = compile_spirv(native, AXPY, "axpy")
    return native.NativeComputePlan(context._native, spirv, [STORAGE, STORAGE, UNIFORM], 4, "axpy")


def test_native_axpy_matches_numpy(context, native, rng):
    n = 1000  # the last workgroup is partial: the shader checks bounds
    x = rng.standard_normal(n).astype(np.float32)
    a, b = np.float32(1.75), np.float32(-0.5)
    xb = vd.Buffer((n,), vd.float32)
    yb = vd.Buffer((n + 64,), vd.float32)
    ub = vd.Buffer((64,), vd.float32)
    xb.write(x)
    yb.write(np.full(n + 64, 7.0, np.float32))

    plan = make_axpy(native, context)
    assert plan.pc_size == 4
    dset = native.NativeDescriptorSet(plan)
    dset.bind_buffer(0, xb._native, write=False)
    dset.bind_buffer(1, yb._native, read=False)
    dset.bind_buffer(2, ub._native, 0, 8, uniform=True, write=False)
    commands = native.NativeCommandList(context._native)
    commands.record_dispatch(plan, dset, (n + 63) // 64, 1, 1)
    assert commands.instance_size == 4
    value = commands.submit(struct.pack("<f", b), 1, -2, ub._native, struct.pack("<fI", a, n))
    assert value > 0

    for q in range(context.queue_count):
        y = yb.read(q)
        np.testing.assert_allclose(y[:n], a * x + b, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(y[n:], np.full(64, 7.0, np.float32))
    for obj in (commands, dset, plan):
        obj.close()


@pytest.fixture
def multi_queue_context(context):
    """A context of three queues (sharing the hardware queues where the device has fewer, as
    lavapipe does), closed after the test."""
    created = vd.create_context(device_ids=context.device_ids[:1], queue_counts=3)
    yield created
    created.close()


def test_native_thousand_dependent_dispatches_count_exactly(multi_queue_context, native, rng):
    ctx, n = multi_queue_context, 300
    start = rng.integers(0, 2**32 - 3000, n, dtype=np.uint32)   # + 3000 cannot wrap
    with ctx:
        data = vd.Buffer((n,), vd.uint32)
    data.write(start)
    plan = native.NativeComputePlan(ctx._native, compile_spirv(native, INCREMENT, "inc"),
                                    [STORAGE], 4, "inc")
    dset = native.NativeDescriptorSet(plan)
    dset.bind_buffer(0, data._native)
    commands = native.NativeCommandList(ctx._native)
    for _ in range(1000):
        commands.record_dispatch(plan, dset, (n + 63) // 64, 1, 1)
    assert commands.instance_size == 4000
    commands.submit(struct.pack("<I", n) * 1000)
    for q in range(ctx.queue_count):
        np.testing.assert_array_equal(data.read(q), start + 1000)

    # The same list replayed as 2 instances on the least busy queue adds 2000 on that queue's
    # replica only: the one queue whose timeline moved to the value the submit returned.
    queues = range(ctx.queue_count)
    before = [ctx._native.submitted_value(q) for q in queues]
    value = commands.submit(struct.pack("<I", n) * 2000, instance_count=2, queue_index=-1)
    after = [ctx._native.submitted_value(q) for q in queues]
    moved = [q for q in queues if after[q] != before[q]]
    assert len(moved) == 1 and after[moved[0]] == value, (before, after, value)
    ctx.wait_idle()
    for q in queues:
        np.testing.assert_array_equal(data.read(q), start + (3000 if q == moved[0] else 1000),
                                      err_msg=f"replica {q} (least busy queue: {moved[0]})")
    for obj in (commands, dset, plan):
        obj.close()
    data.destroy()


def test_native_pipeline_cache_round_trip(context, native, tmp_path):
    paths = [str(tmp_path / f"pipelines-{i}.bin") for i in range(len(context.device_ids))]
    cache = native.NativePipelineCache(context._native, paths)
    plan = native.NativeComputePlan(context._native, compile_spirv(native, INCREMENT, "inc"),
                                    [STORAGE], 4, "inc", cache)
    cache.save()
    assert all((tmp_path / f"pipelines-{i}.bin").stat().st_size >= 32 for i in range(len(paths)))
    reloaded = native.NativePipelineCache(context._native, paths)
    assert reloaded.loaded(0)
    plan.close()
    cache.close()
    reloaded.close()


def test_native_compute_errors_raise_value_and_index_errors(context, native):
    spirv = compile_spirv(native, AXPY, "axpy")
    with pytest.raises(ValueError, match="code 2"):
        native.NativeComputePlan(context._native, spirv, [STORAGE, 2, UNIFORM], 4, "axpy")
    with pytest.raises(ValueError, match="bytes"):
        native.NativeComputePlan(context._native, spirv[:-1], [STORAGE, STORAGE, UNIFORM], 4, "a")
    limit = context.device_infos[0].max_push_constant_size
    with pytest.raises(ValueError, match=str(limit)):
        native.NativeComputePlan(context._native, spirv, [STORAGE, STORAGE, UNIFORM], limit + 4,
                                 "axpy")
    with pytest.raises(ValueError, match="^pc_size: .* of 'axpy' must be >= 0, got -1$"):
        native.NativeComputePlan(context._native, spirv, [STORAGE, STORAGE, UNIFORM], -1, "axpy")

    plan = make_axpy(native, context)
    dset = native.NativeDescriptorSet(plan)
    buffer = vd.Buffer((256,), vd.float32)
    with pytest.raises(ValueError, match="binding 2.*uniform buffer.*storage buffer"):
        dset.bind_buffer(2, buffer._native)
    with pytest.raises(ValueError, match="binding 3"):
        dset.bind_buffer(3, buffer._native)
    with pytest.raises(ValueError, match="range"):
        dset.bind_buffer(0, buffer._native, 0, 1025)
    with pytest.raises(ValueError, match="^binding 0 of 'axpy': offset must be >= 0, got -4$"):
        dset.bind_buffer(0, buffer._native, -4)

    commands = native.NativeCommandList(context._native)
    max_x = context.max_workgroup_count[0]
    with pytest.raises(ValueError, match=f"x = {max_x + 1}.*{max_x}"):
        commands.record_dispatch(plan, dset, max_x + 1, 1, 1)
    with pytest.raises(ValueError, match="y = 0"):
        commands.record_dispatch(plan, dset, 1, 0, 1)
    commands.record_dispatch(plan, dset, 1, 1, 1)
    with pytest.raises(ValueError, match="binding 0.*never bound"):
        commands.submit(b"\0" * 4)
    for binding in (0, 1):
        dset.bind_buffer(binding, buffer._native)
    dset.bind_buffer(2, buffer._native, 0, 8, uniform=True, write=False)
    with pytest.raises(ValueError, match="8.*4"):
        commands.submit(b"\0" * 4, instance_count=2)
    with pytest.raises(ValueError, match="^instance_count: expected at least 1, got 0$"):
        commands.submit(b"\0" * 4, instance_count=0)
    with pytest.raises(IndexError, match=str(context.queue_count)):
        commands.submit(b"\0" * 4, queue_index=context.queue_count)
    with pytest.raises(IndexError, match=r"^queue_index: -3 is neither a queue nor -1 \("):
        commands.submit(b"\0" * 4, queue_index=-3)
    assert commands.submit(b"\0" * 4, queue_index=0) > 0
    context.wait_idle()
    for obj in (commands, dset, plan):
        obj.close()
    with pytest.raises(RuntimeError, match="closed"):
        commands.submit(b"")


def test_native_context_close_closes_compute_objects_first(context, native):
    rt = runtime()
    own = native.NativeContext(rt.instance, context.mapped_device_ids, context.queue_families)
    plans_before = native.live_compute_plan_count()
    sets_before = native.live_descriptor_set_count()
    buffer = native.NativeBuffer(own, 64 * 4)
    buffer.write(np.zeros(64, np.uint32).view(np.uint8))
    plan = native.NativeComputePlan(own, compile_spirv(native, INCREMENT, "inc"), [STORAGE], 4,
                                    "inc")
    dset = native.NativeDescriptorSet(plan)
    dset.bind_buffer(0, buffer)
    commands = native.NativeCommandList(own)
    commands.record_dispatch(plan, dset, 1, 1, 1)
    commands.submit(struct.pack("<I", 64))
    assert native.live_compute_plan_count() == plans_before + 1
    buffer.close()
    with pytest.raises(RuntimeError, match="buffer was closed"):
        commands.submit(struct.pack("<I", 64))
    replacement = native.NativeBuffer(own, 64 * 4)
    dset.bind_buffer(0, replacement)  # re-binding the closed buffer's slot repairs the set
    commands.submit(struct.pack("<I", 64))
    replacement.close()  # buffers are not closed by their context (the Python layer does it)
    own.close()  # the submission may still run: everything is retired, nothing leaks
    assert native.live_compute_plan_count() == plans_before
    assert native.live_descriptor_set_count() == sets_before
    with pytest.raises(RuntimeError, match="closed"):
        commands.record_dispatch(plan, dset, 1, 1, 1)


@pytest.mark.parametrize("poll", [False, True])
def test_raw_submit_reference_runs_and_leaves_the_queue_usable(context, native, rng, poll):
    """The benchmark's raw Vulkan loop (both wait modes) returns a latency and does not disturb
    the context's own bookkeeping of queue 0."""
    microseconds = native.raw_submit_wait_us(context.native, 20, poll)
    assert 0 < microseconds < 1e6
    with pytest.raises(ValueError, match="iterations"):
        native.raw_submit_wait_us(context.native, 0, poll)
    data = rng.standard_normal(300).astype(np.float32)
    buf = vd.asbuffer(data)
    np.testing.assert_array_equal(buf.read(0), data)


def test_raw_dependent_dispatch_reference_runs(context, native):
    assert 0 < native.raw_dependent_dispatch_us(context.native, 50) < 1e6
    assert 0 < native.raw_dependent_dispatch_us(context.native, 50, False) < 1e6
    with pytest.raises(ValueError, match="count"):
        native.raw_dependent_dispatch_us(context.native, 0)


@pytest.mark.parametrize("per_submit", [1, 8])
def test_raw_back_to_back_reference_runs(context, native, per_submit):
    assert 0 < native.raw_back_to_back_us(context.native, 40, per_submit) < 1e6
    with pytest.raises(ValueError, match="per_submit"):
        native.raw_back_to_back_us(context.native, 40, 0)
