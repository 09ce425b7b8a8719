"""Bandwidth of vd.reduce beside torch, cupy and numpy: float32 sums and sums of squares.

For each size 2^k (--sizes, default 10..28 on a GPU, 10..24 on a CPU device) a float32
buffer is summed (``map_reduce(SubgroupAdd)`` of the element) and its squares are summed
(the mapped reduction), each recorded once in a ``vd.CommandGraph`` (one or two dispatches) and
replayed with ``instance_count`` so the submission is amortised; GB/s = bytes read / time.
References measured in the same run, in turn with ours (medians of --repeats):

* torch: ``x.sum()`` and ``torch.linalg.vector_norm(x) ** 2`` captured in a CUDA graph (like
  for like: one submission of many reductions); ours/torch above 1: ours is faster.
* cupy: ``x.sum()`` and ``cupy.linalg.norm(x) ** 2``, an eager loop + synchronize.
* numpy: ``x.sum()``, ``np.dot(x, x)`` on the host, where neither torch nor cupy is usable.

``2 dispatches`` is the time of two dependent empty-ish dispatches in one graph (the floor of
a two-stage reduction at small sizes; ours folds up to 256 groups' partials in the first).
Every result is checked against a float64 numpy sum.

    python benchmarks/reduce.py [--sizes 10 16 22 28] [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics

import numpy as np

import vkdispatch as vd
from vkdispatch.base.device_info import is_cpu_device
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, f32

from graph_timing import gpu_seconds, timed_seconds  # benchmarks/graph_timing.py
from torch_reference import torch_cuda, torch_graph_seconds  # benchmarks/torch_reference.py



@vd.reduce.map_reduce(vd.reduce.SubgroupAdd)
def total(x: Buff[f32]) -> f32:
    return x[vd.reduce.mapped_io_index()]


@vd.reduce.map_reduce(vd.reduce.SubgroupAdd)
def squares(x: Buff[f32]) -> f32:
    i = vd.reduce.mapped_io_index()
    return x[i] * x[i]


@vd.shader(1, local_size=(1, 1, 1))
def touch(y: Buff[f32]):
    y[0] = y[0] + 1.0


def eager_seconds(call, sync, replays: int) -> float:
    """Seconds per call of ``replays`` calls and one ``sync()``, after one untimed call."""
    def run():
        for _ in range(replays):
            call()
        sync()
    return timed_seconds(run, warm_up=lambda: (call(), sync())) / replays


def cupy_cuda():
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        return cupy
    except Exception:  # noqa: BLE001 - no cupy or no CUDA: no column
        return None


def measure(k: int, args, torch, cupy) -> dict:
    n = 1 << k
    rng = np.random.default_rng(k)
    host = rng.random(n, dtype=np.float32)
    buffer = vd.asbuffer(host)
    replays = max(args.replays, (1 << 28) // n // 4)
    outs = {"sum": total(buffer), "squares": squares(buffer)}
    timers = {
        "sum": lambda: gpu_seconds(lambda g: total(buffer, out=outs["sum"], graph=g),
                                     replays),
        "squares": lambda: gpu_seconds(
            lambda g: squares(buffer, out=outs["squares"], graph=g), replays),
        "2 dispatches": lambda: gpu_seconds(
            lambda g: (touch(buffer, graph=g), touch(buffer, graph=g)), replays)}
    if torch is not None:
        x = torch.from_numpy(host).cuda()
        timers["torch sum"] = lambda: torch_graph_seconds(torch, lambda: x.sum(), replays)
        timers["torch squares"] = lambda: torch_graph_seconds(
            torch, lambda: torch.linalg.vector_norm(x) ** 2, replays)
    if cupy is not None:
        c = cupy.asarray(host)
        sync = cupy.cuda.Device().synchronize
        timers["cupy sum"] = lambda: eager_seconds(lambda: c.sum(), sync, replays)
        timers["cupy squares"] = lambda: eager_seconds(
            lambda: cupy.linalg.norm(c) ** 2, sync, replays)
    if torch is None and cupy is None:
        timers["numpy sum"] = lambda: eager_seconds(lambda: host.sum(), lambda: None, 3)
        timers["numpy squares"] = lambda: eager_seconds(lambda: np.dot(host, host),
                                                        lambda: None, 3)
    samples = {name: [] for name in timers}
    for _ in range(args.repeats):
        for name, timer in timers.items():
            samples[name].append(timer())
    row = {name: statistics.median(values) for name, values in samples.items()}
    buffer.write(host)
    got_sum, got_squares = total(buffer).read(0)[0], squares(buffer).read(0)[0]
    exact = host.astype(np.float64)
    row["error"] = max(abs(got_sum - exact.sum()) / exact.sum(),
                       abs(got_squares - (exact ** 2).sum()) / (exact ** 2).sum())
    row["bytes"] = host.nbytes
    return row


def main() -> None:
    torch, cupy = torch_cuda(), cupy_cuda()
    cpu = is_cpu_device(vd.get_context().device_infos[0])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=list(range(10, 25 if cpu else 29, 2)))
    parser.add_argument("--repeats", type=int, default=3 if cpu else 5)
    parser.add_argument("--replays", type=int, default=3 if cpu else 20)
    args = parser.parse_args()
    print(f"device: {vd.get_context().device_infos[0].device_name}")
    refs = [name for name, lib in (("torch", torch), ("cupy", cupy)) if lib is not None] \
        or ["numpy"]
    header = ["n", "sum GB/s", "squares GB/s", "2 dispatches us", "sum us"]
    for ref in refs:
        header += [f"{ref} sum GB/s", f"sum/{ref}", f"{ref} sq GB/s", f"squares/{ref}"]
    header.append("error")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("--:" for _ in header) + "|")
    for k in args.sizes:
        row = measure(k, args, torch, cupy)
        gbs = lambda name: row["bytes"] / row[name] / 1e9  # noqa: E731
        cells = [f"2^{k}", f"{gbs('sum'):.1f}", f"{gbs('squares'):.1f}",
                 f"{row['2 dispatches'] * 1e6:.1f}", f"{row['sum'] * 1e6:.1f}"]
        for ref in refs:
            cells += [f"{gbs(ref + ' sum'):.1f}", f"{row[ref + ' sum'] / row['sum']:.2f}",
                      f"{gbs(ref + ' squares'):.1f}",
                      f"{row[ref + ' squares'] / row['squares']:.2f}"]
        cells.append(f"{row['error']:.1e}")
        print("| " + " | ".join(cells) + " |", flush=True)
    print("\nGB/s = bytes read / time. sum/<ref>, squares/<ref>: the reference's time / ours "
          "(above 1, ours is faster). 2 dispatches: two dependent tiny dispatches in one graph.")


if __name__ == "__main__":
    main()
