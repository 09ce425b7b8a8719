"""Device tests of CommandGraph: deferred push constants (bind_var/set_var), replays with
per-instance values, long dependent chains, reset and re-record, the global and default
graphs, submit_any, and the graph's own interface over the command lists it holds."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.base.command_list import CommandList
from vkdispatch.base.commands import BufferFill
from vkdispatch.base.handle import Handle
from vkdispatch.codegen.abbreviations import Buff, Const, Var, f32, i32, u32, v2
from vkdispatch.shader.dispatch_target import DispatchTarget

N = 2000


@pytest.fixture
def graph(context):
    g = vd.CommandGraph()
    yield g
    g.destroy()


@pytest.fixture
def affine_shader(context):
    @vd.shader("x.size")
    def affine(x: Buff[f32], k: Var[f32], b: Var[f32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] * k + b

    return affine


@pytest.fixture
def increment_shader(context):
    @vd.shader("x.size", local_size=(64, 1, 1))
    def increment(x: Buff[u32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] + 1

    return increment


def test_set_var_changes_value_between_submits_without_rerecording(context, rng, graph,
                                                                    affine_shader):
    start = rng.standard_normal(N).astype(np.float32)
    x = vd.asbuffer(start)
    affine_shader(x, graph.bind_var("k"), graph.bind_var("b"), graph=graph)
    expected = start.astype(np.float64)
    for k, b in rng.uniform(-1.5, 1.5, (3, 2)):
        graph.set_var("k", k)
        graph.set_var("b", b)
        graph.submit()
        expected = expected * np.float32(k) + np.float32(b)
        np.testing.assert_allclose(x.read(0), expected, rtol=1e-5, atol=1e-5)


def test_set_var_value_persists_across_later_submits(context, rng, graph, affine_shader):
    start = rng.standard_normal(N).astype(np.float32)
    x = vd.asbuffer(start)
    affine_shader(x, graph.bind_var("k"), 0.5, graph=graph)   # b is a fixed push constant
    graph.set_var("k", -2.0)
    graph.submit()
    graph.submit()
    np.testing.assert_allclose(x.read(0), (start * -2 + 0.5) * -2 + 0.5, rtol=1e-6, atol=1e-6)


def test_unset_bound_var_reads_zero(context, rng, graph, affine_shader):
    x = vd.asbuffer(rng.standard_normal(N).astype(np.float32))
    affine_shader(x, graph.bind_var("k"), graph.bind_var("b"), graph=graph)
    graph.set_var("b", 4.0)
    graph.submit()
    np.testing.assert_array_equal(x.read(0), np.full(N, 4.0, np.float32))


@pytest.fixture(scope="module")
def accumulate(context):
    """x[i] += k with k a push constant."""
    @vd.shader("x.size")
    def accumulate(x: Buff[i32], k: Var[i32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] + k

    return accumulate


def test_instance_count_three_accumulates_per_instance_values(context, rng, graph,
                                                              accumulate):
    start = rng.integers(-1000, 1000, N, dtype=np.int32)
    x = vd.asbuffer(start)
    accumulate(x, graph.bind_var("k"), graph=graph)
    graph.set_var("k", [1, 2, 3])
    graph.submit(instance_count=3)
    np.testing.assert_array_equal(x.read(0), start + 6)


def test_instance_count_three_replays_instances_in_order(context, rng, graph, affine_shader):
    start = rng.integers(-100, 100, N).astype(np.float32)
    x = vd.asbuffer(start)
    affine_shader(x, graph.bind_var("k"), 1.0, graph=graph)
    graph.set_var("k", np.array([1.0, 2.0, 3.0]))
    graph.submit(instance_count=3)
    # x = x*k + 1 for k = 1, 2, 3 in that order (any other order gives a different result)
    np.testing.assert_array_equal(x.read(0), ((start * 1 + 1) * 2 + 1) * 3 + 1)


def test_instances_consume_push_constants_in_recording_order(context, rng, graph,
                                                              affine_shader):
    @vd.shader("x.size")
    def add(x: Buff[f32], k: Var[f32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] + k

    start = rng.standard_normal(N).astype(np.float32)
    x = vd.asbuffer(start)
    affine_shader(x, graph.bind_var("scale"), graph.bind_var("shift"), graph=graph)
    add(x, graph.bind_var("k"), graph=graph)
    add(x, graph.bind_var("k"), graph=graph)      # one name, two slots
    scales, shifts, ks = rng.uniform(-2, 2, (3, 2)).astype(np.float32)
    graph.set_var("scale", scales)
    graph.set_var("shift", shifts)
    graph.set_var("k", ks)
    graph.submit(instance_count=2)
    expected = start.astype(np.float64)
    for scale, shift, k in zip(scales, shifts, ks):
        expected = expected * scale + shift + 2 * k
    np.testing.assert_allclose(x.read(0), expected, rtol=1e-5, atol=1e-5)


def test_bound_vector_var_takes_per_instance_values(context, rng, graph):
    @vd.shader("x.size")
    def scale_shift(x: Buff[f32], v: Var[v2]):
        i = vc.global_invocation_id().x
        x[i] = x[i] * v.x + v.y

    start = rng.standard_normal(N).astype(np.float32)
    x = vd.asbuffer(start)
    scale_shift(x, graph.bind_var("v"), graph=graph)   # a vector Var bound by name
    vs = rng.uniform(-2, 2, (2, 2)).astype(np.float32)
    graph.set_var("v", vs)
    graph.submit(instance_count=2)
    expected = start.astype(np.float64)
    for scale, shift in vs:
        expected = expected * scale + shift
    np.testing.assert_allclose(x.read(0), expected, rtol=1e-5, atol=1e-5)


def test_thousand_dependent_dispatches_in_one_graph_count_exactly(context, rng, graph,
                                                                   increment_shader):
    start = rng.integers(0, 10 ** 6, 300, dtype=np.uint32)
    x = vd.asbuffer(start)
    for _ in range(1000):     # more dispatches than the descriptor-set cache holds (512)
        increment_shader(x, graph=graph)
    graph.submit()
    np.testing.assert_array_equal(x.read(0), start + 1000)
    graph.submit()
    np.testing.assert_array_equal(x.read(0), start + 2000)


def test_graph_reset_and_rerecord_runs_only_new_calls(context, rng, graph, affine_shader):
    start = rng.standard_normal(N).astype(np.float32)
    x = vd.asbuffer(start)
    affine_shader(x, graph.bind_var("k"), 1.0, graph=graph)
    graph.set_var("k", 3.0)
    graph.submit()
    graph.reset()
    graph.submit()                      # nothing recorded: no effect
    np.testing.assert_allclose(x.read(0), start * 3 + 1, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="^Variable not bound! 'k' was never passed"):
        graph.set_var("k", 1.0)         # reset forgot the bound names
    affine_shader(x, -1.0, graph.bind_var("b"), graph=graph)
    graph.set_var("b", 0.25)
    graph.submit()
    np.testing.assert_allclose(x.read(0), -(start * 3 + 1) + 0.25, rtol=1e-6, atol=1e-6)


def test_set_global_graph_records_calls_without_graph_argument(context, rng, graph,
                                                               increment_shader):
    start = rng.integers(0, 10 ** 6, 500, dtype=np.uint32)
    x = vd.asbuffer(start)
    other = vd.CommandGraph()
    vd.set_global_graph(graph)
    try:
        assert vd.global_graph() is graph
        increment_shader(x)
        increment_shader(x)
        np.testing.assert_array_equal(x.read(0), start)    # recorded, not yet run
        vd.set_global_graph(other)                          # replacing is allowed (a Fix)
        increment_shader(x)
    finally:
        vd.set_global_graph(None)
    assert vd.global_graph() is vd.default_graph()
    graph.submit()
    np.testing.assert_array_equal(x.read(0), start + 2)
    other.submit()
    np.testing.assert_array_equal(x.read(0), start + 3)
    other.destroy()


def test_default_graph_submits_each_call_immediately(context, rng, increment_shader):
    default = vd.default_graph()
    assert vd.global_graph() is default
    assert default.submit_on_record
    start = rng.integers(0, 10 ** 6, 500, dtype=np.uint32)
    x = vd.asbuffer(start)
    increment_shader(x)
    np.testing.assert_array_equal(x.read(0), start + 1)
    increment_shader(x, graph=default)
    np.testing.assert_array_equal(x.read(0), start + 2)


def test_submit_any_runs_the_graph_once(context, rng, graph, increment_shader):
    start = rng.integers(0, 10 ** 6, 500, dtype=np.uint32)
    x = vd.asbuffer(start)
    increment_shader(x, graph=graph)
    increment_shader(x, graph=graph)
    graph.submit_any()
    context.wait_idle()
    totals = [x.read(q) for q in range(context.queue_count)]
    assert sum(np.array_equal(t, start + 2) for t in totals) == 1
    assert all(np.array_equal(t, start) or np.array_equal(t, start + 2) for t in totals)


def test_graph_replays_see_each_others_results(context, rng, graph):
    @vd.shader("dst.size")
    def copy_add(dst: Buff[f32], src: Buff[f32]):
        i = vc.global_invocation_id().x
        dst[i] = src[i] + 1

    start = rng.standard_normal(N).astype(np.float32)
    a, b = vd.asbuffer(start), vd.Buffer((N,), vd.float32)
    copy_add(b, a, graph=graph)          # b = a + 1
    copy_add(a, b, graph=graph)          # a = b + 1
    for _ in range(5):
        graph.submit()
    np.testing.assert_allclose(a.read(0), start + 10, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(b.read(0), start + 9, rtol=1e-6, atol=1e-6)


def test_buffer_read_only_in_condition_is_ordered_after_its_writer(context, rng, graph):
    # A buffer used only in an if-condition is still tracked for barriers (a Fix).
    @vd.shader("flags.size")
    def set_flags(flags: Buff[i32], x: Buff[f32]):
        i = vc.global_invocation_id().x
        flags[i] = vc.to_int(x[i] > 0)

    @vd.shader("out.size")
    def select(out: Buff[f32], flags: Buff[i32]):
        i = vc.global_invocation_id().x
        with vc.if_block(flags[i] == 1):
            out[i] = 1.0
        with vc.else_block():
            out[i] = -1.0

    x = rng.standard_normal(N).astype(np.float32)
    flags = vd.asbuffer(rng.integers(5, 9, N, dtype=np.int32))
    out = vd.Buffer((N,), vd.float32)
    set_flags(flags, vd.asbuffer(x), graph=graph)
    select(out, flags, graph=graph)
    graph.submit()
    np.testing.assert_array_equal(out.read(0), np.where(x > 0, 1.0, -1.0))


def test_instance_count_without_vars_replays_the_graph(context, rng, graph, increment_shader):
    start = rng.integers(0, 10 ** 6, 500, dtype=np.uint32)
    x = vd.asbuffer(start)
    increment_shader(x, graph=graph)
    graph.submit(instance_count=3)
    np.testing.assert_array_equal(x.read(0), start + 3)


def test_back_to_back_immediate_calls_each_see_their_own_values(context, rng):
    @vd.shader("x.size")
    def step(x: Buff[f32], c: Const[f32], k: Var[f32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] * k + c

    start = rng.standard_normal(N).astype(np.float32)
    x = vd.asbuffer(start)
    cs = rng.uniform(-1, 1, 40).astype(np.float32)
    ks = rng.uniform(0.5, 0.9, 40).astype(np.float32)
    for c, k in zip(cs, ks):            # no read in between: the calls queue up
        step(x, float(c), float(k))
    expected = start.astype(np.float64)
    for c, k in zip(cs, ks):
        expected = expected * k + c
    np.testing.assert_allclose(x.read(0), expected, rtol=1e-5, atol=1e-5)


def test_graph_submits_and_immediate_calls_run_in_program_order(context, rng, graph,
                                                                increment_shader):
    @vd.shader("x.size", local_size=(64, 1, 1))
    def double_plus(x: Buff[u32], c: Const[u32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] * 2 + c

    start = rng.integers(0, 10 ** 6, 500, dtype=np.uint32)
    x = vd.asbuffer(start)
    increment_shader(x, graph=graph)
    expected = start.astype(np.uint64)
    for c in range(10):
        graph.submit()                  # x += 1
        double_plus(x, c)               # x = 2x + c, immediately
        expected = ((expected + 1) * 2 + c) % 2 ** 32
    np.testing.assert_array_equal(x.read(0), expected)


def test_host_writes_between_submits_are_seen_by_the_next_replay(context, rng, graph):
    @vd.shader("dst.size")
    def copy_add(dst: Buff[f32], src: Buff[f32]):
        i = vc.global_invocation_id().x
        dst[i] = src[i] + 1

    src, dst = vd.Buffer((N,), vd.float32), vd.Buffer((N,), vd.float32)
    copy_add(dst, src, graph=graph)
    for _ in range(3):
        values = rng.standard_normal(N).astype(np.float32)
        src.write(values)
        graph.submit()
        np.testing.assert_array_equal(dst.read(0), values + np.float32(1))


def test_same_buffer_bound_to_two_parameters_updates_in_place(context, rng, graph):
    @vd.shader("dst.size")
    def copy_add(dst: Buff[f32], src: Buff[f32]):
        i = vc.global_invocation_id().x
        dst[i] = src[i] * 2 + 1

    start = rng.standard_normal(N).astype(np.float32)
    x = vd.asbuffer(start)
    for _ in range(4):
        copy_add(x, x, graph=graph)
    graph.submit()
    expected = start.astype(np.float64)
    for _ in range(4):
        expected = expected * 2 + 1
    np.testing.assert_allclose(x.read(0), expected, rtol=1e-6, atol=1e-6)


def test_bad_instance_values_raise_and_graph_stays_usable(context, rng, graph, accumulate):
    start = rng.integers(-1000, 1000, N, dtype=np.int32)
    x = vd.asbuffer(start)
    accumulate(x, graph.bind_var("k"), graph=graph)
    graph.set_var("k", [1, 2])
    with pytest.raises(ValueError, match=r"^set_var\('k'\): a int32 Var takes 1 value\(s\) or 3 "):
        graph.submit(instance_count=3)          # two values for three instances
    for bad in (0, -1, True, 2.0):
        with pytest.raises(ValueError, match="instance_count"):
            graph.submit(instance_count=bad)
    np.testing.assert_array_equal(x.read(0), start)   # nothing ran
    graph.set_var("k", 5)
    graph.submit(instance_count=2)              # one value is broadcast to every instance
    np.testing.assert_array_equal(x.read(0), start + 10)


def test_submit_on_record_without_reset_keeps_and_resubmits_every_call(context, rng,
                                                                        affine_shader):
    """CommandGraph(submit_on_record=True): each call submits everything recorded so far."""
    x = rng.standard_normal(N).astype(np.float32)
    buf = vd.asbuffer(x)
    graph = vd.CommandGraph(submit_on_record=True)
    affine_shader(buf, 2.0, 0.0, graph=graph)   # runs [x2]
    affine_shader(buf, 1.0, 3.0, graph=graph)   # runs [x2, +3]
    expected = (x * 2) * 2 + 3
    np.testing.assert_allclose(buf.read(0), expected, rtol=1e-5, atol=1e-4)
    graph.submit()                               # runs [x2, +3] again
    np.testing.assert_allclose(buf.read(0), expected * 2 + 3, rtol=1e-5, atol=1e-4)
    graph.destroy()


def test_uniform_data_outgrowing_its_buffer_after_a_submit_rebinds_every_call(context, rng,
                                                                               graph):
    # Every call has its own Const values, so its own uniform block: the calls recorded after
    # the first submit need a larger uniform buffer, and the descriptor sets made for the first
    # calls (bound to the old buffer) must not be reused.
    width, first, rows = 16, 8, 600

    @vd.shader("src.size")
    def put_row(out: Buff[i32], src: Buff[i32], row: Const[i32], c: Const[i32]):
        i = vc.global_invocation_id().x
        out[row * width + i] = src[i] + c

    src_host = rng.integers(-1000, 1000, width, dtype=np.int32)
    constants = rng.integers(-10**6, 10**6, rows, dtype=np.int32)
    src = vd.asbuffer(src_host)
    out = vd.asbuffer(np.zeros((rows, width), np.int32).reshape(-1))
    for row in range(first):
        put_row(out, src, row, int(constants[row]), graph=graph)
    graph.submit()
    np.testing.assert_array_equal(out.read(0)[:first * width].reshape(first, width),
                                  src_host + constants[:first, None])
    words_before = graph._uniform_buffer.size
    for row in range(first, rows):
        put_row(out, src, row, int(constants[row]), graph=graph)
    graph.submit()
    assert graph._uniform_buffer.size > words_before   # the premise: it was re-allocated
    np.testing.assert_array_equal(out.read(0).reshape(rows, width),
                                  src_host + constants[:, None])


# -- a graph holds the command lists it replays: its own recording is the only way in ---------


def test_graph_is_no_command_list_and_offers_no_recording_around_its_own(graph):
    # A list's record()/record_compute_plan() wrote into the native list behind the graph's
    # recording: the next submit dropped the command, or ran nothing at all.
    assert not isinstance(graph, CommandList)
    assert not hasattr(graph, "record")
    assert not hasattr(graph, "record_compute_plan")
    assert isinstance(graph, DispatchTarget) and isinstance(graph, Handle)


def test_graph_runs_a_command_recorded_through_record_command(context, rng, graph):
    start = rng.integers(0, 2**32, N, dtype=np.uint32)
    x = vd.asbuffer(start)
    graph.record_command(BufferFill(x, 7, 4 * (N // 2)))
    graph.submit()
    np.testing.assert_array_equal(x.read(0), np.r_[np.full(N // 2, 7, np.uint32),
                                                   start[N // 2:]])


def test_graph_submit_takes_instance_count_then_queue_index_and_no_data(context, rng, graph,
                                                                        increment_shader):
    parameters = inspect.signature(graph.submit).parameters
    assert list(parameters) == ["instance_count", "queue_index"]
    assert (parameters["instance_count"].default, parameters["queue_index"].default) == (None, -2)
    start = rng.integers(0, 1000, N, dtype=np.uint32)
    x = vd.asbuffer(start)
    increment_shader(x, graph=graph)
    graph.submit(3)
    graph.submit(2, 0)  # queue 0 alone
    np.testing.assert_array_equal(x.read(0), start + 5)
    # A list's push-constant bytes are refused, not run: the graph packs its Vars itself.
    with pytest.raises(TypeError):
        graph.submit(data=b"\0" * 8)
    with pytest.raises(ValueError, match="instance_count must be a positive int"):
        graph.submit(b"\0" * 8)
    np.testing.assert_array_equal(x.read(0), start + 5)


def test_graph_instance_size_counts_recorded_push_constants_before_any_submit(
        context, rng, graph, affine_shader, increment_shader):
    x = vd.asbuffer(rng.standard_normal(N).astype(np.float32))
    assert graph.get_instance_size() == 0
    affine_shader(x, graph.bind_var("k"), 0.5, graph=graph)  # two float32 Vars
    increment_shader(vd.asbuffer(np.zeros(N, np.uint32)), graph=graph)  # none
    affine_shader(x, 2.0, graph.bind_var("b"), graph=graph)
    assert graph.get_instance_size() == 2 * 2 * np.dtype(np.float32).itemsize
    graph.set_var("k", [1.0, 2.0])
    graph.set_var("b", [0.0, 1.0])
    graph.submit(instance_count=2)
    assert graph.get_instance_size() == 16
    graph.reset()
    assert graph.get_instance_size() == 0


def test_graph_instance_size_is_what_each_instance_of_submit_consumes(context, rng, graph,
                                                                       accumulate):
    start = rng.integers(-1000, 1000, N, dtype=np.int32)
    x = vd.asbuffer(start)
    accumulate(x, graph.bind_var("k"), graph=graph)
    accumulate(x, graph.bind_var("k"), graph=graph)
    assert graph.get_instance_size() == 2 * np.dtype(np.int32).itemsize
    graph.set_var("k", [3, -1, 5])
    graph.submit(instance_count=3)
    np.testing.assert_array_equal(x.read(0), start + 2 * (3 - 1 + 5))


def test_destroying_a_graph_frees_the_command_lists_it_holds(multi, rng, increment_shader):
    with multi:
        starts = rng.integers(0, 1000, (multi.queue_count, N), dtype=np.uint32)
        x = vd.asbuffer(np.zeros(N, np.uint32))
        increment_shader(x)  # builds the plan (kept by the context) before counting
        live = len(multi.handles)
        graph = vd.CommandGraph()
        for queue, start in enumerate(starts):
            x.write(start, queue)
        increment_shader(x, graph=graph)
        vd.copy_replica(x, 0, graph=graph)  # a second segment: a second native list
        increment_shader(x, graph=graph)
        graph.submit()
        np.testing.assert_array_equal(x.read(), np.tile(starts[0] + 2, (multi.queue_count, 1)))
        x.destroy()
        graph.destroy()
        assert graph.destroyed
        assert len(multi.handles) == live - 1  # the buffer, the graph and all it held are gone
        with pytest.raises(ValueError, match="this CommandGraph was destroyed"):
            graph.submit()
