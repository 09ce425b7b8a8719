"""Contexts with several queues, on any device: where the device has fewer hardware queues than
asked (lavapipe has one), the queues share them and still keep their own replicas and
timelines. Per-replica writes and reads, read() stacking, shader calls and graphs on every
queue, on one queue and on the least busy one, vd.copy per replica, per-queue waits."""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd

N = 700


def replicas(multi, rng):
    """A buffer of ``multi`` whose replicas hold different random data, and that data."""
    hosts = rng.standard_normal((multi.queue_count, N)).astype(np.float32)
    with multi:
        buffer = vd.Buffer(N, vd.float32)
    for q, host in enumerate(hosts):
        buffer.write(host, index=q)
    return buffer, hosts


def test_multi_queue_context_has_the_queues_asked_for(multi):
    assert multi.queue_count == sum(map(len, multi.queue_families)) >= 2


def test_multi_queue_write_each_replica_and_read_them_back_stacked(multi, rng):
    buffer, hosts = replicas(multi, rng)
    for q in range(multi.queue_count):
        np.testing.assert_array_equal(buffer.read(q), hosts[q])
    stacked = buffer.read()
    assert stacked.shape == (multi.queue_count, N)
    np.testing.assert_array_equal(stacked, hosts)
    broadcast = rng.standard_normal(N).astype(np.float32)
    buffer.write(broadcast)
    np.testing.assert_array_equal(buffer.read(), np.broadcast_to(broadcast, hosts.shape))


def test_multi_queue_immediate_call_runs_on_every_replica(multi, rng, affine):
    buffer, hosts = replicas(multi, rng)
    with multi:
        affine(buffer, 1.5, -2.0)
    np.testing.assert_allclose(buffer.read(), hosts * np.float32(1.5) - 2, rtol=1e-6, atol=1e-6)


def test_multi_queue_graph_on_one_queue_changes_only_that_replica(multi, rng, affine):
    buffer, hosts = replicas(multi, rng)
    with multi:
        graph = vd.CommandGraph()
    affine(buffer, 3.0, 1.0, graph=graph)
    expected = hosts.copy()
    for q in reversed(range(multi.queue_count)):
        graph.submit(queue_index=q)
        expected[q] = expected[q] * np.float32(3) + 1
        multi.wait_idle(q)
        np.testing.assert_allclose(buffer.read(), expected, rtol=1e-6, atol=1e-5)
    graph.destroy()


def test_multi_queue_submit_any_changes_exactly_one_replica(multi, rng, affine):
    buffer, hosts = replicas(multi, rng)
    with multi:
        graph = vd.CommandGraph()
    affine(buffer, -1.0, 0.5, graph=graph)
    graph.submit_any()
    vd.queue_wait_idle(context=multi)
    result = buffer.read()
    changed = [q for q in range(multi.queue_count)
               if np.allclose(result[q], -hosts[q] + 0.5, rtol=1e-6, atol=1e-6)]
    unchanged = [q for q in range(multi.queue_count) if np.array_equal(result[q], hosts[q])]
    assert len(changed) == 1 and len(unchanged) == multi.queue_count - 1
    graph.destroy()


def test_multi_queue_copy_works_replica_by_replica(multi, rng):
    src, hosts = replicas(multi, rng)
    with multi:
        dst = vd.Buffer(N, vd.float32)
        dst.write(np.zeros(N, np.float32))
        vd.copy(dst, src, dst_offset=10, src_offset=100, count=300)
    expected = np.zeros((multi.queue_count, N), np.float32)
    expected[:, 10:310] = hosts[:, 100:400]
    np.testing.assert_array_equal(dst.read(), expected)


def test_multi_queue_signal_of_each_queue_reports_its_own_work(multi, rng, affine):
    buffer, hosts = replicas(multi, rng)
    with multi:
        graph = vd.CommandGraph()
    affine(buffer, 2.0, 0.0, graph=graph)
    graph.submit(queue_index=multi.queue_count - 1)
    last = multi.signal(multi.queue_count - 1)
    assert last.value > 0
    last.wait()
    assert last.try_wait()
    np.testing.assert_allclose(buffer.read(multi.queue_count - 1), hosts[-1] * 2, rtol=1e-6)
    np.testing.assert_array_equal(buffer.read(0), hosts[0])
    graph.destroy()
