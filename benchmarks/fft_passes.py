"""The two passes of vd.fft's long transforms timed apart, beside a copy of the same bytes.

A line longer than one workgroup holds runs as two dispatches (``vkdispatch/fft/multi_pass.py``):
pass A transforms the N2-point columns (stride N1), twiddles them and stores them transposed into
a scratch buffer; pass B transforms the N1-point columns of that buffer into the output. For each
N this script plans ``vd.fft.fft`` of (batch, N) complex64 rows (--mib MiB), and replays pass A
alone, pass B alone and ``vd.copy`` of the same bytes, each as a ``vd.CommandGraph`` (median of
--repeats interleaved measurements). GB/s = 2 x bytes / time: a pass reads and writes the array
once, as the copy does. A/copy and B/copy are each pass's share of the copy's bandwidth;
both/copy = 1 / (copy/A + copy/B) is the two-pass transform's (0.5 at best). Each N runs in a
process of its own: in one process that made a plan and new buffers for each length, the copy
itself ran at half its speed in some rows (benchmarks/README.md, twenty-fifth session). After
the timed runs each plan transforms fresh random rows once, checked against numpy's complex128
FFT (the relative L2 error; WRONG above 1e-4, and the script exits with status 1).

    python benchmarks/fft_passes.py [--sizes 14 16 17 18 19 20] [--mib 256] [--repeats 3]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

import numpy as np

import vkdispatch as vd
from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.fft.multi_pass import FourStepFFT

from graph_timing import gpu_seconds  # benchmarks/graph_timing.py

REPLAY_BYTES = 8 << 30  # each figure replays at least this many bytes (a GPU; 4 replays on CPUs)
TOLERANCE = 1e-4
COLUMNS = ("N", "n1 x n2", "A GB/s", "B GB/s", "copy GB/s", "A/copy", "B/copy", "both/copy",
           "error")


def measure(log2: int, mib: int, repeats: int, cpu: bool) -> str:
    """One row of the table (or why N has none)."""
    n = 1 << log2
    batch = max(1, (mib << 20) // (8 * n))
    plan = vd.fft.make_fft_shader((batch, n), -1)
    if not isinstance(plan, FourStepFFT):
        return f"| {n} | one pass | | | | | | | |"
    rng = np.random.default_rng(log2)
    x = (rng.standard_normal((batch, n)) + 1j * rng.standard_normal((batch, n))).astype(
        np.complex64)
    data, other = vd.asbuffer(x), vd.asbuffer(x)
    scratch = plan._scratch(vd.get_context())  # the plan's own, as its calls use it
    replays = 4 if cpu else max(4, REPLAY_BYTES // (2 * x.nbytes))
    recorders = {"A": lambda g: plan.pass_a(scratch, data, graph=g),
                 "B": lambda g: plan.pass_b(data, scratch, graph=g),
                 "copy": lambda g: vd.copy(other, data, graph=g)}
    times = {name: [] for name in recorders}
    for _ in range(repeats):
        for name, record in recorders.items():
            times[name].append(gpu_seconds(record, replays))
    rate = {name: 2 * x.nbytes / statistics.median(t) / 1e9 for name, t in times.items()}
    a, b, copy = rate["A"] / rate["copy"], rate["B"] / rate["copy"], rate["copy"]
    data.write(x)
    vd.fft.fft(data)
    expected = np.fft.fft(x.astype(np.complex128), axis=-1)
    error = np.linalg.norm(data.read(0) - expected) / np.linalg.norm(expected)
    mark = " WRONG" if error > TOLERANCE else ""
    return (f"| {n} | {plan.n1} x {plan.n2} | {rate['A']:.0f} | {rate['B']:.0f} | {copy:.0f} | "
            f"{a:.2f} | {b:.2f} | {1 / (1 / a + 1 / b):.2f} | {error:.1e}{mark} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*",
                        help="log2 N (default 14 16 17 18 19 20; CPU device 15 16)")
    parser.add_argument("--mib", type=int, help="MiB of rows (default 256; CPU device 8)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a row, in this process
    args = parser.parse_args()
    cpu = is_cpu_device(vd.get_context().device_infos[0])
    mib = args.mib or (8 if cpu else 256)
    if args.one is not None:
        print(measure(args.one, mib, args.repeats, cpu), flush=True)
        return
    print(f"device: {vd.get_context().device_infos[0].device_name}; {mib} MiB of rows")
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "|".join("--:" for _ in COLUMNS) + "|", flush=True)
    wrong = False
    for log2 in args.sizes or ([15, 16] if cpu else [14, 16, 17, 18, 19, 20]):
        row = subprocess.run([sys.executable, __file__, "--one", str(log2), "--mib", str(mib),
                              "--repeats", str(args.repeats)], check=True,
                             stdout=subprocess.PIPE, text=True).stdout.strip()
        print(row, flush=True)
        wrong |= "WRONG" in row
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
