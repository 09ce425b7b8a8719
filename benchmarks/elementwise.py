"""Bandwidth of a generated elementwise kernel (axpy: y = a*x + y) beside references.

For each size, a graph replays the kernel back to back (instance_count, at least --replays and
enough for about 2^30 floats in all) so the submission and the final wait are amortised;
bandwidth counts the bytes the kernel must move (read x, read y, write y). Printed
beside a generated device copy (dst = src, 2 arrays) and, where torch with CUDA is installed,
torch's ``y.add_(x, alpha=a)`` measured in the same run. Each figure is the median of
--repeats measurements taken in turn with the others (hosts drift within a minute).

    python benchmarks/elementwise.py [--sizes 20 24 26 28] [--replays 20] [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32, v4


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


def gpu_seconds(record, replays: int) -> float:
    """Seconds per kernel: one graph submission replaying it ``replays`` times."""
    graph = vd.CommandGraph()
    record(graph)
    graph.submit(instance_count=replays)  # warm-up: the timed submit reuses this recording
    vd.queue_wait_idle()
    start = time.perf_counter()
    graph.submit(instance_count=replays)
    vd.queue_wait_idle()
    seconds = (time.perf_counter() - start) / replays
    graph.destroy()
    return seconds


def torch_axpy_seconds(n: int, replays: int):
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    y.add_(x, alpha=0.5)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(replays):
        y.add_(x, alpha=0.5)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / replays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 22, 24, 26],
                        help="log2 of the number of floats")
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"device: {vd.get_context().device_infos[0].device_name}")
    header = (f"{'floats':>10} | {'axpy GB/s':>9} | {'axpy vec4':>9} | {'copy vec4':>9} | "
              f"{'torch axpy':>10} | {'vec4/torch':>10} | {'vec4/copy':>9}")
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
        host_x = rng.standard_normal(n).astype(np.float32)
        host_y = rng.standard_normal(n).astype(np.float32)
        x, y = vd.asbuffer(host_x), vd.asbuffer(host_y)
        axpy(y, x, 0.5)
        np.testing.assert_allclose(y.read(0), host_x * 0.5 + host_y, rtol=1e-5, atol=1e-6)
        x4, y4 = vd.Buffer((n // 4,), vd.vec4), vd.Buffer((n // 4,), vd.vec4)
        x4.write(host_x)
        y4.write(host_y)
        bytes_axpy = 3 * 4 * n
        replays = max(args.replays, (1 << 30) // n)
        measures = {
            "scalar": (bytes_axpy, lambda: gpu_seconds(lambda g: axpy(y, x, 0.5, graph=g),
                                                       replays)),
            "wide": (bytes_axpy, lambda: gpu_seconds(lambda g: axpy_vec4(y4, x4, 0.5, graph=g),
                                                     replays)),
            "copy": (2 * 4 * n, lambda: gpu_seconds(lambda g: copy_vec4(y4, x4, graph=g),
                                                    replays)),
            "torch": (bytes_axpy, lambda: torch_axpy_seconds(n, replays)),
        }
        samples = {name: [] for name in measures}
        for _ in range(args.repeats):
            for name, (_bytes, measure) in measures.items():
                samples[name].append(measure())
        rate = {name: measures[name][0] / statistics.median(values)
                for name, values in samples.items() if None not in values}
        scalar, wide, copy = rate["scalar"], rate["wide"], rate["copy"]
        torch_rate = rate.get("torch")
        torch_text = f"{torch_rate / 1e9:10.1f}" if torch_rate else f"{'-':>10}"
        ratio = f"{wide / torch_rate:10.2f}" if torch_rate else f"{'-':>10}"
        print(f"{n:>10} | {scalar / 1e9:9.1f} | {wide / 1e9:9.1f} | {copy / 1e9:9.1f} | "
              f"{torch_text} | {ratio} | {wide / copy:9.2f}")
        for buffer in (x, y, x4, y4):
            buffer.destroy()


if __name__ == "__main__":
    main()
