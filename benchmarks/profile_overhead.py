"""What vd.profile() costs the host: us of host time per command with the profile on, beside
the same calls with it off (the reference), for an eager shader call (repeated K times; the
wait after them not counted) and for a graph of 16 dispatches replayed K times. A profiled
submission runs a kept recording with timestamps around its commands (one per submission in
flight), as an unprofiled one runs its kept recording; the target is at most 1 us of host time per
command.

Two figures per case, each the best of --repeats blocks: wall time, and the CPU time of the
calling thread (on a CPU device such as lavapipe the device's threads share the cores with
the host, so wall time also holds the host's waits for them; thread CPU time does not).

Usage: python benchmarks/profile_overhead.py [--calls 300] [--repeats 9]
(Set PYTHONPATH to the checkout to measure: a script's folder, not the working directory,
heads sys.path, so an installed vkdispatch is imported otherwise; the line "vkdispatch:"
says which one ran.)
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


def per_call_us(run, count: int, profiled: bool, repeats: int) -> tuple[float, float]:
    """Best of ``repeats``: host microseconds per command of ``run()`` (``count`` commands),
    wall and calling-thread CPU time, the wait for the GPU after it not counted."""
    wall = cpu = float("inf")
    for _ in range(repeats):
        with vd.profile() if profiled else contextlib.nullcontext():
            start, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
            run()
            cpu = min(cpu, time.thread_time_ns() - start_cpu)
            wall = min(wall, time.perf_counter_ns() - start)
        vd.queue_wait_idle()
    return wall / count / 1e3, cpu / count / 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300,
                        help="commands per measurement (default 300: under the bound on "
                        "unfinished submissions, so the host never waits for the device)")
    parser.add_argument("--repeats", type=int, default=9, help="blocks per figure (best of)")
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

    print(f"device: {vd.get_context().device_infos[0].device_name}\nvkdispatch: {vd.__file__}\n")
    print("| what | off us/command (wall, cpu) | on us/command (wall, cpu) | "
          "added us/command (wall, cpu) |")
    print("|---|--:|--:|--:|")
    for label, run, count in (("eager shader call (axpy, 4096 floats)", eager, args.calls),
                              ("graph of 16 dispatches, replayed", replayed, replays * 16)):
        off = per_call_us(run, count, False, args.repeats)
        on = per_call_us(run, count, True, args.repeats)
        print(f"| {label} | {off[0]:.2f}, {off[1]:.2f} | {on[0]:.2f}, {on[1]:.2f} | "
              f"{on[0] - off[0]:.2f}, {on[1] - off[1]:.2f} |")
    graph.destroy()


if __name__ == "__main__":
    main()
