"""What each part of vd.fft's one-pass transform costs: the transform timed with one part taken
out, beside a copy of the same bytes (a diagnostic: most variants compute wrong results).

For each N (complex64 rows of --mib MiB, ``vd.fft.fft`` along the last axis) and each variant,
a forward transform and the normalised inverse are replayed in a ``vd.CommandGraph`` beside a
replayed ``vd.copy`` of the same bytes (median of --repeats interleaved measurements); the
table gives ours/copy (GB/s = 2 x bytes / time per transform, as ``fft.py``), with the
registers the driver gave the shader in brackets where it reports them
(``pipeline_statistics()``). With --convolve the same for the fused ``vd.fft.convolve(x, k)``
by a kernel of random unit phases (effective GB/s = 3 x bytes / time, as ``fft.py``'s
convolution table). Each variant runs in a process of its own, patched before it plans
anything:

* ``committed``: the code as it is.
* ``no-exchange``: stages hand over by renaming registers only, nothing through shared memory
  (wrong results): the cost of the exchanges and their barriers (the adjoint's included).
* ``no-staging``: short lines load and store from registers instead of through shared memory in
  address order (right results).
* ``odd-pitch``: the rows of short lines in shared memory at an odd pitch, as before the
  twenty-seventh session (right results).
* ``no-twiddles``: stages without their twiddle factors (wrong results, of the same norm).
* ``no-butterflies``: no butterflies, twiddles or normalisation: the data only moves (wrong
  results, of the same norm: values that shrink to zeros or grow to inf would let a GPU that
  compresses memory run faster than the copy).

The right-result variants are checked against numpy (relative L2 error above 1e-4: WRONG, and
the script exits with status 1); the others print their error for the record.

    python benchmarks/fft_parts.py [--sizes 5 6 7 10 12 13] [--lengths 25 1000] [--convolve]
        [--variants committed no-exchange ...] [--mib 256] [--repeats 3]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

import numpy as np

import vkdispatch as vd
from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.errors import InvalidArgumentError
import vkdispatch.fft.context as fft_context
import vkdispatch.fft.grid as fft_grid
import vkdispatch.fft.registers as fft_registers

from fft import TOLERANCE, relative_error, unit_phases  # benchmarks/fft.py
from graph_timing import gpu_seconds  # benchmarks/graph_timing.py

REPLAY_BYTES = 8 << 30  # each figure replays at least this many bytes (a GPU; 4 on CPUs)


def replace(owner, name: str, value) -> None:
    """Sets ``owner.name``, which must exist: a renamed internal fails here instead of
    leaving a variant that silently changes nothing."""
    if not hasattr(owner, name):
        raise SystemExit(f"fft_parts.py: {owner.__name__} has no {name} to replace any more")
    setattr(owner, name, value)


def _no_exchange() -> None:
    def relayout(self, registers, source, target):
        (registers or self.registers).try_relayout(source, target)
    replace(fft_context.FFTContext, "relayout", relayout)


def _no_staging() -> None:
    replace(fft_grid, "STAGED_BELOW_THREADS", 0)


def _odd_pitch() -> None:
    def line_pitch(self):
        padded = self.config.sdata_row_size_padded
        return padded if self.lines_per_group == 1 else padded | 1
    replace(fft_grid.FFTGridManager, "_line_pitch", line_pitch)


def _no_twiddles() -> None:
    replace(fft_context.FFTContext, "_twiddle", lambda self, stage, instance, values, sign: values)


def _no_butterflies() -> None:
    _no_twiddles()
    replace(fft_context, "radix_fft", lambda values, primes, sign: values)
    replace(fft_registers.FFTRegisters, "normalize", lambda self: None)


VARIANTS = {"committed": (lambda: None, True), "no-exchange": (_no_exchange, False),
            "no-staging": (_no_staging, True), "odd-pitch": (_odd_pitch, True),
            "no-twiddles": (_no_twiddles, False), "no-butterflies": (_no_butterflies, False)}


def registers_of(shape: tuple) -> str:
    """The driver's register count for the shader of ``shape`` (one pass), or empty."""
    shader = vd.fft.make_fft_shader(shape, -1)
    try:
        statistics_ = shader.pipeline_statistics()
    except (InvalidArgumentError, AttributeError):  # no driver report / not one shader
        return ""
    counts = [stats[name] for stats in statistics_.values() for name in stats
              if name.lower() == "register count"]
    return f" ({counts[0]})" if counts else ""


def measure(n: int, mib: int, repeats: int, cpu: bool, right: bool, convolve: bool) -> str:
    """``ratio (registers) error`` of one length in this process's variant."""
    batch = max(1, (mib << 20) // (8 * n))
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((batch, n)) + 1j * rng.standard_normal((batch, n))).astype(
        np.complex64)
    data, other = vd.asbuffer(x), vd.asbuffer(x)
    k = unit_phases(x.size, rng).reshape(x.shape)
    kernel = vd.asbuffer(k)
    if convolve:  # one convolution moves 3 x bytes: its rate over the copy's
        def record(graph):
            vd.fft.convolve(data, kernel, graph=graph)
        moved, calls = 3, 1
    else:  # a forward transform and the normalised inverse: two transforms of 2 x bytes
        def record(graph):
            vd.fft.fft(data, graph=graph)
            vd.fft.ifft(data, graph=graph)
        moved, calls = 2, 2
    replays = 4 if cpu else max(4, REPLAY_BYTES // (2 * calls * x.nbytes))
    ours, copy = [], []
    for _ in range(repeats):
        ours.append(gpu_seconds(record, replays) / calls)
        copy.append(gpu_seconds(lambda graph: vd.copy(other, data, graph=graph), replays))
    ratio = moved / 2 * statistics.median(copy) / statistics.median(ours)
    data.write(x)
    expected = np.fft.fft(x.astype(np.complex128), axis=-1)
    if convolve:
        vd.fft.convolve(data, kernel)
        expected = np.fft.ifft(expected * np.conj(k.astype(np.complex128)), axis=-1)
    else:
        vd.fft.fft(data)
    error = relative_error(data.read(0), expected)
    mark = " WRONG" if right and error > TOLERANCE else ""
    registers = "" if convolve else registers_of((batch, n))
    return f"{ratio:.2f}{registers} {error:.1e}{mark}"


def run_variant(variant: str, lengths: list[int], args) -> None:
    """Child process: patch, then one line ``N<TAB>cell`` per length."""
    patch, right = VARIANTS[variant]
    patch()
    cpu = is_cpu_device(vd.get_context().device_infos[0])
    for n in lengths:
        cell = measure(n, args.mib, args.repeats, cpu, right, args.convolve)
        print(f"{n}\t{cell}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[5, 6, 7, 10, 12, 13],
                        help="log2 N of the lengths")
    parser.add_argument("--lengths", type=int, nargs="*", default=[], help="other lengths")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--mib", type=int, help="MiB of rows (default 256; CPU device 4)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--convolve", action="store_true",
                        help="time vd.fft.convolve(x, k) instead of a transform")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a child process's variant
    args = parser.parse_args()
    lengths = [1 << s for s in args.sizes] + args.lengths
    cpu = is_cpu_device(vd.get_context().device_infos[0])
    args.mib = args.mib or (4 if cpu else 256)
    if args.one:
        run_variant(args.one, lengths, args)
        return
    what = "vd.fft.convolve" if args.convolve else "vd.fft.fft"
    print(f"device: {vd.get_context().device_infos[0].device_name}; {what} of rows of "
          f"{args.mib} MiB; ours/copy (registers) error per variant")
    cells = {}
    for variant in args.variants:
        command = [sys.executable, __file__, "--one", variant, "--mib", str(args.mib),
                   "--repeats", str(args.repeats), "--sizes", *map(str, args.sizes),
                   "--lengths", *map(str, args.lengths)] + ["--convolve"] * args.convolve
        out = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout
        cells[variant] = dict(line.split("\t") for line in out.splitlines() if "\t" in line)
    print("| N | " + " | ".join(args.variants) + " |")
    print("|--:|" + "|".join("--:" for _ in args.variants) + "|")
    for n in lengths:
        print(f"| {n} | " + " | ".join(cells[v].get(str(n), "") for v in args.variants) + " |")
    sys.exit(1 if any("WRONG" in cell for row in cells.values() for cell in row.values())
             else 0)


if __name__ == "__main__":
    main()
