"""A batch split over every queue of a context (several GPUs, several queues per GPU): each
queue works on its own slice, held in its own replica of one buffer.

The batch is a long array of samples passed through a polynomial (Horner's rule, evaluated in
the shader: compute-heavy, so queues on different hardware run side by side). ``scatter``
writes slice ``q`` of the batch into replica ``q`` (the last slice padded with zeros), one
recorded graph submitted to all queues (the default) runs the kernel and a sum
(``vd.reduce``) on every replica at once, ``gather`` reads the replicas back in order and drops
the padding, and ``vd.all_reduce`` adds the per-queue sums into the sum of the whole batch.

    python examples/batch_over_queues.py                      # every GPU, several queues each
    python examples/batch_over_queues.py --samples 50000000
    python examples/batch_over_queues.py --queues 3 --cpu     # 3 queues on the CPU device

It prints the time of a pass on one queue and on all queues, and checks the results against
numpy (exit status 1 when they differ).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, f32

# p(x) = sum_k COEFFICIENTS[k] x^k, a Chebyshev-like polynomial bounded on [-1, 1].
COEFFICIENTS = tuple(float(c) for c in np.polynomial.chebyshev.cheb2poly([0.5] * 12) / 6)


@vd.shader("x.size")
def polynomial(x: Buff[f32]):
    i = vc.global_invocation_id().x
    value = vc.new_register(f32, x[i])
    result = vc.new_register(f32, COEFFICIENTS[-1])
    for coefficient in reversed(COEFFICIENTS[:-1]):
        result[:] = result * value + coefficient
    x[i] = result


@vd.reduce.map_reduce(vd.reduce.SubgroupAdd)
def total(x: Buff[f32]) -> f32:
    return x[vd.reduce.mapped_io_index()]


def scatter(buffer: vd.Buffer, batch: np.ndarray) -> None:
    """Slice q of ``batch`` into replica q; the last slice padded with zeros."""
    per_queue = buffer.shape[0]
    for queue in range(buffer.context.queue_count):
        part = batch[queue * per_queue:(queue + 1) * per_queue]
        padded = np.zeros(per_queue, np.float32)
        padded[:len(part)] = part
        buffer.write(padded, queue)


def gather(buffer: vd.Buffer, count: int) -> np.ndarray:
    """The replicas in queue order, as one array of the first ``count`` samples."""
    return buffer.read().reshape(-1)[:count]


def timed(graph: vd.CommandGraph, context: vd.Context, queue_index: int, load) -> float:
    """Seconds of one submit of ``graph`` (after ``load()``), the second of two: the first
    makes pipelines and uses each queue once."""
    seconds = 0.0
    for _ in range(2):
        load()
        context.wait_idle()  # a write returns with the tail of its staged copy still queued
        start = time.perf_counter()
        graph.submit(queue_index=queue_index)
        context.wait_idle()
        seconds = time.perf_counter() - start
    return seconds


def run(samples: int, context: vd.Context, seed: int = 0) -> dict:
    """The batch through the polynomial split over every queue (and, for the time, whole on
    queue 0): the result, its sum, both times and the batch."""
    batch = np.random.default_rng(seed).uniform(-1, 1, samples).astype(np.float32)
    queues = context.queue_count
    with context:
        split = vd.Buffer((-(-samples // queues),), vd.float32)
        whole = vd.Buffer((samples,), vd.float32)
        sums = vd.Buffer((1,), vd.float32)
        graph, single = vd.CommandGraph(), vd.CommandGraph()
    polynomial(split, graph=graph)
    # The reduction's element 0 is the sum of the queue's slice (the rest are its partials).
    vd.copy(sums, total(split, graph=graph), count=1, graph=graph)
    polynomial(whole, graph=single)
    total(whole, graph=single)
    one = timed(single, context, 0, lambda: whole.write(batch, 0))
    every = timed(graph, context, -2, lambda: scatter(split, batch))
    vd.all_reduce(sums)  # every replica now holds the sum over all queues
    padding = queues * split.shape[0] - samples  # zeros, each adding p(0) to the last sum
    result = {"result": gather(split, samples), "one queue": one, "all queues": every,
              "sum": float(sums.read(0)[0]) - padding * COEFFICIENTS[0], "batch": batch}
    graph.destroy()
    single.destroy()
    return result


def reference(batch: np.ndarray) -> np.ndarray:
    return np.polynomial.polynomial.polyval(batch.astype(np.float64), COEFFICIENTS)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=10_000_000,
                        help="batch length (default 10 000 000)")
    parser.add_argument("--queues", type=int, default=None,
                        help="queues per device (default: several where the device has them)")
    parser.add_argument("--cpu", action="store_true", help="use the CPU device (lavapipe)")
    args = parser.parse_args(argv)
    context = vd.make_context(multi_device=not args.cpu, multi_queue=args.queues is None,
                              queue_counts=args.queues, use_cpu=args.cpu)
    out = run(args.samples, context)
    names = ", ".join(info.device_name for info in context.device_infos)
    print(f"{context.queue_count} queues on {names}")
    print(f"{args.samples} samples: {out['one queue'] * 1e3:.2f} ms on queue 0 alone, "
          f"{out['all queues'] * 1e3:.2f} ms split over all queues "
          f"({out['one queue'] / out['all queues']:.2f}x)")
    expected = reference(out["batch"])
    error = float(np.abs(out["result"] - expected).max())
    sum_error = abs(out["sum"] - expected.sum()) / max(float(np.abs(expected).sum()), 1.0)
    print(f"largest difference from numpy: {error:.1e}; sum over all queues: {out['sum']:.6g} "
          f"(numpy {expected.sum():.6g})")
    return 0 if error < 1e-4 and sum_error < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
