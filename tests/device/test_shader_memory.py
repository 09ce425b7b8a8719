"""Device tests of atomics, shared memory with barriers, and subgroup operations."""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, f32, i32, iv4, u32, uv4

N = 5000


def test_atomic_add_histogram_equals_bincount(context, rng):
    bins = 64

    @vd.shader("values.size")
    def histogram(hist: Buff[u32], old: Buff[u32], values: Buff[u32]):
        i = vc.global_invocation_id().x
        old[i] = vc.atomic_add(hist[values[i]], 1)

    values = rng.integers(0, bins, N, dtype=np.uint32)
    start = rng.integers(1, 1000, bins, dtype=np.uint32)  # counting starts from random totals
    hist = vd.asbuffer(start)
    old = vd.Buffer((N,), vd.uint32)
    histogram(hist, old, vd.asbuffer(values))

    counts = np.bincount(values, minlength=bins).astype(np.uint32)
    np.testing.assert_array_equal(hist.read(0), start + counts)
    # Each addition saw a distinct previous value: per bin, exactly start..start+count-1.
    previous = old.read(0)
    for b in range(bins):
        np.testing.assert_array_equal(np.sort(previous[values == b]),
                                      start[b] + np.arange(counts[b], dtype=np.uint32))


def test_atomic_add_of_signed_values_into_one_counter_sums_exactly(context, rng):
    @vd.shader("values.size")
    def accumulate(total: Buff[i32], values: Buff[i32]):
        i = vc.global_invocation_id().x
        vc.atomic_add(total[0], values[i])
        vc.atomic_add(total[1], 1)

    values = rng.integers(-(10 ** 5), 10 ** 5, N, dtype=np.int32)
    start = rng.integers(-1000, 1000, 2, dtype=np.int32)
    total = vd.asbuffer(start)
    accumulate(total, vd.asbuffer(values))
    np.testing.assert_array_equal(total.read(0), [start[0] + values.sum(), start[1] + N])


def test_atomic_add_on_shared_counter_counts_workgroup_members(context, rng):
    local = 64

    @vd.shader(workgroups=N // local, local_size=(local, 1, 1))
    def count_positive(counts: Buff[u32], x: Buff[f32]):
        lid = vc.local_invocation_id().x
        counter = vc.shared_buffer(vd.uint32, 1, var_name="counter")
        with vc.if_block(lid == 0):
            counter[0] = 0
        vc.barrier()
        with vc.if_block(x[vc.global_invocation_id().x] > 0):
            vc.atomic_add(counter[0], 1)
        vc.barrier()
        with vc.if_block(lid == 0):
            counts[vc.workgroup_id().x] = counter[0]

    groups = N // local
    x = rng.standard_normal(groups * local).astype(np.float32)
    counts = vd.Buffer((groups,), vd.uint32)
    count_positive(counts, vd.asbuffer(x))
    np.testing.assert_array_equal(counts.read(0), (x.reshape(groups, local) > 0).sum(1))


def test_shared_memory_reverses_each_workgroup(context, rng):
    local = 64
    groups = 47

    @vd.shader(workgroups=groups, local_size=(local, 1, 1))
    def reverse(out: Buff[f32], x: Buff[f32]):
        gid = vc.global_invocation_id().x
        lid = vc.local_invocation_id().x
        tile = vc.shared_buffer(vd.float32, local, var_name="tile")
        tile[lid] = x[gid]
        vc.memory_barrier_shared()
        vc.barrier()
        out[gid] = tile[tile.shape.x - 1 - lid]   # shared_buffer(...).shape works (a Fix)

    x = rng.standard_normal(groups * local).astype(np.float32)
    out = vd.Buffer((groups * local,), vd.float32)
    reverse(out, vd.asbuffer(x))
    np.testing.assert_array_equal(out.read(0), x.reshape(groups, local)[:, ::-1].reshape(-1))


@pytest.mark.parametrize("local", [32, 128])
def test_shared_memory_tree_reduction_gives_workgroup_sums(context, rng, local):
    groups = 40

    @vd.shader(workgroups=groups, local_size=(local, 1, 1))
    def workgroup_sum(sums: Buff[i32], x: Buff[i32]):
        lid = vc.local_invocation_id().x
        partial = vc.shared_buffer(vd.int32, local, var_name="partial")
        partial[lid] = x[vc.global_invocation_id().x]
        vc.barrier()
        stride = local // 2
        while stride > 0:               # unrolled at trace time; barriers stay uniform
            with vc.if_block(lid < stride):
                partial[lid] = partial[lid] + partial[lid + stride]
            vc.barrier()
            stride //= 2
        with vc.if_block(lid == 0):
            sums[vc.workgroup_id().x] = partial[0]

    x = rng.integers(-(10 ** 6), 10 ** 6, groups * local, dtype=np.int32)
    sums = vd.Buffer((groups,), vd.int32)
    workgroup_sum(sums, vd.asbuffer(x))
    np.testing.assert_array_equal(sums.read(0), x.reshape(groups, local).sum(1))


def _require_subgroups(context) -> None:
    if not (context.subgroup_enabled and context.subgroup_arithmetic):
        pytest.skip("the device reports no subgroup arithmetic support")


def _group_reference(values, workgroup, subgroup, reduce):
    """Per (workgroup, subgroup) reduction of ``values``, broadcast back to each element."""
    keys = workgroup.astype(np.int64) * 1_000_000 + subgroup
    expected = np.empty_like(values)
    for key in np.unique(keys):
        members = keys == key
        expected[members] = reduce(values[members])
    return expected


def test_subgroup_add_matches_numpy_group_sums(context, rng):
    _require_subgroups(context)
    local = 64
    n = 1000  # 15 full workgroups and a partial one: only active invocations take part

    @vd.shader("out.size", local_size=(local, 1, 1))
    def subgroup_sums(out: Buff[i32], sg: Buff[u32], wg: Buff[u32], x: Buff[i32]):
        i = vc.global_invocation_id().x
        out[i] = vc.subgroup_add(x[i])
        sg[i] = vc.subgroup_id()
        wg[i] = vc.workgroup_id().x

    x = rng.integers(-(10 ** 6), 10 ** 6, n, dtype=np.int32)
    out, sg, wg = (vd.Buffer((n,), t) for t in (vd.int32, vd.uint32, vd.uint32))
    subgroup_sums(out, sg, wg, vd.asbuffer(x))
    subgroups, workgroups = sg.read(0), wg.read(0)
    np.testing.assert_array_equal(workgroups, np.arange(n) // local)
    assert subgroups.max() < local
    expected = _group_reference(x, workgroups, subgroups, np.sum)
    np.testing.assert_array_equal(out.read(0), expected)


def test_subgroup_float_add_and_max_match_numpy(context, rng):
    _require_subgroups(context)
    local = 32
    n = 32 * 50

    @vd.shader("x.size", local_size=(local, 1, 1))
    def subgroup_stats(sums: Buff[f32], maxima: Buff[f32], sg: Buff[u32], x: Buff[f32]):
        i = vc.global_invocation_id().x
        v = x[i].to_register("v")
        sums[i] = vc.subgroup_add(v)
        maxima[i] = vc.subgroup_max(v)
        sg[i] = vc.subgroup_id()

    x = rng.standard_normal(n).astype(np.float32)
    sums, maxima = vd.Buffer((n,), vd.float32), vd.Buffer((n,), vd.float32)
    sg = vd.Buffer((n,), vd.uint32)
    subgroup_stats(sums, maxima, sg, vd.asbuffer(x))
    workgroups = np.arange(n) // local
    subgroups = sg.read(0)
    np.testing.assert_allclose(sums.read(0), _group_reference(x, workgroups, subgroups, np.sum),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(maxima.read(0),
                                  _group_reference(x, workgroups, subgroups, np.max))


def test_subgroup_bitwise_min_and_elect_match_numpy(context, rng):
    _require_subgroups(context)
    local, groups = 64, 20
    n = local * groups

    @vd.shader("x.size", local_size=(local, 1, 1))
    def subgroup_ops(out: Buff[iv4], meta: Buff[uv4], x: Buff[i32]):
        i = vc.global_invocation_id().x
        v = x[i].to_register("v")
        out[i] = vc.to_ivec4(vc.subgroup_min(v), vc.subgroup_and(v), vc.subgroup_or(v),
                             vc.subgroup_xor(v))
        meta[i] = vc.to_uvec4(vc.subgroup_id(), vc.subgroup_size(), vc.subgroup_invocation_id(),
                              vc.to_uint(vc.subgroup_elect()))

    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    out, meta = vd.Buffer((n,), vd.ivec4), vd.Buffer((n,), vd.uvec4)
    subgroup_ops(out, meta, vd.asbuffer(x))
    result, info = out.read(0), meta.read(0)
    workgroups, subgroups = np.arange(n) // local, info[:, 0]
    size = int(info[0, 1])
    assert (info[:, 1] == size).all() and 1 <= size <= local
    assert (info[:, 2] < size).all()
    for column, reduce in enumerate((np.min, np.bitwise_and.reduce, np.bitwise_or.reduce,
                                     np.bitwise_xor.reduce)):
        np.testing.assert_array_equal(result[:, column],
                                      _group_reference(x, workgroups, subgroups, reduce))
    # subgroupElect() is true in exactly one invocation of each subgroup
    elected = _group_reference(info[:, 3].astype(np.int64), workgroups, subgroups, np.sum)
    np.testing.assert_array_equal(elected, 1)
