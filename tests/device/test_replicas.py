"""vd.copy_replica and vd.all_reduce on contexts of 2 and 3 queues (lavapipe shares one hardware
queue among them; each still has its own replicas): results against numpy, ordering after work
submitted to each queue before the call, every dtype kind, and the errors. Tests taking
``route`` run three times: as the queues' device allows (on the device), with the copy kernel
GPUs use (forced where the device would take vkCmdCopyBuffer), and along the path replicas on
different devices take (through host staging memory), forced by reporting every pair of
replicas as on different devices."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.base import replicas
from vkdispatch.codegen.abbreviations import Buff, Var, f32

N = 513


@pytest.fixture(params=["device", "kernel", "host"])
def route(request, monkeypatch):
    """How copies between replicas travel: as on one device (on CPU devices a
    vkCmdCopyBuffer), with the copy kernel GPUs use (4-byte words), or as between devices."""
    if request.param == "kernel":
        monkeypatch.setattr(replicas, "word_bytes", lambda context, buffers, ranges: 4)
    if request.param == "host":
        monkeypatch.setattr(replicas, "copies_on_device", lambda buffer, src, dst: False)
        monkeypatch.setattr(replicas, "copies_through_cuda", lambda buffer, src, dst: False)
    return request.param


def distinct_replicas(multi, rng, var_type=vd.float32, np_dtype=np.float32):
    """A buffer whose replicas hold different random values, and those values."""
    hosts = np.stack([random_array(rng, N, np_dtype) for _ in range(multi.queue_count)])
    with multi:
        buffer = vd.Buffer(N, var_type)
    for q, host in enumerate(hosts):
        buffer.write(host, q)
    return buffer, hosts


def long_replicas_and_affine_graph(multi, rng, affine):
    """A 16 MiB buffer (long enough for its copies to race later work if they were unordered)
    whose replicas hold different random values, those values, and a graph computing
    ``2 x + 1`` in place on it."""
    size = 1 << 22
    hosts = rng.standard_normal((multi.queue_count, size)).astype(np.float32)
    with multi:
        buffer = vd.Buffer(size, vd.float32)
        graph = vd.CommandGraph()
    for q in range(multi.queue_count):
        buffer.write(hosts[q], q)
    affine(buffer, 2.0, 1.0, graph=graph)
    return buffer, hosts, graph


def test_copy_replica_to_every_other_replica(multi, rng, route):
    buffer, hosts = distinct_replicas(multi, rng)
    src = multi.queue_count - 1
    vd.copy_replica(buffer, src)
    np.testing.assert_array_equal(buffer.read(), np.broadcast_to(hosts[src], hosts.shape))


def test_copy_replica_to_chosen_replicas_leaves_the_rest(multi, rng, route):
    buffer, hosts = distinct_replicas(multi, rng, vd.int32, np.int32)
    vd.copy_replica(buffer, 0, [1])
    expected = hosts.copy()
    expected[1] = hosts[0]
    np.testing.assert_array_equal(buffer.read(), expected)


def test_device_copy_is_ordered_after_earlier_and_before_later_work(multi, rng, affine):
    """Replica 0 is changed by a graph on queue 0 submitted before the copy (the copy sees it)
    and by graphs submitted right after it (the copy must not see those)."""
    buffer, hosts, graph = long_replicas_and_affine_graph(multi, rng, affine)
    on_device = [q for q in range(1, multi.queue_count) if buffer._native.copies_on_device(0, q)]
    graph.submit(queue_index=0)
    vd.copy_replica(buffer, 0)
    for _ in range(5):
        graph.submit(queue_index=0)
    once = hosts[0] * np.float32(2) + np.float32(1)
    got = buffer.read()
    for q in range(1, multi.queue_count):
        np.testing.assert_allclose(got[q], once, rtol=1e-6)
    expected = once
    for _ in range(5):
        expected = expected * np.float32(2) + np.float32(1)
    np.testing.assert_allclose(got[0], expected, rtol=1e-5)
    device_of = [d for d, families in enumerate(multi.queue_families) for _ in families]
    assert on_device == [q for q in range(1, multi.queue_count) if device_of[q] == device_of[0]]
    graph.destroy()


@pytest.mark.parametrize("between", ["host", "cuda"])
def test_copy_between_devices_is_ordered_with_both_queues(multi, rng, affine, monkeypatch,
                                                          between):
    """Along the paths between devices (through host memory; CUDA's peer copy where two GPUs
    reach each other): the copy sees the graph submitted to the source queue before it, not the
    ones right after it, and a graph submitted to the destination queue right after the call
    transforms the copied values."""
    monkeypatch.setattr(replicas, "copies_on_device", lambda buffer, src, dst: False)
    if between == "host":
        monkeypatch.setattr(replicas, "copies_through_cuda", lambda buffer, src, dst: False)
    buffer, hosts, graph = long_replicas_and_affine_graph(multi, rng, affine)
    dst = 1
    if between == "cuda":
        dst = next((q for q in range(1, multi.queue_count)
                    if replicas.copies_through_cuda(buffer, 0, q)), None)
        if dst is None:
            graph.destroy()
            pytest.skip("no replica is on another GPU that CUDA's peer copy reaches")
    graph.submit(queue_index=0)
    vd.copy_replica(buffer, 0, [dst])
    for queue in (0, 0, dst):
        graph.submit(queue_index=queue)
    once = hosts[0] * np.float32(2) + np.float32(1)
    twice = once * np.float32(2) + np.float32(1)
    np.testing.assert_allclose(buffer.read(dst), twice, rtol=1e-6)
    np.testing.assert_allclose(buffer.read(0), twice * np.float32(2) + np.float32(1), rtol=1e-5)
    for q in range(1, multi.queue_count):
        if q != dst:
            np.testing.assert_array_equal(buffer.read(q), hosts[q])
    graph.destroy()


def test_a_cuda_peer_copy_where_none_reaches_names_the_replica(multi, rng):
    buffer, _ = distinct_replicas(multi, rng)
    reached = [q for q in range(1, multi.queue_count) if replicas.copies_through_cuda(buffer, 0, q)]
    unreached = next(q for q in range(1, multi.queue_count) if q not in reached) \
        if len(reached) < multi.queue_count - 1 else None
    if unreached is not None:
        with pytest.raises(ValueError, match=f"dst: replica {unreached} is not on a CUDA device"):
            buffer._native.copy_replica_through_cuda(0, buffer._native, unreached)
    if reached:  # two GPUs: an offset past the target's end is refused, nothing copied
        with pytest.raises(ValueError, match="dst_offset"):
            buffer._native.copy_replica_through_cuda(0, buffer._native, reached[0], 8)
    buffer.destroy()


def test_device_copy_reads_its_source_before_later_work_overwrites_it(multi, rng):
    """Right after the copy, queue 0 overwrites the END of its replica with a tiny copy: if it
    did not wait for the device copy (64 MiB, read front to back), it would land before the
    copy read that end (a GPU runs the queues side by side; lavapipe serialises them)."""
    size, tail = 1 << 24, 1024
    host = rng.standard_normal(size).astype(np.float32)
    with multi:
        buffer = vd.Buffer(size, vd.float32)
        marker = vd.asbuffer(np.full(tail, -7.0, np.float32))
        graph = vd.CommandGraph()
    vd.copy(buffer, marker, dst_offset=size - tail, graph=graph)
    graph.submit(queue_index=0)  # recorded now, so that the submit below is quick
    buffer.write(host)
    vd.copy_replica(buffer, 0)
    graph.submit(queue_index=0)
    got = buffer.read()
    expected_zero = host.copy()
    expected_zero[-tail:] = -7.0
    np.testing.assert_array_equal(got[0], expected_zero)
    for q in range(1, multi.queue_count):
        np.testing.assert_array_equal(got[q][-tail:], host[-tail:], err_msg=f"replica {q}")
    graph.destroy()


@pytest.mark.parametrize("op, reduce", [("sum", np.add), ("prod", np.multiply),
                                        ("min", np.minimum), ("max", np.maximum)])
@pytest.mark.parametrize("var_type, np_dtype", [(vd.float32, np.float32),
                                                (vd.int32, np.int32),
                                                (vd.uint32, np.uint32),
                                                (vd.float64, np.float64)])
def test_all_reduce_gives_every_replica_the_reduction(multi, rng, route, op, reduce, var_type,
                                                      np_dtype):
    buffer, hosts = distinct_replicas(multi, rng, var_type, np_dtype)
    vd.all_reduce(buffer, op)
    expected = reduce.reduce(hosts, axis=0, dtype=np_dtype)  # integers wrap around
    got = buffer.read()
    for q in range(multi.queue_count):
        np.testing.assert_allclose(got[q], expected, rtol=1e-6)


def test_all_reduce_over_more_replicas_than_one_kernel_binds(context, rng, route):
    """Five queues: the running result passes from queue to queue (one kernel binds at most
    four replicas)."""
    five = vd.create_context(device_ids=[context.device_ids[0]], queue_counts=5)
    try:
        for op, reduce in (("sum", np.add), ("max", np.maximum)):
            buffer, hosts = distinct_replicas(five, rng, vd.int32, np.int32)
            vd.all_reduce(buffer, op)
            np.testing.assert_array_equal(
                buffer.read(), np.broadcast_to(reduce.reduce(hosts, axis=0, dtype=np.int32),
                                               hosts.shape), err_msg=op)
    finally:
        five.close()


def test_all_reduce_of_complex_and_vector_buffers(multi, rng):
    buffer, hosts = distinct_replicas(multi, rng, vd.complex64, np.complex64)
    vd.all_reduce(buffer)
    np.testing.assert_allclose(buffer.read(1), hosts.sum(axis=0), rtol=1e-5)
    with multi:
        vectors = vd.Buffer(N, vd.vec2)
    parts = rng.standard_normal((multi.queue_count, N, 2)).astype(np.float32)
    for q in range(multi.queue_count):
        vectors.write(parts[q], q)
    vd.all_reduce(vectors, "max")
    np.testing.assert_array_equal(vectors.read(0), parts.max(axis=0))


def test_all_reduce_of_complex_products_and_composite_types(multi, rng, route):
    """Complex products combine as complex numbers; vectors, matrices and vec3's tightly packed
    components combine component by component."""
    hosts = (rng.standard_normal((multi.queue_count, N)) +
             1j * rng.standard_normal((multi.queue_count, N))).astype(np.complex64)
    with multi:
        product = vd.Buffer(N, vd.complex64)
    for q in range(multi.queue_count):
        product.write(hosts[q], q)
    vd.all_reduce(product, "prod")
    np.testing.assert_allclose(product.read(multi.queue_count - 1), hosts.prod(axis=0),
                               rtol=1e-5)
    for var_type, np_dtype, shape, op, reduce in (
            (vd.vec3, np.float32, (N, 3), "sum", np.add),
            (vd.ivec4, np.int32, (N, 4), "min", np.minimum),
            (vd.mat2, np.float32, (N, 2, 2), "prod", np.multiply)):
        parts = np.stack([random_array(rng, shape, np_dtype) for _ in range(multi.queue_count)])
        with multi:
            buffer = vd.Buffer(N, var_type)
        for q in range(multi.queue_count):
            buffer.write(parts[q], q)
        vd.all_reduce(buffer, op)
        got = buffer.read()
        for q in range(multi.queue_count):
            np.testing.assert_allclose(got[q], reduce.reduce(parts, axis=0, dtype=np_dtype),
                                       rtol=1e-6, err_msg=f"{var_type.name} replica {q}")


def test_repeated_all_reduces_of_one_buffer_with_several_ops(multi, rng):
    """Later calls reuse what the first one set up for the buffer (per op), and a buffer made
    after another was all-reduced and destroyed gets its own."""
    buffer, hosts = distinct_replicas(multi, rng, vd.int32, np.int32)
    expected = hosts.copy()
    for op, reduce in (("sum", np.add), ("max", np.maximum), ("sum", np.add)):
        vd.all_reduce(buffer, op)
        expected[:] = reduce.reduce(expected, axis=0, dtype=np.int32)
        np.testing.assert_array_equal(buffer.read(), expected, err_msg=op)
        for q in range(multi.queue_count):  # different replicas again for the next call
            buffer.write(expected[q] + np.int32(q), q)
            expected[q] += np.int32(q)
    buffer.destroy()
    again, hosts = distinct_replicas(multi, rng, vd.int32, np.int32)
    vd.all_reduce(again, "min")
    np.testing.assert_array_equal(again.read(0), hosts.min(axis=0))


def test_a_buffer_all_reduced_on_the_device_is_still_freed(multi, rng, route):
    """What the call keeps with the buffer (between devices: a scratch buffer) goes with it:
    dropping the last reference frees it, destroy() frees the scratch at once."""
    buffer, _hosts = distinct_replicas(multi, rng)
    vd.all_reduce(buffer)
    alive = weakref.ref(buffer)
    del buffer
    gc.collect()
    assert alive() is None
    destroyed, _hosts = distinct_replicas(multi, rng)
    vd.all_reduce(destroyed)
    # Replicas on one device are read in place; between devices a scratch buffer takes them.
    assert bool(destroyed.derived) == (route == "host" or len(multi.device_ids) > 1)
    destroyed.destroy()
    assert not destroyed.derived


def test_work_after_an_all_reduce_sees_its_result(multi, rng, affine, route):
    """Graphs submitted to every queue right after the call (which returns before the device
    is done) transform the reduced values, not the replicas before the reduction."""
    buffer, hosts, graph = long_replicas_and_affine_graph(multi, rng, affine)
    vd.all_reduce(buffer)
    graph.submit()
    expected = hosts.sum(axis=0, dtype=np.float32) * np.float32(2) + np.float32(1)
    got = buffer.read()
    for q in range(multi.queue_count):
        np.testing.assert_allclose(got[q], expected, rtol=1e-5, atol=1e-5,
                                   err_msg=f"replica {q}")
    graph.destroy()


def test_replica_operations_come_after_earlier_work_on_each_queue(multi, rng, affine, route):
    """Each queue scales its replica by its own factor in a graph submitted to it just before
    the all-reduce: the sum sees every scaled replica."""
    buffer, hosts = distinct_replicas(multi, rng)
    graphs = []
    for q in range(multi.queue_count):
        with multi:
            graph = vd.CommandGraph()
        affine(buffer, float(q + 2), 0.0, graph=graph)
        graph.submit(queue_index=q)
        graphs.append(graph)
    vd.all_reduce(buffer)
    factors = np.arange(2, multi.queue_count + 2, dtype=np.float32)[:, None]
    np.testing.assert_allclose(buffer.read(0), (hosts * factors).sum(axis=0), rtol=1e-5,
                               atol=1e-4)
    for graph in graphs:
        graph.destroy()


def test_replica_steps_recorded_in_a_graph_run_between_its_calls(multi, rng, route, affine):
    """A graph of calls on every replica, an all-reduce, more calls and a copy from the last
    replica: each submit (to every queue) runs them in that order, and a replay runs them
    again on the results."""
    buffer, hosts = distinct_replicas(multi, rng)
    with multi:
        graph = vd.CommandGraph()
    affine(buffer, 2.0, 1.0, graph=graph)
    vd.all_reduce(buffer, graph=graph)
    affine(buffer, 0.5, -1.0, graph=graph)
    vd.copy_replica(buffer, multi.queue_count - 1, [0], graph=graph)
    np.testing.assert_array_equal(buffer.read(), hosts)  # recorded, not run
    expected = hosts.astype(np.float64)
    for _ in range(2):
        graph.submit()
        expected = (expected * 2 + 1).sum(axis=0) * 0.5 - 1
        expected = np.broadcast_to(expected, hosts.shape)
        np.testing.assert_allclose(buffer.read(), expected, rtol=1e-5, atol=1e-5)
    graph.destroy()


@vd.shader("x.size")
def _scale(x: Buff[f32], k: Var[f32]):
    i = vc.global_invocation_id().x
    x[i] = x[i] * k


def test_replica_steps_with_per_instance_values(multi, rng):
    """With instance_count=2 each instance runs every segment and step in turn, and each call
    gets its own per-instance Var value (the push constants are split by segment)."""
    buffer, hosts = distinct_replicas(multi, rng)
    with multi:
        graph = vd.CommandGraph()
    _scale(buffer, graph.bind_var("first"), graph=graph)
    vd.all_reduce(buffer, graph=graph)
    _scale(buffer, graph.bind_var("second"), graph=graph)
    graph.set_var("first", [2.0, 5.0])
    graph.set_var("second", [3.0, 7.0])
    graph.submit(instance_count=2)
    expected = (hosts.astype(np.float64) * 2).sum(axis=0) * 3  # instance 0
    expected = (expected * 5) * multi.queue_count * 7  # instance 1: equal replicas summed
    np.testing.assert_allclose(buffer.read(), np.broadcast_to(expected, hosts.shape),
                               rtol=1e-5)
    graph.destroy()


def test_replica_step_errors(multi, rng, affine):
    buffer, _hosts = distinct_replicas(multi, rng)
    with multi:
        graph = vd.CommandGraph()
    affine(buffer, 2.0, 1.0, graph=graph)
    vd.all_reduce(buffer, graph=graph)
    with pytest.raises(ValueError, match=r"queue_index: a graph holding all_reduce runs on "
                                         r"every queue \(-2\), got 1"):
        graph.submit(queue_index=1)
    with pytest.raises(TypeError, match="graph must be a vd.CommandGraph, got str"):
        vd.copy_replica(buffer, graph="graph")
    other = vd.CommandGraph()  # of the test's default context
    with pytest.raises(ValueError, match="graph: it belongs to another context"):
        vd.all_reduce(buffer, graph=other)
    other.destroy()
    before = buffer.read()
    buffer.destroy()
    with multi:
        survivor = vd.Buffer(N, vd.float32)
    with pytest.raises(ValueError, match="destroyed"):
        graph.submit()
    graph.reset()  # the graph stays usable
    affine(survivor, 1.0, 1.0, graph=graph)
    vd.copy_replica(survivor, 0, graph=graph)
    survivor.write(before[0], 0)
    graph.submit()
    np.testing.assert_allclose(survivor.read(), np.broadcast_to(before[0] + 1, before.shape))
    graph.destroy()


def test_replica_operation_errors(multi, rng):
    buffer, _hosts = distinct_replicas(multi, rng)
    with pytest.raises(IndexError, match="src must be between 0 and"):
        vd.copy_replica(buffer, multi.queue_count)
    with pytest.raises(IndexError, match="dst must be between"):
        vd.copy_replica(buffer, 0, [-1])
    with pytest.raises(ValueError, match="dst holds the source replica 0"):
        vd.copy_replica(buffer, 0, [0, 1])
    with pytest.raises(ValueError, match="op must be one of 'sum', 'prod', 'min', 'max'"):
        vd.all_reduce(buffer, "mean")
    with pytest.raises(TypeError, match="buffer must be a vd.Buffer"):
        vd.all_reduce(np.zeros(3))
    with multi:
        complex_buffer = vd.Buffer(4, vd.complex64)
    with pytest.raises(ValueError, match="complex values have no order"):
        vd.all_reduce(complex_buffer, "max")
    buffer.destroy()
    with pytest.raises(ValueError, match="buffer was destroyed"):
        vd.copy_replica(buffer)


def test_single_queue_context_has_nothing_to_move(context, rng):
    values = rng.standard_normal(N).astype(np.float32)
    buffer = vd.asbuffer(values)
    vd.copy_replica(buffer)
    vd.all_reduce(buffer)
    np.testing.assert_array_equal(buffer.read(0), values)
