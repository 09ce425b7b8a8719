"""Our operations called eagerly from a script, beside torch's and cupy's eager equivalents
and beside the same operations replayed from a graph.

Scripts call operations one after another and read the result at the end; the other
benchmarks time graph replays only, which hide the host work around each call (planning,
allocation, descriptor sets, submissions). Each operation below runs at a small size (where
that overhead dominates) and a large one (--sizes), one table row each:

    vd.fft.convolve of (64, 256) complex64 and (32768, 1024); vd.fft.convolve2D of
    (2, 128, 128) and (8, 1024, 1024); vd.fft.fft2 of the same two shapes; a float32 sum with
    vd.reduce (``map_reduce(SubgroupAdd)``, benchmarks/reduce.py's) of 4096 and 2^26
    elements; vd.asbuffer of 4 KiB and 64 MiB of float32; vd.vkfft.fft and vd.fft.fft of
    (64, 256) and (32768, 1024) complex64; vd.fft.fft of lines longer than a workgroup
    (two passes, ``fft_long``), (2, 2^16) and (32, 2^20); a shader call (axpy ``y = a*x + y``,
    benchmarks/elementwise.py's) of 4096 and 2^24 floats; Buffer.read of 4 KiB and 64 MiB;
    an immediate shader call + wait (the same axpy, then ``vd.queue_wait_idle()``).

On a CPU device (lavapipe) the large sizes shrink to (512, 1024), 2 x 256^2, (2, 2^16),
2^20 elements and 4 MiB so that the default run stays short.

Columns (every time is seconds per call, printed in us; each is the median of --repeats
measurements taken in turn with the row's other columns: hosts drift within a minute):

* calls: K, the calls of each measurement, the same for every column of the row: --calls at
  most, fewer where the row's slowest column would take over --budget seconds, at least 3.
* ours eager: the call repeated K times from Python, then one ``vd.queue_wait_idle()``, over
  K: what a script pays per call. Reductions return a new output buffer each call (no
  ``out=``), as a script writes them; reads and the immediate row wait within each call.
  The transforms' rows (fft, fft_long, fft2, vkfft) call the transform and its normalised
  inverse in turn, in place, half of each pair's time per call (in every column of ours):
  repeated alone, a transform's values grow to inf, which a GPU that compresses memory moves
  faster than random data (an H200 ran 32768 x 1024 eagerly faster than a copy that way).
* ours unbatched: ours eager with the context's submission window set to 0 (every call its
  own queue submission, as before submission windows; see ``vd.make_context``).
* ours replay: the same operation recorded once into a ``vd.CommandGraph`` and submitted K
  times (one submission each), then one wait, over K: a graph replay plus one submission
  (for the immediate row each submit is waited for; reductions write an ``out=`` buffer).
  n/a for what a graph cannot record (vd.asbuffer, read).
* eager/replay: ours eager / ours replay, the host work an eager call adds to its recorded
  form (target: at most 1.2).
* ours instance_count: the graph submitted once with ``instance_count=K``, then one wait, over
  K: the device's work with the submission amortised (what benchmarks/fft.py and reduce.py
  time; for the immediate row, without its waits).
* {ref} us and {ref}/ours for each reference, the same K calls in a loop + one synchronize:
  ``{ref}/ours`` = the reference's time / ours eager, at least 1 where ours is faster.
  torch (CUDA, where installed): ``ifft(fft(x) * k.conj())`` / ``ifft2(fft2(...))``
  (benchmarks/fft.py's formulas, out of place), ``fft2``, ``x.sum()``,
  ``torch.as_tensor(a, device="cuda")``, ``fft``, ``y.add_(x, alpha=a)``,
  ``t.cpu().numpy()``, and ``add_`` + ``torch.cuda.synchronize()`` for the immediate row;
  cupy (where installed with a CUDA device): the same through ``cupy.fft``, ``x.sum()``,
  ``cupy.asarray``, ``y += a * x`` (two kernels: cupy has no in-place axpy) and
  ``cupy.asnumpy``; numpy on the host (where neither is usable, as on lavapipe, or with
  --numpy): ``np.fft``, ``x.sum()``, ``np.array`` (a host copy for asbuffer and read) and
  ``y += a * x``.
* error: after the timed runs ours runs once more eagerly and once from a graph, each on fresh
  random data, against numpy in float64 / complex128 (relative L2 error; the larger of the
  two; FFT rows compare a sample of rows, as benchmarks/fft.py does). Above 1e-4 the row is
  marked WRONG and the script exits with status 1 after the table.

With --first-use, a second table times first uses in new processes (medians of --repeats):
a new shader's decorate + build + first call + wait with a warm disk cache (benchmarks/
dispatch.py's measurement: the first process warms the cache, the later ones are reported;
target at most 5 ms) and a second new shader in that process; and the first
``vd.vkfft.fft`` call + wait (64 x 256, the context made before the clock starts) in a process
whose XDG_CACHE_HOME is a new empty folder (cold: vkdispatch's disk cache, and Mesa's, empty),
then in a second process on the cache the first left (warm), with each process's wall time.

    python benchmarks/eager.py [--ops convolve fft ...] [--sizes small large] [--calls 1000]
                               [--budget 0.3] [--repeats 5] [--numpy] [--first-use]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable, Optional

import numpy as np

import vkdispatch as vd
from vkdispatch.base.device_info import is_cpu_device

from dispatch import new_kernel_ms  # benchmarks/dispatch.py
from elementwise import ALPHA, KERNELS  # benchmarks/elementwise.py
from fft import (OPS as FFT_OPS, TOLERANCE, Check, cupy_cuda,  # benchmarks/fft.py
                 relative_error, unit_phases)
from graph_timing import gpu_seconds  # benchmarks/graph_timing.py
from reduce import eager_seconds, total  # benchmarks/reduce.py
from torch_reference import torch_cuda  # benchmarks/torch_reference.py

AXPY = next(kernel for kernel in KERNELS if kernel.name == "axpy")
MIN_CALLS = 3
DEFAULTS = {"calls": (1000, 200), "budget": (0.3, 0.1), "repeats": (5, 3)}  # (GPU, CPU device)


@dataclass(frozen=True)
class Library:
    """A reference library's eager forms of the operations (numpy's run on the host)."""
    name: str
    module: object  # its ``.fft`` is the FFT module
    to_device: Callable  # a numpy array -> a new device array (asbuffer's equivalent)
    to_host: Callable  # a device array -> a new numpy array (read's equivalent)
    sync: Callable[[], object]
    axpy: Callable  # axpy(y, x): y += ALPHA * x, in place
    release: Callable[[], object]  # frees cached device memory between rows


def add_scaled(y, x) -> None:
    y += ALPHA * x


def libraries(numpy_too: bool) -> list[Library]:
    torch, cupy = torch_cuda(), cupy_cuda()
    libs = []
    if torch is not None:
        libs.append(Library("torch", torch, lambda a: torch.as_tensor(a, device="cuda"),
                            lambda t: t.cpu().numpy(), torch.cuda.synchronize,
                            partial(AXPY.torch_call, torch), torch.cuda.empty_cache))
    if cupy is not None:
        libs.append(Library("cupy", cupy, cupy.asarray, cupy.asnumpy,
                            cupy.cuda.Device().synchronize, add_scaled,
                            cupy.get_default_memory_pool().free_all_blocks))
    if numpy_too or not libs:
        libs.append(Library("numpy", np, np.array, np.array, lambda: None, add_scaled,
                            lambda: None))
    return libs


@dataclass
class Case:
    """One operation at one size, its data in place. ``ours(graph)`` makes one call of ours
    (eager when ``graph`` is None, else recorded into it) and returns what holds its result
    (a Buffer or an array); ``fresh()`` puts new random inputs in place and returns a function
    giving the relative error of a result of ours on them; ``refs``: each library's one call.
    ``waits``: each call waits for its own work (the immediate row). ``undo(graph)``: for
    in-place transforms, the normalised inverse, timed in turn with ``ours`` (see
    ``timers``)."""
    ours: Callable[[Optional[vd.CommandGraph]], object]
    fresh: Callable[[], Callable[[np.ndarray], float]]
    refs: dict[str, Callable[[], object]]
    replayable: bool = True
    waits: bool = False
    undo: Optional[Callable[[Optional[vd.CommandGraph]], object]] = None


def complex_normal(shape: tuple, rng: np.random.Generator) -> np.ndarray:
    count = 2 * int(np.prod(shape))
    return rng.standard_normal(count, dtype=np.float32).view(np.complex64).reshape(shape)


def floats(shape: tuple, rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32)


def fft_case(name: str, vkfft: bool = False) -> Callable:
    """Builds cases of benchmarks/fft.py's operation ``name`` (vd.fft's, or VkFFT's form of
    it): in place, a kernel of random unit phases for the convolutions (their repeated
    application keeps the norm). The transforms alternate with their normalised inverse
    (``undo``): repeated alone their values grow to inf, and a GPU that compresses memory
    (an H200) moves such data faster than a copy of random data."""
    op = FFT_OPS[name]
    record = op.vkfft if vkfft else op.ours
    inverse = op.vkfft_inverse if vkfft else op.inverse

    def build(shape: tuple, rng: np.random.Generator, libs: list[Library]) -> Case:
        host = complex_normal(shape, rng)
        kernel = unit_phases(host.size, rng).reshape(shape) if op.kernel else None
        buffer = vd.asbuffer(host)
        kernel_buffer = None if kernel is None else vd.asbuffer(kernel)

        def ours(graph):
            record(buffer, kernel_buffer, graph)
            return buffer

        def fresh():
            data = complex_normal(shape, rng)
            buffer.write(data)
            return Check(data, kernel, op, rng).error

        refs = {lib.name: partial(op.math, lib.module.fft, lib.to_device(host),
                                  None if kernel is None else lib.to_device(kernel))
                for lib in libs}
        def undo(graph):
            inverse(buffer, kernel_buffer, graph)
        return Case(ours, fresh, refs, undo=None if op.kernel else undo)
    return build


def sum_case(shape: tuple, rng: np.random.Generator, libs: list[Library]) -> Case:
    host = rng.random(shape, dtype=np.float32)
    buffer = vd.asbuffer(host)
    out = total(buffer)

    def ours(graph):
        return total(buffer) if graph is None else total(buffer, out=out, graph=graph)

    def fresh():
        data = rng.random(shape, dtype=np.float32)
        buffer.write(data)
        exact = np.array([data.sum(dtype=np.float64)])
        return lambda got: relative_error(got.reshape(-1)[:1], exact)

    return Case(ours, fresh, {lib.name: lib.to_device(host).sum for lib in libs})


def asbuffer_case(shape: tuple, rng: np.random.Generator, libs: list[Library]) -> Case:
    host = floats(shape, rng)

    def fresh():
        host[...] = floats(shape, rng)
        expected = host.copy()
        return lambda got: relative_error(got, expected)

    return Case(lambda graph: vd.asbuffer(host), fresh,
                {lib.name: partial(lib.to_device, host) for lib in libs}, replayable=False)


def read_case(shape: tuple, rng: np.random.Generator, libs: list[Library]) -> Case:
    buffer = vd.asbuffer(floats(shape, rng))

    def fresh():
        data = floats(shape, rng)
        buffer.write(data)
        return lambda got: relative_error(got, data)

    refs = {lib.name: partial(lib.to_host, lib.to_device(floats(shape, rng))) for lib in libs}
    return Case(lambda graph: buffer.read(0), fresh, refs, replayable=False)


def axpy_case(waits: bool) -> Callable:
    """Builds cases of the axpy shader call ``y = ALPHA * x + y`` (``waits``: each call
    followed by its wait, the immediate row)."""
    def build(shape: tuple, rng: np.random.Generator, libs: list[Library]) -> Case:
        y_host, x_host = floats(shape, rng), floats(shape, rng)
        y, x = vd.asbuffer(y_host), vd.asbuffer(x_host)

        def ours(graph):
            AXPY.ours(y, x, *AXPY.scalars, graph=graph)
            return y

        def fresh():
            y_new, x_new = floats(shape, rng), floats(shape, rng)
            y.write(y_new)
            x.write(x_new)
            expected = y_new.astype(np.float64) + ALPHA * x_new.astype(np.float64)
            return lambda got: relative_error(got, expected)

        refs = {lib.name: partial(lib.axpy, lib.to_device(y_host), lib.to_device(x_host))
                for lib in libs}
        return Case(ours, fresh, refs, waits=waits)
    return build


@dataclass(frozen=True)
class Op:
    """A row of the table: its title, the shapes (small, large on a GPU, large on a CPU
    device) and the function building its Case; ``in_bytes``: sizes shown in bytes."""
    name: str
    title: str
    shapes: tuple
    build: Callable
    in_bytes: bool = False


LINES = ((64, 256), (32768, 1024), (512, 1024))
LONG_LINES = ((2, 1 << 16), (32, 1 << 20), (2, 1 << 16))  # two passes (four-step) each
PLANES = ((2, 128, 128), (8, 1024, 1024), (2, 256, 256))
OPS = {op.name: op for op in (
    Op("convolve", "vd.fft.convolve, complex64", LINES, fft_case("convolve")),
    Op("convolve2D", "vd.fft.convolve2D, complex64", PLANES, fft_case("convolve2D")),
    Op("fft2", "vd.fft.fft2, complex64", PLANES, fft_case("fft2")),
    Op("sum", "vd.reduce sum, float32", ((4096,), (1 << 26,), (1 << 20,)), sum_case),
    Op("asbuffer", "vd.asbuffer, float32", ((1024,), (1 << 24,), (1 << 20,)), asbuffer_case,
       in_bytes=True),
    Op("vkfft", "vd.vkfft.fft, complex64", LINES, fft_case("fft", vkfft=True)),
    Op("fft", "vd.fft.fft, complex64", LINES, fft_case("fft")),
    Op("fft_long", "vd.fft.fft of long lines, complex64", LONG_LINES, fft_case("fft")),
    Op("axpy", "shader call (axpy), float32", ((4096,), (1 << 24,), (1 << 20,)),
       axpy_case(waits=False)),
    Op("read", "buffer read, float32", ((1024,), (1 << 24,), (1 << 20,)), read_case,
       in_bytes=True),
    Op("immediate", "immediate shader call + wait (axpy)", ((4096,), (1 << 24,), (1 << 20,)),
       axpy_case(waits=True)),
)}


def size_label(shape: tuple, in_bytes: bool) -> str:
    if in_bytes:
        nbytes = 4 * int(np.prod(shape))
        return f"{nbytes >> 20} MiB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KiB"
    if len(shape) == 3 and shape[1] == shape[2]:
        return f"{shape[0]} x {shape[1]}^2"
    if len(shape) == 1 and shape[0] >= 1 << 16:
        return f"2^{shape[0].bit_length() - 1}"
    return " x ".join(map(str, shape))


def waited(call: Callable, sync: Callable) -> Callable:
    return lambda: (call(), sync())


def replay_seconds(record: Callable, wait_each: bool, calls: int) -> float:
    """Seconds per submit (and wait, with ``wait_each``) of a graph holding what
    ``record(graph)`` records, submitted ``calls`` times and waited for at the end."""
    graph = vd.CommandGraph()
    record(graph)
    submit = waited(graph.submit, vd.queue_wait_idle) if wait_each else graph.submit
    seconds = eager_seconds(submit, vd.queue_wait_idle, calls)
    graph.destroy()
    return seconds


def unbatched(measure: Callable[[int], float]) -> Callable[[int], float]:
    """``measure`` with every call submitted at once (a submission window of 0)."""
    def run(calls: int) -> float:
        context = vd.get_context()
        window = context.submit_window_us
        context.submit_window_us = 0
        try:
            return measure(calls)
        finally:
            context.submit_window_us = window
    return run


def per_call(measure: Callable[[int], float], calls_each: int) -> Callable[[int], float]:
    """``measure`` of units of ``calls_each`` calls, in seconds per call (K calls in all)."""
    return lambda calls: measure(max(1, calls // calls_each)) / calls_each


def timers(case: Case, libs: list[Library]) -> dict[str, Callable[[int], float]]:
    """Each column's measurement: seconds per call over a given number of calls. With an
    ``undo``, ours is timed as pairs of the call and its undo, each half of a pair's time."""
    wait = vd.queue_wait_idle
    record, each = case.ours, 1
    if case.undo is not None:
        def record(graph):
            case.ours(graph)
            case.undo(graph)
        each = 2
    eager = partial(record, None)
    result = {"eager": per_call(partial(eager_seconds, waited(eager, wait) if case.waits
                                        else eager, wait), each)}
    result["unbatched"] = unbatched(result["eager"])
    if case.replayable:
        result["replay"] = per_call(partial(replay_seconds, record, case.waits), each)
        result["instances"] = per_call(partial(gpu_seconds, record), each)
    for lib in libs:
        call = case.refs[lib.name]
        result[lib.name] = partial(eager_seconds, waited(call, lib.sync) if case.waits else call,
                                   lib.sync)
    return result


def check(case: Case) -> float:
    """The larger relative error of ours eager and ours replayed, each once on fresh data."""
    errors = []
    for replayed in (False, True) if case.replayable else (False,):
        compare = case.fresh()
        graph = vd.CommandGraph() if replayed else None
        got = case.ours(graph)
        if replayed:
            graph.submit()
        vd.queue_wait_idle()
        errors.append(compare(got.read(0) if isinstance(got, vd.Buffer) else got))
        if replayed:
            graph.destroy()
    return max(errors)


def measure_row(op: Op, shape: tuple, args, libs: list[Library], rng) -> dict:
    """calls, the median seconds per call of each column, and ours' error."""
    case = op.build(shape, rng, libs)
    measures = timers(case, libs)
    slowest = max(measure(1) for measure in measures.values())  # also warms every column up
    calls = max(MIN_CALLS, min(args.calls, int(args.budget / slowest)))
    samples: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(args.repeats):
        for name, measure in measures.items():
            samples[name].append(measure(calls))
    row = {name: statistics.median(values) for name, values in samples.items()}
    row.update(calls=calls, error=check(case))
    del case, measures  # the references' arrays, so that release() can free their memory
    for lib in libs:
        lib.release()
    return row


def cell(seconds: Optional[float]) -> str:
    return "n/a" if seconds is None else f"{seconds * 1e6:.1f}"


def ratio(numerator: Optional[float], denominator: Optional[float]) -> str:
    return "n/a" if numerator is None or denominator is None else f"{numerator / denominator:.2f}"


def print_table(args, libs: list[Library], rng) -> bool:
    """Measures and prints each row as it comes; False when a result of ours was WRONG."""
    header = ["operation", "size", "calls", "ours eager us", "ours unbatched us",
              "ours replay us", "eager/replay", "ours instance_count us"]
    for lib in libs:
        header += [f"{lib.name} us", f"{lib.name}/ours"]
    header.append("error")
    print("| " + " | ".join(header) + " |")
    print("|---|---|" + "|".join("--:" for _ in header[2:]) + "|", flush=True)
    choice = {"small": 0, "large": 2 if args.cpu else 1}
    ok = True
    for op in (OPS[name] for name in args.ops):
        for size in args.sizes:
            shape = op.shapes[choice[size]]
            row = measure_row(op, shape, args, libs, rng)
            eager, replay = row["eager"], row.get("replay")
            wrong = not row["error"] <= TOLERANCE
            ok = ok and not wrong
            cells = [op.title, size_label(shape, op.in_bytes), str(row["calls"]), cell(eager),
                     cell(row["unbatched"]), cell(replay), ratio(eager, replay),
                     cell(row.get("instances"))]
            for lib in libs:
                cells += [cell(row[lib.name]), ratio(row[lib.name], eager)]
            cells.append(f"{row['error']:.1e}" + (" WRONG" if wrong else ""))
            print("| " + " | ".join(cells) + " |", flush=True)
    print("\nus per call. eager/replay: ours eager / ours replayed from a graph, one submission "
          "per call (target at most 1.2). instance_count: K replays in one submission. "
          "<ref>/ours: the reference's eager time / ours eager (at least 1: ours is faster). "
          f"error: ours against numpy in float64 (WRONG above {TOLERANCE:g}).")
    return ok


VKFFT_FIRST_CALL = textwrap.dedent("""
    import time
    import numpy as np
    import vkdispatch as vd
    buffer = vd.asbuffer(np.ones((64, 256), np.complex64))
    vd.queue_wait_idle()
    start = time.perf_counter()
    vd.vkfft.fft(buffer)
    vd.queue_wait_idle()
    print(1e3 * (time.perf_counter() - start))
""")


def vkfft_first_call(cache: str) -> tuple[float, float]:
    """ms of the first vd.vkfft.fft call + wait in a new process with XDG_CACHE_HOME =
    ``cache``, and that process's wall seconds."""
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", VKFFT_FIRST_CALL], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1]), time.perf_counter() - start


def print_first_use(repeats: int) -> None:
    first_kernel, second_kernel = new_kernel_ms(runs=1 + repeats)
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(vkfft_first_call(cache))
            warm.append(vkfft_first_call(cache))
    print(f"\nFirst use, new processes (medians of {repeats})\n")
    print("| figure | ms | process s |\n|---|--:|--:|")
    print(f"| new shader: decorate + build + first call + wait, warm disk cache (target <= 5) | "
          f"{first_kernel:.2f} | |")
    print(f"| another new shader in that process | {second_kernel:.2f} | |")
    for label, runs in (("cold: empty cache", cold), ("warm: the cache the cold one left", warm)):
        print(f"| first vd.vkfft.fft (64 x 256) + wait, {label} | "
              f"{statistics.median(ms for ms, _ in runs):.1f} | "
              f"{statistics.median(s for _, s in runs):.2f} |")


def options(cpu: bool) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", nargs="*", choices=list(OPS), default=list(OPS),
                        help="the operations (default all; none: only --first-use)")
    parser.add_argument("--sizes", nargs="+", choices=["small", "large"],
                        default=["small", "large"])
    parser.add_argument("--calls", type=int, help="most calls per measurement (default 1000; "
                        "CPU device 200)")
    parser.add_argument("--budget", type=float, help="seconds a measurement may take before "
                        "calls shrink (default 0.3; CPU device 0.1)")
    parser.add_argument("--repeats", type=int, help="measurements per figure (default 5; CPU "
                        "device 3)")
    parser.add_argument("--numpy", action="store_true",
                        help="time numpy as well (default: only when torch and cupy are absent)")
    parser.add_argument("--first-use", action="store_true",
                        help="time a new shader's first call and a cold VkFFT plan in new "
                        "processes")
    args = parser.parse_args()
    args.cpu = cpu
    for name, (gpu_value, cpu_value) in DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, cpu_value if cpu else gpu_value)
    return args


def main() -> None:
    info = vd.get_context().device_infos[0]
    args = options(is_cpu_device(info))
    libs = libraries(args.numpy)
    print(f"device: {info.device_name}; submission window: "
          f"{vd.get_context().submit_window_us} us; references: "
          f"{', '.join(lib.name for lib in libs)}\n")
    ok = print_table(args, libs, np.random.default_rng(0)) if args.ops else True
    if args.first_use:
        print_first_use(args.repeats)
    if not ok:
        raise SystemExit("ours gave WRONG results (see the error column)")


if __name__ == "__main__":
    main()
