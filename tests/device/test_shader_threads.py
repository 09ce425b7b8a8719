"""Device tests of shaders used from several Python threads: each thread traces its own
shader and dispatches it while the other does the same; the global graph is per thread."""
from __future__ import annotations

import threading

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i32, u32


def _run_in_threads(*workers, timeout: float = 60) -> None:
    """Runs each worker in its own thread and re-raises the first failure here."""
    errors: list[BaseException] = []

    def run(worker):
        try:
            worker()
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"
    if errors:
        raise errors[0]


def test_two_threads_trace_and_dispatch_their_own_shaders_concurrently(context, rng):
    n, rounds = 3000, 20
    floats = rng.standard_normal(n).astype(np.float32)
    ints = rng.integers(-1000, 1000, n, dtype=np.int32)
    start = threading.Barrier(2, timeout=30)   # both trace first, then dispatch at once
    results: dict[str, np.ndarray] = {}

    def float_worker():
        @vd.shader("x.size")
        def scale(x: Buff[f32], k: Const[f32]):
            i = vc.global_invocation_id().x
            x[i] = x[i] * k + 1.0

        x = vd.asbuffer(floats)
        start.wait()
        for _ in range(rounds):
            scale(x, 0.5)
        results["float"] = x.read(0)

    def int_worker():
        @vd.shader("x.size")
        def bump(x: Buff[i32], k: Const[i32]):
            i = vc.global_invocation_id().x
            x[i] = x[i] * 3 + k

        x = vd.asbuffer(ints)
        start.wait()
        for _ in range(rounds):
            bump(x, -7)
        results["int"] = x.read(0)

    _run_in_threads(float_worker, int_worker)
    expected_float, expected_int = floats.copy(), ints.copy()
    with np.errstate(over="ignore"):
        for _ in range(rounds):
            expected_float = expected_float * np.float32(0.5) + np.float32(1.0)
            expected_int = expected_int * np.int32(3) + np.int32(-7)
    np.testing.assert_allclose(results["float"], expected_float, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(results["int"], expected_int)


def test_two_threads_share_one_shader_with_their_own_graphs(context, rng):
    @vd.shader("x.size", local_size=(64, 1, 1))
    def add(x: Buff[u32], k: Const[u32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] + k

    starts = [rng.integers(0, 10 ** 6, 1000, dtype=np.uint32) for _ in range(2)]
    results: dict[int, np.ndarray] = {}
    start = threading.Barrier(2, timeout=30)

    def worker(index: int):
        def body():
            x = vd.asbuffer(starts[index])
            graph = vd.CommandGraph()
            for k in range(1, 11):
                add(x, k * (index + 1), graph=graph)
            start.wait()
            for _ in range(5):
                graph.submit()
            results[index] = x.read(0)
            graph.destroy()
        return body

    _run_in_threads(worker(0), worker(1))
    for index in range(2):
        np.testing.assert_array_equal(results[index], starts[index] + 5 * 55 * (index + 1))


def test_global_graph_is_per_thread(context, rng):
    @vd.shader("x.size", local_size=(64, 1, 1))
    def increment(x: Buff[u32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] + 1

    mine = rng.integers(0, 10 ** 6, 500, dtype=np.uint32)
    theirs = rng.integers(0, 10 ** 6, 500, dtype=np.uint32)
    x, y = vd.asbuffer(mine), vd.asbuffer(theirs)
    graph = vd.CommandGraph()
    seen: dict[str, object] = {}

    def other_thread():
        seen["graph"] = vd.global_graph()
        increment(y)                   # this thread has no global graph: runs at once
        seen["y"] = y.read(0)

    vd.set_global_graph(graph)
    try:
        _run_in_threads(other_thread)
        increment(x)                   # recorded into this thread's global graph
    finally:
        vd.set_global_graph(None)
    assert seen["graph"] is not graph
    np.testing.assert_array_equal(seen["y"], theirs + 1)
    np.testing.assert_array_equal(x.read(0), mine)
    graph.submit()
    np.testing.assert_array_equal(x.read(0), mine + 1)
    graph.destroy()
