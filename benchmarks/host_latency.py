"""Where a call + wait and a small read spend their host time: each step between plain Vulkan
and a script's call, measured in one run (us per call, median of --repeats interleaved loops of
--iterations).

Call + wait of a tiny dispatch:

* raw fence: plain Vulkan in the native extension (no Python), a recorded command buffer
  submitted and its fence polled (``raw_submit_wait_us``);
* raw timeline: the same, signalling a timeline semaphore whose counter is polled (the
  runtime's kind of completion signal): the difference is what the signal costs;
* wait on an idle queue: ``vd.queue_wait_idle()`` with nothing submitted (Python + native);
* ours: ``increment(buf, 1.0)`` + ``vd.queue_wait_idle()``, as a script writes it;
* torch: a tiny ``add_`` + ``torch.cuda.synchronize()``;
* raw CUDA: the CUDA driver's floor under torch's call (``raw_cuda.launch_sync_us``).

Read of --bytes from a device buffer:

* raw read, recorded once: plain Vulkan, a copy into host-visible staging, fence polled,
  memcpy out (``raw_read_us``); re-recorded: the command buffer recorded before every read;
* ours native: the extension's ``read_into`` (the transfer engine, no Python layer above it);
* ours: ``buf.read(0)``;
* torch: ``t.cpu().numpy()`` of as many bytes;
* raw CUDA: ``cudaMemcpy`` device -> host into pageable and into pinned memory
  (``raw_cuda.read_us``).

Below each table: ours over the raw Vulkan floor beside torch over the raw CUDA floor, the
host work each library adds to its driver (where cupy is installed).

Phases of a tiny submission + wait (a 256-byte fill; ``queue_phases_us``, no Python): record,
submit, device (from submit's return until the timeline counter shows the work done) and the
runtime's wait for a value already reached, for the runtime's queue and for plain Vulkan (one
command buffer re-recorded each time, a timeline semaphore polled) with no barrier before the
fill, with the runtime's entry barrier (after every earlier command, for compute and transfer
work) and with a full one (ALL_COMMANDS -> ALL_COMMANDS, memory reads and writes; what the
runtime recorded until it measured the latency it adds).

Each ratio is ours or a step over raw fence (call + wait) or raw read recorded once (reads):
like for like where both poll; the references are the floor a runtime adds to.

    python benchmarks/host_latency.py [--iterations 2000] [--repeats 5] [--bytes 4096]
"""
from __future__ import annotations

import argparse
import statistics

import numpy as np

import vkdispatch as vd
from vkdispatch import _native as native

import raw_cuda  # benchmarks/raw_cuda.py
from dispatch import increment, microseconds  # benchmarks/dispatch.py
from torch_reference import torch_cuda  # benchmarks/torch_reference.py


def call_rows(context, iterations: int) -> dict:
    buf = vd.asbuffer(np.random.default_rng(1).random(64, dtype=np.float32))

    def call():
        increment(buf, 1.0)
        vd.queue_wait_idle()
    rows = {
        "raw fence": lambda: native.raw_submit_wait_us(context.native, iterations, True),
        "raw timeline": lambda: native.raw_timeline_submit_wait_us(context.native, iterations),
        "wait on an idle queue": lambda: microseconds(vd.queue_wait_idle, iterations),
        "ours: call + wait": lambda: microseconds(call, iterations),
    }
    torch = torch_cuda()
    if torch is not None:
        x = torch.zeros(64, device="cuda")

        def launch():
            x.add_(1.0)
            torch.cuda.synchronize()
        rows["torch: add_ + synchronize"] = lambda: microseconds(launch, iterations)
    if raw_cuda.launch_sync_us(10) is not None:
        rows["raw CUDA: launch + synchronize"] = lambda: raw_cuda.launch_sync_us(iterations)
    return rows


def read_rows(context, iterations: int, nbytes: int) -> dict:
    values = np.random.default_rng(2).random(nbytes // 4, dtype=np.float32)
    buf = vd.asbuffer(values)
    raw = np.empty(nbytes, dtype=np.uint8)
    if not np.array_equal(buf.read(0), values):
        raise RuntimeError("the buffer read back differs from what was written")
    rows = {
        "raw read, recorded once": lambda: native.raw_read_us(context.native, iterations, nbytes),
        "raw read, re-recorded": lambda: native.raw_read_us(context.native, iterations, nbytes,
                                                            True),
        "ours native read_into": lambda: microseconds(
            lambda: buf._native.read_into(raw, 0, 0), iterations),
        "ours: buf.read(0)": lambda: microseconds(lambda: buf.read(0), iterations),
    }
    torch = torch_cuda()
    if torch is not None:
        t = torch.from_numpy(values).cuda()
        rows["torch: t.cpu().numpy()"] = lambda: microseconds(lambda: t.cpu().numpy(),
                                                              iterations)
    if raw_cuda.read_us(10, nbytes, False) is not None:
        rows["raw CUDA: cudaMemcpy to pageable"] = lambda: raw_cuda.read_us(iterations, nbytes,
                                                                            False)
        rows["raw CUDA: cudaMemcpy to pinned"] = lambda: raw_cuda.read_us(iterations, nbytes,
                                                                          True)
    return rows


def medians(rows: dict, repeats: int) -> dict:
    samples = {name: [] for name in rows}
    for _ in range(repeats):
        for name, measure in rows.items():
            samples[name].append(measure())
    return {name: statistics.median(values) for name, values in samples.items()}


def print_table(title: str, figures: dict, reference: str) -> None:
    print(f"\n{title}\n")
    print("| step | us per call | over the reference |")
    print("|---|--:|--:|")
    for name, value in figures.items():
        print(f"| {name} | {value:.2f} | {value / figures[reference]:.2f} |")


def print_overheads(figures: dict, pairs: dict) -> None:
    """Each library's time over its own driver's floor (``pairs``: library row -> driver row):
    what the library adds, like for like, once the drivers' difference is taken out."""
    for library, floor in pairs.items():
        if library in figures and floor in figures:
            print(f"{library} over {floor}: {figures[library] - figures[floor]:+.2f} us")


PHASE_ROWS = {"runtime": None, "raw": "none", "raw + the runtime's entry barrier": "runtime",
              "raw + a full entry barrier": "full"}


def print_phases(context, iterations: int, repeats: int) -> None:
    samples = {name: [] for name in PHASE_ROWS}
    for _ in range(repeats):
        for name, entry in PHASE_ROWS.items():
            samples[name].append(native.queue_phases_us(context.native, iterations, entry))
    print("\nPhases of a tiny submission + wait (us, medians)\n")
    print("| queue | record | submit | device | wait | total |")
    print("|---|--:|--:|--:|--:|--:|")
    for name, runs in samples.items():
        phase = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        cells = " | ".join(f"{phase[key]:.2f}" for key in ("record", "submit", "device", "wait"))
        print(f"| {name} | {cells} | {sum(phase.values()):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--bytes", type=int, default=4096)
    args = parser.parse_args()
    if args.bytes < 4 or args.bytes % 4:
        parser.error(f"--bytes: expected a positive multiple of 4, got {args.bytes}")
    context = vd.get_context()
    print(f"device: {vd.get_devices()[0].device_name}")
    calls = medians(call_rows(context, args.iterations), args.repeats)
    print_table("Call + wait of a tiny dispatch (reference: raw fence)", calls, "raw fence")
    print_overheads(calls, {"ours: call + wait": "raw timeline",
                            "torch: add_ + synchronize": "raw CUDA: launch + synchronize"})
    reads = medians(read_rows(context, args.iterations, args.bytes), args.repeats)
    print_table(f"Read of {args.bytes} bytes (reference: raw read, recorded once)", reads,
                "raw read, recorded once")
    print_overheads(reads, {"ours: buf.read(0)": "raw read, re-recorded",
                            "torch: t.cpu().numpy()": "raw CUDA: cudaMemcpy to pageable"})
    print_phases(context, args.iterations, args.repeats)


if __name__ == "__main__":
    main()
