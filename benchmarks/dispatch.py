"""Dispatch overheads: immediate call + wait, graph recording per call, graph replay per
dependent dispatch, and a new kernel's first dispatch in a new process with a warm cache (the
process's first kernel, which also sets up the immediate-mode graph, and a second one).

Printed beside references from the same run: a raw C++ Vulkan submit-and-wait loop (in the
native extension, no Python in the loop; waiting on its fence by blocking, and by polling) and,
where torch with CUDA is installed, a tiny torch kernel launch + synchronize. Each figure is the
median of --repeats interleaved measurements (hosts drift by tens of percent within a minute).

    python benchmarks/dispatch.py [--iterations 2000] [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import textwrap
import time

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32


@vd.shader("buf.size", local_size=(64, 1, 1))
def increment(buf: Buff[f32], amount: Const[f32]):
    i = vc.global_invocation_id().x
    buf[i] = buf[i] + amount


def microseconds(action, iterations: int) -> float:
    action()
    start = time.perf_counter()
    for _ in range(iterations):
        action()
    return (time.perf_counter() - start) / iterations * 1e6


def immediate_us(buf, iterations: int) -> float:
    def call():
        increment(buf, 1.0)
        vd.queue_wait_idle()
    return microseconds(call, iterations)


def record_us(buf, count: int) -> float:
    graph = vd.CommandGraph()
    start = time.perf_counter()
    for _ in range(count):
        increment(buf, 1.0, graph=graph)
    seconds = time.perf_counter() - start
    graph.destroy()
    return seconds / count * 1e6


def replay_us(buf, count: int) -> tuple[float, float]:
    """Per dispatch: the first submit of a recorded graph (it uploads the uniform data and
    records the command buffer), and a later replay (it submits the kept command buffer)."""
    graph = vd.CommandGraph()
    for _ in range(count):
        increment(buf, 1.0, graph=graph)

    def timed_submit() -> float:
        start = time.perf_counter()
        graph.submit()
        vd.queue_wait_idle()
        return (time.perf_counter() - start) / count * 1e6

    first = timed_submit()
    timed_submit()
    replay = timed_submit()
    graph.destroy()
    return first, replay


NEW_PROCESS = textwrap.dedent("""
    import time
    import vkdispatch as vd, vkdispatch.codegen as vc
    from vkdispatch.codegen.abbreviations import Buff, f32
    buf = vd.Buffer(256, vd.float32)
    vd.queue_wait_idle()
    def new_kernel_ms(factor):
        start = time.perf_counter()
        @vd.shader("b.size", local_size=(64, 1, 1))
        def scale(b: Buff[f32]):
            i = vc.global_invocation_id().x
            b[i] = b[i] * factor
        scale(buf)
        vd.queue_wait_idle()
        return (time.perf_counter() - start) * 1e3
    print(new_kernel_ms(3.0), new_kernel_ms(5.0))
""")


def new_kernel_ms(runs: int = 5) -> tuple[float, float]:
    """Decorate + build + first dispatch + wait of the first kernel of a fresh process (with
    the caches warm from a previous run), and of a second new kernel in the same process;
    medians over ``runs - 1`` processes."""
    results = [subprocess.run([sys.executable, "-c", NEW_PROCESS], capture_output=True,
                              text=True, check=True) for _ in range(runs)]
    pairs = [tuple(map(float, r.stdout.split()[-2:])) for r in results[1:]]
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def torch_launch_us(iterations: int):
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    x = torch.zeros(256, device="cuda")

    def launch():
        x.add_(1.0)
        torch.cuda.synchronize()
    return microseconds(launch, iterations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    context = vd.get_context()
    native = context.native_module
    buf = vd.asbuffer(np.zeros(256, dtype=np.float32))
    n = args.iterations
    samples: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        for name, measure in (
                ("raw", lambda: native.raw_submit_wait_us(context.native, n)),
                ("raw_poll", lambda: native.raw_submit_wait_us(context.native, n, True)),
                ("immediate", lambda: immediate_us(buf, n)),
                ("record", lambda: record_us(buf, n)),
                ("replay", lambda: replay_us(buf, n)),
                ("raw_replay", lambda: native.raw_dependent_dispatch_us(context.native, n))):
            samples.setdefault(name, []).append(measure())
    samples["first_submit"], samples["replay"] = zip(*samples["replay"])
    fig = {name: statistics.median(values) for name, values in samples.items()}
    # immediate: warm-up + n calls; replay: three submits of n dispatches (recording runs none)
    assert buf.read(0)[0] == args.repeats * (1 + 4 * n), "a dispatch was lost"
    first_kernel, second_kernel = new_kernel_ms()
    immediate = fig["immediate"]
    # (figure, our value shown, our value compared, reference, reference label); a row with an
    # empty figure is a further reference for the row above it.
    rows = [
        ("immediate call + wait (us)", immediate, immediate, fig["raw"], "raw C++ submit+wait"),
        ("", None, immediate, fig["raw_poll"], "raw C++ submit+polling wait"),
        ("graph record per call (us)", fig["record"], None, None, ""),
        ("graph replay per dependent dispatch (us)", fig["replay"], fig["replay"],
         fig["raw_replay"], "raw C++ dependent dispatches, one submit"),
        ("graph first submit per dispatch (us)", fig["first_submit"], fig["first_submit"],
         fig["raw_replay"], "(same)"),
        ("new kernel, warm cache, new process (ms)", first_kernel, None, None, ""),
        ("another new kernel in that process (ms)", second_kernel, None, None, ""),
    ]
    torch_us = torch_launch_us(n)
    if torch_us is not None:
        rows.append(("", None, immediate, torch_us, "torch tiny kernel launch + sync"))
    print(f"device: {context.device_infos[0].device_name}")
    header = f"{'figure':<42} | {'vkdispatch':>10} | {'reference':>10} | {'ratio':>6} | reference"
    print(header)
    print("-" * len(header))
    for name, shown, compared, ref, label in rows:
        ours_text = f"{shown:10.2f}" if shown is not None else f"{'':>10}"
        ref_text = f"{ref:10.2f}" if ref is not None else f"{'-':>10}"
        ratio = f"{compared / ref:6.2f}" if ref else f"{'-':>6}"
        print(f"{name:<42} | {ours_text} | {ref_text} | {ratio} | {label}")
    print("\nratio = vkdispatch / reference (below 1: vkdispatch is faster)")


if __name__ == "__main__":
    main()
