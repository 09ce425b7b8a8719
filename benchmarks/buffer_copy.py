"""Device-to-device copies with vd.copy beside references.

For each size, a graph holding one vd.copy (on a GPU: the copy kernel) is replayed back to back
(instance_count, enough for 2^N floats in all, N = --total-log2, default 30) so submission and
the final wait are amortised; bandwidth counts the bytes moved (read src, write dst). Printed
beside the same copy as a vkCmdCopyBuffer command (``BufferCopy``, what vd.copy uses on CPU
devices) and torch's ``dst.copy_(src)`` where torch with CUDA is installed, measured in the same
run (a Python loop of copy_ launches + one synchronize); vd.copy/torch is the bandwidth ratio.
Then the latency of one immediate vd.copy of 256 floats + wait beside torch's copy_ +
synchronize. Figures are medians of --repeats measurements taken in turn with the others. After
the timed runs, each copy path runs once more into a cleared destination and its result is
checked, as are torch's copies and the immediate copies.

    python benchmarks/buffer_copy.py [--sizes 20 24 26 28] [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import vkdispatch as vd
from vkdispatch.base.commands import BufferCopy

from graph_timing import gpu_seconds, timed_seconds  # benchmarks/graph_timing.py
from torch_reference import torch_cuda  # benchmarks/torch_reference.py


def record_copy(graph: vd.CommandGraph, dst, src, command: bool) -> None:
    """One copy of src into dst in ``graph``: vd.copy, or a BufferCopy command."""
    if command:
        graph.record_command(BufferCopy(dst, src, src.mem_size))
    else:
        vd.copy(dst, src, graph=graph)


def copy_seconds(dst, src, replays: int, command: bool = False) -> float:
    return gpu_seconds(lambda graph: record_copy(graph, dst, src, command), replays)


def check_copy(name: str, dst, src, expected: np.ndarray, command: bool) -> None:
    """Clears dst, submits one copy and fails unless dst then holds ``expected``."""
    dst.write(np.zeros_like(expected))
    graph = vd.CommandGraph()
    record_copy(graph, dst, src, command)
    graph.submit()
    vd.queue_wait_idle()
    graph.destroy()
    np.testing.assert_array_equal(dst.read(0), expected, err_msg=name)


def immediate_us(dst, src, iterations: int) -> float:
    vd.copy(dst, src)
    vd.queue_wait_idle()
    start = time.perf_counter()
    for _ in range(iterations):
        vd.copy(dst, src)
        vd.queue_wait_idle()
    return (time.perf_counter() - start) / iterations * 1e6


def torch_copy_seconds(torch, n: int, replays: int) -> float:
    src, dst = torch.rand(n, device="cuda"), torch.empty(n, device="cuda")

    def run():
        for _ in range(replays):
            dst.copy_(src)
        torch.cuda.synchronize()
    seconds = timed_seconds(run) / replays
    assert torch.equal(dst, src), "torch copy_: different data"
    return seconds


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
    parser.add_argument("--total-log2", type=int, default=30,
                        help="replay each copy for at least 2^N floats per measurement")
    args = parser.parse_args()
    torch = torch_cuda()
    rng = np.random.default_rng(0)
    print(f"device: {vd.get_context().device_infos[0].device_name}")
    header = (f"{'floats':>10} | {'vd.copy GB/s':>12} | {'vkCmdCopyBuffer':>15} | "
              f"{'torch copy_':>11} | {'vd.copy/torch':>13}")
    print(header)
    print("-" * len(header))
    for log2 in args.sizes:
        n = 1 << log2
        host = rng.standard_normal(n).astype(np.float32)
        src, dst = vd.asbuffer(host), vd.Buffer(n, vd.float32)
        replays = max(20, (1 << args.total_log2) // n)
        ours, command, theirs = [], [], []
        for _ in range(args.repeats):
            ours.append(copy_seconds(dst, src, replays))
            command.append(copy_seconds(dst, src, replays, command=True))
            if torch is not None:
                theirs.append(torch_copy_seconds(torch, n, replays))
        # After the timed runs (which all wrote the same dst), each path once more from a
        # cleared dst, so a copy that wrote nothing cannot pass on the other's result.
        check_copy(f"vd.copy of {n} floats", dst, src, host, command=False)
        check_copy(f"BufferCopy of {n} floats", dst, src, host, command=True)
        rate = 8 * n / statistics.median(ours) / 1e9
        command_rate = 8 * n / statistics.median(command) / 1e9
        ref = 8 * n / statistics.median(theirs) / 1e9 if theirs else None
        ref_text = f"{ref:11.1f}" if ref else f"{'-':>11}"
        ratio = f"{rate / ref:13.2f}" if ref else f"{'-':>13}"
        print(f"{n:>10} | {rate:12.1f} | {command_rate:15.1f} | {ref_text} | {ratio}")
        src.destroy()
        dst.destroy()
    small_host = rng.standard_normal(256).astype(np.float32)
    small_src, small_dst = vd.asbuffer(small_host), vd.Buffer(256, vd.float32)
    ours_us, theirs_us = [], []
    for _ in range(args.repeats):
        ours_us.append(immediate_us(small_dst, small_src, args.iterations))
        if torch is not None:
            theirs_us.append(torch_immediate_us(torch, args.iterations))
    np.testing.assert_array_equal(small_dst.read(0), small_host,
                                  err_msg="immediate vd.copy of 256 floats")
    ours = statistics.median(ours_us)
    line = f"\nimmediate vd.copy of 256 floats + wait: {ours:.1f} us"
    if theirs_us:
        theirs = statistics.median(theirs_us)
        line += (f"; torch copy_ + synchronize: {theirs:.1f} us (ours / torch = "
                 f"{ours / theirs:.2f}, below 1: vkdispatch is faster)")
    print(line)
    print("bandwidth ratio = vd.copy / torch (above 1: vkdispatch moves more bytes per second)")


if __name__ == "__main__":
    main()
