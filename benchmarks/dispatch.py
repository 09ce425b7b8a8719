"""Dispatch overheads: immediate call + wait, graph recording per call, graph replay per
dependent dispatch, and a new kernel's first dispatch in a new process with a warm cache (the
process's first kernel, which also sets up the immediate-mode graph, and a second one).

Each row names what its ratio compares (vkdispatch / reference, both measured in this run):

* immediate call + wait (``increment(buf, 1.0)`` + ``vd.queue_wait_idle()``; on a GPU the wait
  polls the queue's timeline for up to 10 ms before blocking, on a CPU device it blocks), against
  a raw C++ Vulkan loop in the native extension (no Python in it) submitting one recorded
  dispatch and waiting on its fence: first by polling the fence (the like-for-like reference on
  a GPU: both poll), then blocking in vkWaitForFences (like for like on a CPU device; on NVIDIA
  the blocking wait wakes tens of us after the GPU finishes, so this ratio flatters vkdispatch
  there), and, where torch with CUDA is installed, a tiny torch kernel launch + synchronize;
* graph replay per dependent dispatch (a recorded graph of --iterations dependent dispatches,
  resubmitted + waited, over --iterations), against the raw C++ loop's pre-recorded chain of as
  many dependent dispatches, one submit + blocking wait, over their count (like for like: the
  wait is amortised over the chain in both), and against the same chain recorded without its
  barriers (the dispatches race: not a valid program, the cost of a dispatch when nothing
  orders it, so that the ratio shows what the driver charges for each dependency);
* the first submit of a recorded graph per dispatch (uniform upload + command-buffer recording
  + submit + wait), against the same raw chain, which records nothing in its timed submit: the
  ratio is the one-off cost of a new recording, not a like-for-like comparison;
* back-to-back submissions (--iterations immediate calls, then as many submits of a
  one-dispatch graph, each loop waited for once at its end), per submission, against the same
  raw chain: each is a submission of its own, which the chain is not, so the ratio is what a
  submission costs beyond its dispatch. These loops are what the bound on unfinished
  submissions per queue (``max_in_flight``, 1024 by default) holds back once the device falls
  behind: compare ``VKDISPATCH_MAX_IN_FLIGHT=4294967295`` (no bound) with the default.

Graph recording per call and the new-kernel times have no reference. Each figure is the median
of --repeats interleaved measurements (hosts drift by tens of percent within a minute).

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
from vkdispatch.base.device_info import is_cpu_device
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32

from torch_reference import torch_cuda  # benchmarks/torch_reference.py



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


def back_to_back_us(buf, count: int) -> tuple[float, float]:
    """Per submission: ``count`` immediate calls submitted back to back and waited for once,
    then ``count`` submits of a one-dispatch graph (its kept command buffer) likewise."""
    graph = vd.CommandGraph()
    increment(buf, 1.0, graph=graph)
    graph.submit()  # records the command buffer that the timed submits reuse
    vd.queue_wait_idle()

    def per_submission(submit) -> float:
        start = time.perf_counter()
        for _ in range(count):
            submit()
        vd.queue_wait_idle()
        return (time.perf_counter() - start) / count * 1e6

    calls = per_submission(lambda: increment(buf, 1.0))
    submits = per_submission(graph.submit)
    graph.destroy()
    return calls, submits


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


def torch_launch(iterations: int):
    """A measurement of a tiny torch kernel launch + synchronize (us), or None without torch
    and CUDA."""
    torch = torch_cuda()
    if torch is None:
        return None
    x = torch.zeros(256, device="cuda")

    def launch():
        x.add_(1.0)
        torch.cuda.synchronize()
    return lambda: microseconds(launch, iterations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    context = vd.get_context()
    native = context.native_module
    buf = vd.asbuffer(np.zeros(256, dtype=np.float32))
    n = args.iterations
    measures = {
        "raw": lambda: native.raw_submit_wait_us(context.native, n),
        "raw_poll": lambda: native.raw_submit_wait_us(context.native, n, True),
        "immediate": lambda: immediate_us(buf, n),
        "record": lambda: record_us(buf, n),
        "replay": lambda: replay_us(buf, n),
        "back_to_back": lambda: back_to_back_us(buf, n),
        "raw_replay": lambda: native.raw_dependent_dispatch_us(context.native, n),
        "raw_unordered": lambda: native.raw_dependent_dispatch_us(context.native, n, False),
    }
    torch_measure = torch_launch(n)
    if torch_measure is not None:
        measures["torch"] = torch_measure
    samples: dict[str, list] = {name: [] for name in measures}
    for _ in range(args.repeats):
        for name, measure in measures.items():
            samples[name].append(measure())
    samples["first_submit"], samples["replay"] = zip(*samples["replay"])
    samples["calls_back_to_back"], samples["submits_back_to_back"] = \
        zip(*samples.pop("back_to_back"))
    fig = {name: statistics.median(values) for name, values in samples.items()}
    # Each measurement adds 1 to every element: immediate, warm-up + n calls; replay, three
    # submits of n dispatches (recording runs none); back to back, n calls and 1 + n graph
    # submits. Exact while the total stays below 2^24.
    np.testing.assert_array_equal(buf.read(0), np.full(256, args.repeats * (2 + 6 * n),
                                                       np.float32),
                                  err_msg="a dispatch was lost or repeated")
    first_kernel, second_kernel = new_kernel_ms()
    torch_us = fig.get("torch")
    immediate, replay, first_submit = fig["immediate"], fig["replay"], fig["first_submit"]
    cpu_device = is_cpu_device(context.device_infos[0])  # its waits never poll
    fair_poll, fair_block = ("", " [like for like]") if cpu_device else (" [like for like]", "")
    # (figure, our value shown, our value compared, reference, what the reference is); a row with
    # an empty figure is a further reference for the figure above it.
    rows = [
        ("immediate call + wait (us)", immediate, immediate, fig["raw_poll"],
         "raw C++ submit + polled fence wait, 1 dispatch" + fair_poll),
        ("", None, immediate, fig["raw"],
         "raw C++ submit + blocking fence wait (vkWaitForFences)" + fair_block),
    ]
    if torch_us is not None:
        rows.append(("", None, immediate, torch_us, "torch tiny kernel launch + synchronize"))
    rows += [
        ("graph record per call (us)", fig["record"], None, None, "host time, no reference"),
        ("graph replay per dependent dispatch (us)", replay, replay, fig["raw_replay"],
         f"raw C++ chain of {n} dependent dispatches, one submit + blocking wait, per "
         "dispatch [like for like]"),
        ("", None, replay, fig["raw_unordered"],
         "the raw chain without barriers (dispatches racing): what the dependency costs"),
        ("graph first submit per dispatch (us)", first_submit, first_submit, fig["raw_replay"],
         "the same raw chain (pre-recorded: ours also uploads and records)"),
        ("back-to-back calls, one wait (us per call)", fig["calls_back_to_back"],
         fig["calls_back_to_back"], fig["raw_replay"],
         "the same raw chain (one submission: ours is one per call)"),
        ("back-to-back graph submits, one wait (us)", fig["submits_back_to_back"],
         fig["submits_back_to_back"], fig["raw_replay"],
         "the same raw chain (one submission: ours is one per submit)"),
        ("new kernel, warm cache, new process (ms)", first_kernel, None, None, "no reference"),
        ("another new kernel in that process (ms)", second_kernel, None, None, "no reference"),
    ]
    print(f"device: {context.device_infos[0].device_name}")
    header = (f"{'figure':<42} | {'vkdispatch':>10} | {'reference':>10} | {'ratio':>6} | "
              "reference: what vkdispatch is compared with")
    print(header)
    print("-" * len(header))
    for name, shown, compared, ref, label in rows:
        ours_text = f"{shown:10.2f}" if shown is not None else f"{'':>10}"
        ref_text = f"{ref:10.2f}" if ref is not None else f"{'-':>10}"
        ratio = f"{compared / ref:6.2f}" if ref else f"{'-':>6}"
        print(f"{name:<42} | {ours_text} | {ref_text} | {ratio} | {label}")
    print("\nratio = vkdispatch / reference (below 1: vkdispatch is faster)")
    polled, blocking = immediate / fig["raw_poll"], immediate / fig["raw"]
    if cpu_device:
        print(f"like for like, immediate call + wait: {blocking:.2f} against the blocking raw "
              "loop (on a CPU device vkdispatch's wait blocks too); the polled raw loop's "
              f"{polled:.2f} is not (it spins on cores the device's work runs on)")
    else:
        print(f"like for like, immediate call + wait: {polled:.2f} against the polled raw loop "
              "(vkdispatch's wait polls too, for up to 10 ms); the blocking raw loop's "
              f"{blocking:.2f} is not (it adds the driver's wake-up latency to the reference)")
    print(f"like for like, graph replay: {replay / fig['raw_replay']:.2f} (both one submission "
          "of dependent dispatches, the wait amortised); the first-submit ratio is a one-off "
          "recording cost")

if __name__ == "__main__":
    main()
