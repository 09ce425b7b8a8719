"""Device-to-device copies with vd.copy beside references.

For each size, a graph holding one vd.copy (on a GPU: the copy kernel) is replayed back to back
(instance_count, enough for about 2^30 floats in all) so submission and the final wait are
amortised; bandwidth counts the bytes moved (read src, write dst). Printed beside the same
copy as a vkCmdCopyBuffer command (``BufferCopy``, what vd.copy uses on CPU devices) and
torch's ``dst.copy_(src)`` where torch with CUDA is installed, measured in the same run; and the
latency of one immediate vd.copy of 256 floats + wait beside torch's copy_ + synchronize.
Figures are medians of --repeats measurements taken in turn.

    python benchmarks/buffer_copy.py [--sizes 20 24 26 28] [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import vkdispatch as vd
from vkdispatch.base.commands import BufferCopy


def copy_seconds(dst, src, replays: int, command: bool = False) -> float:
    graph = vd.CommandGraph()
    if command:
        graph.record_command(BufferCopy(dst, src, src.mem_size))
    else:
        vd.copy(dst, src, graph=graph)
    graph.submit(instance_count=replays)  # warm-up: the timed submit reuses this recording
    vd.queue_wait_idle()
    start = time.perf_counter()
    graph.submit(instance_count=replays)
    vd.queue_wait_idle()
    graph.destroy()
    return (time.perf_counter() - start) / replays


def immediate_us(dst, src, iterations: int) -> float:
    vd.copy(dst, src)
    vd.queue_wait_idle()
    start = time.perf_counter()
    for _ in range(iterations):
        vd.copy(dst, src)
        vd.queue_wait_idle()
    return (time.perf_counter() - start) / iterations * 1e6


def torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def torch_copy_seconds(torch, n: int, replays: int) -> float:
    src, dst = torch.rand(n, device="cuda"), torch.empty(n, device="cuda")
    dst.copy_(src)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(replays):
        dst.copy_(src)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / replays


def torch_immediate_us(torch, iterations: int) -> float:
    src, dst = torch.rand(256, device="cuda"), torch.empty(256, device="cuda")
    dst.copy_(src)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(iterations):
        dst.copy_(src)
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / iterations * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 22, 24, 26, 28],
                        help="log2 of the number of floats")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=2000)
    args = parser.parse_args()
    torch = torch_cuda()
    rng = np.random.default_rng(0)
    print(f"device: {vd.get_context().device_infos[0].device_name}")
    header = (f"{'floats':>10} | {'vd.copy GB/s':>12} | {'vkCmdCopyBuffer':>15} | "
              f"{'torch copy_':>11} | {'ratio':>6}")
    print(header)
    print("-" * len(header))
    for log2 in args.sizes:
        n = 1 << log2
        host = rng.standard_normal(n).astype(np.float32)
        src, dst = vd.asbuffer(host), vd.Buffer(n, vd.float32)
        vd.copy(dst, src)
        np.testing.assert_array_equal(dst.read(0), host)
        replays = max(20, (1 << 30) // n)
        ours, command, theirs = [], [], []
        for _ in range(args.repeats):
            ours.append(copy_seconds(dst, src, replays))
            command.append(copy_seconds(dst, src, replays, command=True))
            if torch is not None:
                theirs.append(torch_copy_seconds(torch, n, replays))
        rate = 8 * n / statistics.median(ours) / 1e9
        command_rate = 8 * n / statistics.median(command) / 1e9
        ref = 8 * n / statistics.median(theirs) / 1e9 if theirs else None
        ref_text = f"{ref:11.1f}" if ref else f"{'-':>11}"
        ratio = f"{rate / ref:6.2f}" if ref else f"{'-':>6}"
        print(f"{n:>10} | {rate:12.1f} | {command_rate:15.1f} | {ref_text} | {ratio}")
        src.destroy()
        dst.destroy()
    small_src = vd.asbuffer(rng.standard_normal(256).astype(np.float32))
    small_dst = vd.Buffer(256, vd.float32)
    ours = statistics.median(immediate_us(small_dst, small_src, args.iterations)
                             for _ in range(args.repeats))
    line = f"\nimmediate vd.copy of 256 floats + wait: {ours:.1f} us"
    if torch is not None:
        theirs = statistics.median(torch_immediate_us(torch, args.iterations)
                                   for _ in range(args.repeats))
        line += (f"; torch copy_ + synchronize: {theirs:.1f} us (ours / torch = "
                 f"{ours / theirs:.2f}, below 1: vkdispatch is faster)")
    print(line)
    print("bandwidth ratio = vd.copy / torch (above 1: vkdispatch moves more bytes per second)")


if __name__ == "__main__":
    main()
