"""Bandwidth of a generated elementwise kernel (axpy: y = a*x + y) beside references.

For each size, a graph replays the kernel back to back (instance_count, at least --replays and
enough for 2^N floats in all, N = --total-log2, default 30) so the submission and the final wait
are amortised; bandwidth counts the bytes the kernel must move (read x, read y, write y). Columns:
the axpy kernel with one float and with one vec4 per invocation, a generated vec4 device copy
(dst = src, 2 arrays) and, where torch with CUDA is installed, torch's ``y.add_(x, alpha=a)``
two ways: the same number of calls captured once in a CUDA graph and replayed by one
``graph.replay()`` + synchronize (like for like: one submission of many kernels, as ours), and
an eager Python loop of as many launches + synchronize (which at small sizes mostly measures
torch's launch overhead). The headline ratio is vec4 axpy / torch graph.

Each figure is the median of --repeats measurements taken in turn with the others (hosts drift
within a minute). After the timed runs every result is checked against numpy: the inputs are
small integers (a = 0.5, x even) so y after k applications of axpy, y0 + k*a*x, is exact in
float32 while it stays below 2^24 (and is compared within k float32 roundings beyond that).

    python benchmarks/elementwise.py [--sizes 20 22 24 26] [--replays 20] [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32, v4

from graph_timing import gpu_seconds  # benchmarks/graph_timing.py
from torch_reference import torch_cuda  # benchmarks/torch_reference.py

ALPHA = 0.5
SUBMITS_PER_MEASURE = 2  # gpu_seconds: a warm-up submission, then the timed one
TORCH_WARMUP_CALLS = 3   # on a side stream before the CUDA graph capture


@vd.shader("y.size", local_size=(256, 1, 1))
def axpy(y: Buff[f32], x: Buff[f32], a: Const[f32]):
    i = vc.global_invocation_id().x
    y[i] = x[i] * a + y[i]


@vd.shader("y.size", local_size=(256, 1, 1))
def axpy_vec4(y: Buff[v4], x: Buff[v4], a: Const[f32]):
    i = vc.global_invocation_id().x
    y[i] = x[i] * a + y[i]


@vd.shader("dst.size", local_size=(256, 1, 1))
def copy_vec4(dst: Buff[v4], src: Buff[v4]):
    i = vc.global_invocation_id().x
    dst[i] = src[i]


def check_axpy(name: str, got: np.ndarray, y0: np.ndarray, x: np.ndarray, runs: int) -> None:
    """Fails unless ``got`` is y0 after ``runs`` applications of y = ALPHA*x + y: exactly while
    every partial sum is an integer below 2^24 (as with this script's inputs), else within one
    float32 rounding per application."""
    step = ALPHA * x.astype(np.float64)
    expected = y0.astype(np.float64) + runs * step
    bound = np.abs(y0.astype(np.float64)) + runs * np.abs(step)
    integral = np.all(step == np.round(step)) and np.all(y0 == np.round(y0))
    tolerance = 0.0 if integral and bound.max() < 2**24 else runs * 2.0**-23 * bound
    error = np.abs(np.asarray(got, np.float64).reshape(-1) - expected)
    bad = np.flatnonzero(error > tolerance)
    if bad.size:
        i = bad[0]
        raise AssertionError(f"{name}: {bad.size} of {y0.size} values wrong after {runs} "
                             f"applications of axpy, e.g. [{i}] = {got.reshape(-1)[i]}, "
                             f"expected {expected[i]}")


def cell(value, width: int, digits: int) -> str:
    return f"{value:{width}.{digits}f}" if value is not None else f"{'-':>{width}}"


class TorchAxpy:
    """torch's ``y.add_(x, alpha=ALPHA)``, ``replays`` calls per measurement: captured once in
    a CUDA graph (its own y) and as an eager loop of launches (another y); x is shared."""

    def __init__(self, torch, host_x: np.ndarray, host_y: np.ndarray, replays: int):
        self.torch, self.replays = torch, replays
        self.x = torch.from_numpy(host_x).cuda()
        self.y_eager = torch.from_numpy(host_y).cuda()
        self.y_graph = self.y_eager.clone()
        self.eager_runs = 0
        # Warm up on a side stream before capturing, as torch's CUDA graph documentation asks.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(TORCH_WARMUP_CALLS):
                self.y_graph.add_(self.x, alpha=ALPHA)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):  # records the calls, runs none of them
            for _ in range(replays):
                self.y_graph.add_(self.x, alpha=ALPHA)
        torch.cuda.synchronize()
        self.graph_runs = TORCH_WARMUP_CALLS

    def graph_seconds(self) -> float:
        """Seconds per call: one replay of the captured graph + synchronize (after an untimed
        replay)."""
        self.graph.replay()
        self.torch.cuda.synchronize()
        start = time.perf_counter()
        self.graph.replay()
        self.torch.cuda.synchronize()
        self.graph_runs += 2 * self.replays
        return (time.perf_counter() - start) / self.replays

    def eager_seconds(self) -> float:
        """Seconds per call: a Python loop of ``replays`` launches + synchronize (after one
        untimed call)."""
        self.y_eager.add_(self.x, alpha=ALPHA)
        self.torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(self.replays):
            self.y_eager.add_(self.x, alpha=ALPHA)
        self.torch.cuda.synchronize()
        self.eager_runs += 1 + self.replays
        return (time.perf_counter() - start) / self.replays

    def check(self, host_x: np.ndarray, host_y: np.ndarray) -> None:
        check_axpy("torch graph", self.y_graph.cpu().numpy(), host_y, host_x, self.graph_runs)
        check_axpy("torch eager", self.y_eager.cpu().numpy(), host_y, host_x, self.eager_runs)

    def close(self) -> None:
        del self.graph, self.x, self.y_eager, self.y_graph
        self.torch.cuda.empty_cache()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 22, 24, 26],
                        help="log2 of the number of floats")
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--total-log2", type=int, default=30,
                        help="replay each kernel for at least 2^N floats per measurement")
    args = parser.parse_args()
    torch = torch_cuda()
    print(f"device: {vd.get_context().device_infos[0].device_name}")
    header = (f"{'floats':>10} | {'axpy GB/s':>9} | {'axpy vec4':>9} | {'copy vec4':>9} | "
              f"{'torch graph':>11} | {'torch eager':>11} | {'vec4/graph':>10} | "
              f"{'vec4/eager':>10} | {'vec4/copy':>9}")
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    max_floats = vd.get_context().max_workgroup_count[0] * 256
    for log2 in args.sizes:
        n = 1 << log2
        if n > max_floats:
            print(f"{n:>10} | skipped: needs more than {max_floats // 256} workgroups of 256 "
                  "(a 1-D launch limit of this device)")
            continue
        host_x = (2 * rng.integers(-2, 3, n)).astype(np.float32)
        host_y = rng.integers(-8, 9, n).astype(np.float32)
        x, y = vd.asbuffer(host_x), vd.asbuffer(host_y)
        axpy(y, x, ALPHA)
        check_axpy("axpy (immediate call)", y.read(0), host_y, host_x, 1)
        x4, y4, c4 = (vd.Buffer((n // 4,), vd.vec4) for _ in range(3))
        x4.write(host_x)
        y4.write(host_y)
        replays = max(args.replays, (1 << args.total_log2) // n)
        bytes_axpy = 3 * 4 * n
        measures = {
            "scalar": (bytes_axpy, lambda: gpu_seconds(lambda g: axpy(y, x, ALPHA, graph=g),
                                                       replays)),
            "wide": (bytes_axpy, lambda: gpu_seconds(
                lambda g: axpy_vec4(y4, x4, ALPHA, graph=g), replays)),
            "copy": (2 * 4 * n, lambda: gpu_seconds(lambda g: copy_vec4(c4, x4, graph=g),
                                                    replays)),
        }
        reference = TorchAxpy(torch, host_x, host_y, replays) if torch is not None else None
        if reference is not None:
            measures["torch graph"] = (bytes_axpy, reference.graph_seconds)
            measures["torch eager"] = (bytes_axpy, reference.eager_seconds)
        samples = {name: [] for name in measures}
        for _ in range(args.repeats):
            for name, (_bytes, measure) in measures.items():
                samples[name].append(measure())

        runs = SUBMITS_PER_MEASURE * replays * args.repeats
        check_axpy("axpy", y.read(0), host_y, host_x, 1 + runs)
        check_axpy("axpy vec4", y4.read(0), host_y, host_x, runs)
        np.testing.assert_array_equal(c4.read(0).reshape(-1), host_x, err_msg="copy vec4")
        if reference is not None:
            reference.check(host_x, host_y)
            reference.close()

        gbps = {name: measures[name][0] / statistics.median(values) / 1e9
                for name, values in samples.items()}
        wide, graph, eager = gbps["wide"], gbps.get("torch graph"), gbps.get("torch eager")
        print(f"{n:>10} | {gbps['scalar']:9.1f} | {wide:9.1f} | {gbps['copy']:9.1f} | "
              f"{cell(graph, 11, 1)} | {cell(eager, 11, 1)} | "
              f"{cell(graph and wide / graph, 10, 2)} | {cell(eager and wide / eager, 10, 2)} | "
              f"{wide / gbps['copy']:9.2f}")
        for buffer in (x, y, x4, y4, c4):
            buffer.destroy()
    print("\nGB/s count the bytes each kernel must move. vec4/graph (the headline, like for "
          "like: one submission of many kernels each) and vec4/eager = vkdispatch's vec4 axpy / "
          "torch's, above 1: vkdispatch is faster; vec4/copy = vec4 axpy / our vec4 copy.")


if __name__ == "__main__":
    main()
