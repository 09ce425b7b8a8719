"""Device tests of launch geometry: 1-D/2-D/3-D ``exec_size`` with partial workgroups (every
element written exactly once, nothing beyond touched), ``workgroups=``, callable and string
sizes, numpy integers, and per-call overrides.

Coverage is counted with ``atomic_add`` into a counter array that is larger than the launch
and starts from random values: the launched region must grow by exactly one and the rest
(the guard region) must keep its random values.
"""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32, u32, uv3


def _counters(rng, shape) -> tuple[np.ndarray, vd.Buffer]:
    start = rng.integers(1, 10 ** 6, shape, dtype=np.uint32)
    return start, vd.asbuffer(start)


def _expect_once(counts: vd.Buffer, start: np.ndarray, region) -> None:
    expected = start.copy()
    expected[region] += 1
    np.testing.assert_array_equal(counts.read(0), expected)


@pytest.mark.parametrize("n", [1, 63, 65, 1000, 4097])
def test_1d_exec_size_with_partial_workgroup_touches_each_element_once(context, rng, n):
    @vd.shader(local_size=(64, 1, 1))
    def touch(counts: Buff[u32], groups: Buff[uv3]):
        i = vc.global_invocation_id().x
        vc.atomic_add(counts[i], 1)
        with vc.if_block(i == 0):
            groups[0] = vc.num_workgroups()

    start, counts = _counters(rng, n + 100)
    groups = vd.Buffer((1,), vd.uvec3)
    touch(counts, groups, exec_size=n)
    _expect_once(counts, start, slice(0, n))
    np.testing.assert_array_equal(groups.read(0)[0], [-(-n // 64), 1, 1])


def test_2d_exec_size_with_partial_workgroups_covers_exact_rectangle(context, rng):
    rows, cols, pitch = 37, 21, 32        # launch (cols, rows); the buffer is wider and taller

    @vd.shader(exec_size=(cols, rows), local_size=(8, 8, 1))
    def touch(counts: Buff[u32]):
        gid = vc.global_invocation_id()
        vc.atomic_add(counts[gid.y * pitch + gid.x], 1)

    start, counts = _counters(rng, (rows + 5) * pitch)
    touch(counts)
    expected_region = np.zeros((rows + 5, pitch), bool)
    expected_region[:rows, :cols] = True
    _expect_once(counts, start, expected_region.reshape(-1))


def test_3d_exec_size_with_partial_workgroups_covers_exact_box(context, rng):
    shape = (7, 9, 13)                     # (z, y, x) extents of the launch
    box = (9, 12, 16)                      # the counter volume is larger on every axis

    @vd.shader(exec_size=(shape[2], shape[1], shape[0]), local_size=(4, 4, 4))
    def touch(counts: Buff[u32]):
        gid = vc.global_invocation_id()
        vc.atomic_add(counts[(gid.z * box[1] + gid.y) * box[2] + gid.x], 1)

    start, counts = _counters(rng, box)
    touch(counts)
    region = np.zeros(box, bool)
    region[:shape[0], :shape[1], :shape[2]] = True
    _expect_once(counts, start, region)


def test_2d_exec_size_with_default_local_size_masks_overshoot(context, rng):
    rows, cols = 33, 40

    @vd.shader(exec_size=(cols, rows))    # default local size (max_workgroup_size[0], 1, 1)
    def touch(counts: Buff[u32]):
        gid = vc.global_invocation_id()
        vc.atomic_add(counts[gid.y * cols + gid.x], 1)

    start, counts = _counters(rng, rows * cols + 500)
    touch(counts)
    _expect_once(counts, start, slice(0, rows * cols))


def test_workgroups_launch_runs_every_invocation_unmasked(context, rng):
    local = 32

    @vd.shader(workgroups=(5, 3), local_size=(local, 2, 1))
    def touch(counts: Buff[u32]):
        gid = vc.global_invocation_id()
        vc.atomic_add(counts[gid.y * (5 * local) + gid.x], 1)

    width, height = 5 * local, 3 * 2
    start, counts = _counters(rng, width * height + 77)
    touch(counts)
    _expect_once(counts, start, slice(0, width * height))

    touch(counts, workgroups=2)           # per-call override: (2, 1, 1) workgroups of (32, 2)
    expected = start.copy()
    expected[:width * height] += 1
    expected[:2 * local] += 1             # row 0, x in [0, 64)
    expected[width:width + 2 * local] += 1  # row 1
    np.testing.assert_array_equal(counts.read(0), expected)


def test_callable_exec_size_receives_arguments_by_name(context, rng):
    @vd.shader(exec_size=lambda args: args.counts.size - args.skip, local_size=(64, 1, 1))
    def touch(counts: Buff[u32], skip: Const[u32]):
        vc.atomic_add(counts[vc.global_invocation_id().x], 1)

    start, counts = _counters(rng, 999)
    touch(counts, 123)
    _expect_once(counts, start, slice(0, 999 - 123))


@pytest.mark.parametrize("names", [("counts", "skip"), ("_counts", "skip")])
def test_a_launch_callable_sees_parameters_by_name_and_is_told_unknown_ones(context, rng,
                                                                           names):
    """Also for a parameter name that cannot be a tuple field (a leading underscore)."""
    seen = []

    def size(args):
        seen.append((args.get_names(), args.get_values()))
        return getattr(args, names[0]).size - args.skip

    if names[0] == "counts":
        def touch(counts: Buff[u32], skip: Const[u32]):
            vc.atomic_add(counts[vc.global_invocation_id().x], 1)
    else:
        def touch(_counts: Buff[u32], skip: Const[u32]):
            vc.atomic_add(_counts[vc.global_invocation_id().x], 1)
    touch = vd.shader(exec_size=size, local_size=(64, 1, 1))(touch)
    start, counts = _counters(rng, 999)
    touch(counts, 123)
    _expect_once(counts, start, slice(0, 999 - 123))
    assert seen == [(list(names), [counts, 123])]
    with pytest.raises(KeyError, match=rf"'count' is not a parameter of this shader \(its "
                                       rf"parameters: {names[0]}, skip\); a launch function "
                                       rf"receives them by name"):
        touch(counts, 1, exec_size=lambda args: args.count.size)


def test_string_exec_size_evaluates_over_parameter_names(context, rng):
    @vd.shader("(counts.shape[0] - margin, counts.shape[1] // 2)", local_size=(16, 4, 1))
    def touch(counts: Buff[u32], margin: Const[u32] = 3):
        gid = vc.global_invocation_id()
        vc.atomic_add(counts[gid.x * counts.shape.y + gid.y], 1)

    shape = (50, 31)
    start, counts = _counters(rng, shape)
    touch(counts)                          # the default of `margin` is in scope too
    region = np.zeros(shape, bool)
    region[:shape[0] - 3, :shape[1] // 2] = True
    _expect_once(counts, start, region)


def test_string_exec_size_can_use_vd_module(context, rng):
    @vd.shader("vd.Buffer.__name__ and counts.size // 3", local_size=(64, 1, 1))
    def touch(counts: Buff[u32]):
        vc.atomic_add(counts[vc.global_invocation_id().x], 1)

    start, counts = _counters(rng, 700)
    touch(counts)
    _expect_once(counts, start, slice(0, 700 // 3))


def test_per_call_exec_size_overrides_decorator_value(context, rng):
    @vd.shader("counts.size", local_size=(64, 1, 1))
    def touch(counts: Buff[u32]):
        vc.atomic_add(counts[vc.global_invocation_id().x], 1)

    start, counts = _counters(rng, 2000)
    touch(counts, exec_size=np.int64(777))                   # numpy integers are accepted
    touch(counts, exec_size=(100,))                          # a 1-tuple is padded
    touch(counts, exec_size=lambda args: args.counts.size // 4)
    touch(counts, exec_size="counts.size - 1")
    expected = start.copy()
    for size in (777, 100, 500, 1999):
        expected[:size] += 1
    np.testing.assert_array_equal(counts.read(0), expected)


def test_per_call_workgroups_override_decorator_exec_size(context, rng):
    @vd.shader("counts.size", local_size=(64, 1, 1))
    def touch(counts: Buff[u32]):
        vc.atomic_add(counts[vc.global_invocation_id().x], 1)

    start, counts = _counters(rng, 1000)
    touch(counts, workgroups=3)            # 192 invocations; the decorator size is unused
    _expect_once(counts, start, slice(0, 192))


def test_exec_size_changes_do_not_rebuild_the_shader(context, rng):
    @vd.shader("x.size", local_size=(128, 1, 1))
    def double(x: Buff[f32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] * 2

    values = rng.standard_normal(3000).astype(np.float32)
    x = vd.asbuffer(values)
    double(x)
    plan = double.plan
    double(x, exec_size=1000)
    assert double.plan is plan
    assert double.get_src().local_size == (128, 1, 1)
    expected = values * 2
    expected[:1000] *= 2
    np.testing.assert_array_equal(x.read(0), expected)


def test_no_exec_bounds_flag_runs_whole_workgroups(context, rng):
    @vd.shader(local_size=(64, 1, 1), flags=vc.ShaderFlags.NO_EXEC_BOUNDS)
    def touch(counts: Buff[u32]):
        vc.atomic_add(counts[vc.global_invocation_id().x], 1)

    start, counts = _counters(rng, 300)
    touch(counts, exec_size=130)          # 3 workgroups, and no guard masks the overshoot
    _expect_once(counts, start, slice(0, 192))


def test_callable_and_string_workgroups_are_evaluated_per_call(context, rng):
    @vd.shader(workgroups="counts.size // 64", local_size=(64, 1, 1))
    def touch(counts: Buff[u32]):
        vc.atomic_add(counts[vc.global_invocation_id().x], 1)

    start, counts = _counters(rng, 1000)
    touch(counts)                                        # 15 workgroups = 960 invocations
    touch(counts, workgroups=lambda args: (args.counts.size // 128,))
    expected = start.copy()
    expected[:960] += 1
    expected[:448] += 1
    np.testing.assert_array_equal(counts.read(0), expected)


def test_manually_traced_shader_function_runs(context, rng):
    with vc.shader_context() as ctx:
        data, offset = ctx.declare_input_arguments([Buff[f32], Const[f32]], ["data", "offset"])
        i = vc.global_invocation_id().x
        data[i] = data[i] * 2 + offset
    function = vd.make_shader_function(ctx.get_description("manual"), local_size=(32, 1, 1),
                                       exec_count="data.size")
    values = rng.standard_normal(1111).astype(np.float32)
    data = vd.asbuffer(values)
    function(data, 0.5)
    np.testing.assert_allclose(data.read(0), values * 2 + 0.5, rtol=1e-6, atol=1e-6)


def test_explicit_argument_annotations_names_and_defaults(context, rng):
    def body(out, x, k):
        i = vc.global_invocation_id().x
        out[i] = x[i] * k

    scaled = vd.shader("out.size", arg_type_annotations=[Buff[f32], Buff[f32], Const[f32]],
                       arg_names=["out", "x", "k"], arg_defaults=[None, None, 4.0])(body)
    values = rng.standard_normal(900).astype(np.float32)
    out = vd.Buffer((900,), vd.float32)
    scaled(out, vd.asbuffer(values))
    np.testing.assert_allclose(out.read(0), values * 4, rtol=1e-6, atol=1e-6)
    scaled(out, x=vd.asbuffer(values), k=-1.0)
    np.testing.assert_allclose(out.read(0), -values, rtol=1e-6, atol=1e-6)
