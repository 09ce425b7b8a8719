"""What vd.profile() costs the host: us of host time per command with the profile on, beside
the same calls with it off (the reference), for an eager shader call (repeated K times; the
wait after them not counted) and for a graph of 16 dispatches replayed K times. The profile records each submission afresh with
a timestamp query pool instead of replaying its kept recording; the issue's target is at
most 1 us of host time per command.

Usage: python benchmarks/profile_overhead.py [--calls 300]
"""
from __future__ import annotations

import argparse
import contextlib
import time

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32


@vd.shader("x.size")
def axpy(x: Buff[f32], k: Const[f32]):
    i = vc.global_invocation_id().x
    x[i] = x[i] * k + 1.0


def per_call_us(run, count: int, profiled: bool) -> float:
    """Best of three: host microseconds per command of ``run()`` (``count`` commands), the
    wait for the GPU after it not counted."""
    best = float("inf")
    for _ in range(3):
        with vd.profile() if profiled else contextlib.nullcontext():
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        vd.queue_wait_idle()
    return best / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300,
                        help="commands per measurement (default 300: under the bound on "
                        "unfinished submissions, so the host never waits for the device)")
    args = parser.parse_args()
    x = vd.asbuffer(np.ones(4096, np.float32))
    graph = vd.CommandGraph()
    for _ in range(16):
        axpy(x, 0.5, graph=graph)
    replays = max(1, args.calls // 16)

    def eager():
        for _ in range(args.calls):
            axpy(x, 0.5)

    def replayed():
        for _ in range(replays):
            graph.submit()

    print(f"device: {vd.get_context().device_infos[0].device_name}\n")
    print("| what | profile off us/command | profile on us/command | added us/command |")
    print("|---|--:|--:|--:|")
    for label, run, count in (("eager shader call (axpy, 4096 floats)", eager, args.calls),
                              ("graph of 16 dispatches, replayed", replayed, replays * 16)):
        off = per_call_us(run, count, False)
        on = per_call_us(run, count, True)
        print(f"| {label} | {off:.2f} | {on:.2f} | {on - off:.2f} |")
    graph.destroy()


if __name__ == "__main__":
    main()
