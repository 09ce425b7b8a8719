"""A soak of the multi-queue machinery (slow: `make test-slow`; VKDISPATCH_SOAK_SECONDS sets the
length, 600 by default): threads submit graphs to random queues, write,
read and transfer in the background, copy and all-reduce replicas, and free buffers with work
in flight, in random order, for the whole time; every value read is checked against a host
model of what each replica must hold."""
from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

import vkdispatch as vd

SECONDS = float(os.environ.get("VKDISPATCH_SOAK_SECONDS", "600"))
N = 2048


@pytest.mark.slow
def test_soak_threads_queues_and_replicas(context, affine):
    ctx = vd.create_context(device_ids=[context.device_ids[0]], queue_counts=3)
    errors: list[BaseException] = []
    deadline = time.monotonic() + SECONDS

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        rounds = 0
        try:
            while time.monotonic() < deadline:
                with ctx:
                    buffer = vd.Buffer(N, vd.float32)
                    graph = vd.CommandGraph()
                model = rng.uniform(-1, 1, (ctx.queue_count, N)).astype(np.float32)
                for q in range(ctx.queue_count):
                    buffer.write_async(model[q], q).wait() if rng.random() < 0.5 else \
                        buffer.write(model[q], q)
                k, b = (float(v) for v in rng.uniform(-1.5, 1.5, 2))
                affine(buffer, k, b, graph=graph)
                for _ in range(int(rng.integers(1, 6))):
                    q = int(rng.integers(0, ctx.queue_count))
                    graph.submit(queue_index=q)
                    model[q] = model[q] * np.float32(k) + np.float32(b)
                action = rng.integers(0, 3)
                if action == 0:
                    src = int(rng.integers(0, ctx.queue_count))
                    vd.copy_replica(buffer, src)
                    model[:] = model[src]
                elif action == 1:
                    vd.all_reduce(buffer)
                    model[:] = model.sum(axis=0, dtype=np.float32)
                got = buffer.read_async().wait()
                np.testing.assert_allclose(got, model, rtol=1e-4, atol=1e-4)
                graph.submit()  # work in flight when the buffer goes
                graph.destroy()
                buffer.destroy()
                rounds += 1
            assert rounds > 0
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ctx.close()
    assert not errors, errors[0]
