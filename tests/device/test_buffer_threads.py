"""Device tests of Buffer.write and Buffer.read called from several Python threads.

A read racing writes of the same replica returns one whole write (or the data before it), never
a mix of two; writes racing each other leave one whole write; a read that happens after a write
or a submission in another thread (ordered by a ``threading.Event``) sees it. The sizes cover
both ways a transfer copies on host-visible memory: one ``memcpy`` below 1 MiB, the native
copier's threads above.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import vkdispatch as vd

SIZES = [1 << 16, 1 << 19]   # uint32 elements: 256 KiB and 2 MiB per replica
READS = 300                  # reads racing the writers, per test
TIMEOUT = 120                # seconds a worker may take before the test calls it hung


def _patterns(rng: np.random.Generator, n: int, count: int) -> list[np.ndarray]:
    """`count` random uint32 arrays of `n` values; any two differ almost everywhere."""
    return [rng.integers(0, 2**32, n, dtype=np.uint32) for _ in range(count)]


def _matching(array: np.ndarray, patterns: list[np.ndarray]) -> int | None:
    """The index of the pattern `array` equals, or None when it is a mix of several."""
    for index, pattern in enumerate(patterns):
        if np.array_equal(array, pattern):
            return index
    return None


def _read_while(buffer: vd.Buffer, patterns: list[np.ndarray], reads: int) -> list[int | None]:
    """Reads every replica in turn `reads` times; what each read matched."""
    queues = buffer.context.queue_count
    return [_matching(buffer.read(k % queues), patterns) for k in range(reads)]


@pytest.mark.parametrize("writers", [1, 2])
@pytest.mark.parametrize("n", SIZES)
def test_buffer_reads_racing_writes_of_one_replica_never_mix_two_writes(context, rng, n,
                                                                         writers):
    """Each writer thread writes its own two patterns in turn until the reads are done; with two
    writers, the writes also race each other and the data left must be one whole write."""
    patterns = _patterns(rng, n, 1 + 2 * writers)    # the initial data, then two per writer
    buffer = vd.Buffer(n, vd.uint32)
    buffer.write(patterns[0])
    start = threading.Barrier(1 + writers, timeout=TIMEOUT)
    stop = threading.Event()

    def writer(own: list[np.ndarray]) -> int:
        start.wait()
        writes = 0
        while writes < 2 or not stop.is_set():
            buffer.write(own[writes % 2])
            writes += 1
        return writes

    with ThreadPoolExecutor(writers) as pool:
        futures = [pool.submit(writer, patterns[1 + 2 * w:3 + 2 * w]) for w in range(writers)]
        start.wait()
        try:
            seen = _read_while(buffer, patterns, READS)
        finally:
            stop.set()
        for future in futures:
            future.result(timeout=TIMEOUT)
    assert seen.count(None) == 0, f"{seen.count(None)} of {READS} reads mixed two writes"
    for index in range(context.queue_count):
        assert _matching(buffer.read(index), patterns[1:]) is not None, \
            f"replica {index} holds no whole write"


def test_buffer_read_after_another_threads_write_sees_it(context, rng):
    n = 1 << 16
    buffer = vd.Buffer(n, vd.uint32)
    buffer.write(np.zeros(n, np.uint32))
    for round_, data in enumerate(_patterns(rng, n, 20)):
        written = threading.Event()

        def write(data=data, written=written) -> None:
            buffer.write(data)
            written.set()

        def read(written=written, index=round_ % context.queue_count) -> np.ndarray:
            assert written.wait(timeout=TIMEOUT)
            return buffer.read(index)

        with ThreadPoolExecutor(2) as pool:
            result = pool.submit(read)     # waits for the write first
            pool.submit(write).result(timeout=TIMEOUT)
            np.testing.assert_array_equal(result.result(timeout=TIMEOUT), data)


def test_buffer_read_after_another_threads_graph_submission_sees_its_result(context, rng,
                                                                           affine):
    n, steps = 1 << 18, 30
    start = rng.integers(0, 1000, n).astype(np.float32)
    buffer = vd.Buffer(n, vd.float32)
    submitted = threading.Event()

    def submit() -> None:
        buffer.write(start)
        graph = vd.CommandGraph()
        for _ in range(steps):      # long enough to be still running when the reader starts
            affine(buffer, 1.0, 1.0, graph=graph)
        graph.submit()
        submitted.set()
        graph.destroy()

    def read() -> np.ndarray:
        assert submitted.wait(timeout=TIMEOUT)
        return buffer.read()

    with ThreadPoolExecutor(2) as pool:
        result = pool.submit(read)
        pool.submit(submit).result(timeout=TIMEOUT)
        replicas = result.result(timeout=TIMEOUT)
    for replica in replicas:
        np.testing.assert_array_equal(replica, start + steps)
