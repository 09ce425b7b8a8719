"""Buffer.write_async / read_async: results equal the synchronous forms, per replica on
contexts of several queues while graphs run on other queues, argument errors raised at the
call, buffers destroyed and contexts closed with transfers in flight, and many threads issuing
background transfers at once."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import vkdispatch as vd

N = 4099


def test_write_async_then_read_async(context, rng):
    values = rng.standard_normal(N).astype(np.float32)
    buffer = vd.Buffer(N, vd.float32)
    pending = buffer.write_async(values)
    assert isinstance(pending, vd.PendingTransfer)
    assert pending.wait() is None and pending.done()
    read = buffer.read_async(0)
    np.testing.assert_array_equal(read.wait(), values)
    out = np.empty(N, np.float32)
    assert buffer.read_async(0, out=out).wait() is out
    np.testing.assert_array_equal(out, values)


def test_transfers_to_one_replica_while_another_queue_computes(multi, rng, affine):
    """Queue 0 runs a long dependent chain while replica 1 is uploaded and downloaded."""
    start, other = rng.standard_normal((2, N)).astype(np.float32)
    with multi:
        buffer = vd.Buffer(N, vd.float32)
        graph = vd.CommandGraph()
    buffer.write(start)
    for _ in range(40):
        affine(buffer, 1.01, 0.5, graph=graph)
    graph.submit(queue_index=0)
    buffer.write_async(other, 1).wait()
    np.testing.assert_array_equal(buffer.read_async(1).wait(), other)
    expected = start.astype(np.float64)
    for _ in range(40):
        expected = expected * np.float32(1.01) + np.float32(0.5)
    np.testing.assert_allclose(buffer.read_async(0).wait(), expected, rtol=1e-4)
    stacked = buffer.read_async().wait()
    assert stacked.shape == (multi.queue_count, N)
    graph.destroy()


def test_argument_errors_are_raised_by_the_call(context):
    buffer = vd.Buffer(8, vd.float32)
    with pytest.raises(ValueError, match="data has 7 values"):
        buffer.write_async(np.zeros(7, np.float32))
    with pytest.raises(IndexError, match="between 0 and"):
        buffer.write_async(np.zeros(8, np.float32), context.queue_count)
    with pytest.raises(IndexError, match="between 0 and"):
        buffer.read_async(context.queue_count)
    with pytest.raises(ValueError, match="out must have shape"):
        buffer.read_async(0, out=np.empty(9, np.float32))
    buffer.destroy()
    with pytest.raises(ValueError, match="destroyed"):
        buffer.read_async(0)


def test_destroy_waits_for_transfers_in_flight(context, rng):
    values = rng.standard_normal(1 << 20).astype(np.float32)
    buffers = [vd.Buffer(1 << 20, vd.float32) for _ in range(4)]
    pendings = [b.write_async(values) for b in buffers]
    reads = [b.read_async(0) for b in buffers]
    for buffer in buffers:
        buffer.destroy()  # waits for its transfers first
    assert all(p.done() for p in pendings + reads)
    for read in reads:
        assert read.wait().shape == values.shape  # whole, before or after the write


def test_closing_a_context_waits_for_its_transfers(context, rng):
    other = vd.create_context(device_ids=[context.device_ids[0]], queue_counts=2)
    values = rng.standard_normal(1 << 18).astype(np.float32)
    with other:
        buffer = vd.Buffer(1 << 18, vd.float32)
    pending = [buffer.write_async(values, q % 2) for q in range(6)]
    other.close()
    assert all(p.done() for p in pending)
    for p in pending:
        p.wait()


def test_many_threads_issue_background_transfers(context, rng):
    count, rounds = 8, 12
    buffers = [vd.Buffer(777, vd.int32) for _ in range(count)]
    seeds = rng.integers(0, 2**31, count)
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        local = np.random.default_rng(seeds[k])
        try:
            for _ in range(rounds):
                values = local.integers(-10**6, 10**6, 777).astype(np.int32)
                buffers[k].write_async(values).wait()
                got = buffers[k].read_async(0).wait()
                if not np.array_equal(got, values):
                    raise AssertionError(f"thread {k} read other values back")
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
