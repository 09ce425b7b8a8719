"""vd.fft's generated FFT and fused convolution beside cuFFT (torch, cupy), numpy, a copy.

Batched 1-D complex-to-complex float32 FFTs (complex64 buffers of shape (batch, N), transformed
in place along the last axis by ``vd.fft.fft``) for N = 2^3..2^12 (--large adds 2^13..2^16,
which take several passes; --lengths adds any others, such as primes above 31, which run
Rader's or Bluestein's algorithm), with batch = --mib MiB / (8 N bytes); then batched 2-D FFTs
(``vd.fft.fft2``, shape (batch, N, N), two dispatches) for N = 512..4096. Each of ours is one
``vd.CommandGraph`` recorded once and submitted with ``instance_count`` replays (enough for
--total-mib MiB transformed in all, at least --replays), so the submission and the final wait
are amortised; one untimed submission precedes each timed one. GB/s = 2 x bytes / time per
transform: the array read once and written once, the least any FFT must move.

The FFT tables and the 2-D convolution table also time VkFFT through ``vd.vkfft`` (same
graph replays, its own buffer): ``vkfft GB/s`` (or ms), ``vkfft/torch`` = torch's time / VkFFT's
(target on an H100: at least 0.95 at every N = 8..4096, none under 0.8), and its error.

References measured in the same run, each in turn with ours (every figure is the median of
--repeats interleaved measurements; hosts drift within a minute):

* copy: ``vd.copy`` of the same bytes between two buffers, replayed in a graph like ours (on a
  GPU our copy kernel, which reaches torch's ``copy_``): the bandwidth ceiling of any
  transform that reads and writes the array once. ours/copy is the share of it we reach
  (target: at least 0.9).
* torch: ``torch.fft.fft`` / ``torch.fft.fft2`` (cuFFT, out of place) where torch with CUDA is
  installed, the same number of calls captured once in a CUDA graph and replayed by one
  ``graph.replay()`` + synchronize: like for like, one submission of many transforms.
  ours/torch above 1: ours is faster (target: at least 1 at every N = 8..4096).
* cupy: ``cupy.fft.fft`` / ``fft2`` (cuFFT) where cupy with CUDA is installed, an eager loop
  of as many calls + synchronize (its launch gaps count against it, a few microseconds per
  transform of tens to hundreds).
* numpy: ``np.fft.fft`` / ``fft2`` on the host, one call per measurement, where neither torch
  nor cupy is usable (a CPU device such as lavapipe) or with --numpy.

A size our FFT rejects (ValueError) prints n/a in our columns and the reason below the table;
the references still run. After the timed runs each transform runs once more on fresh random
data: ours prints its relative error (L2 norm of the difference over that of numpy's complex128
transform, on a sample of rows or images); above 1e-4 it is marked WRONG and the script exits
with status 1 after all tables. The references' results are checked the same way (a failure
there stops the script).

Our FFTs (and VkFFT's) run in place, so the timed graph holds a forward transform followed by
the normalised inverse, and each transform's time is half of the pair's: a buffer transformed
forward over and over grows past float32's range into inf and NaN, and some GPUs compress
memory filled with those (an H200 then ran N = 256 at 1.47x the copy's bandwidth).

Then (unless --no-conv) the fused convolutions, in place: ``vd.fft.convolve(x, k)`` along the
last axis of (batch, N) for N = 2^8..2^12 (--conv-sizes) at the same --mib, and
``vd.fft.convolve2D(x, K)`` over the last two axes of (batch, N, N) for N = 512..4096
(--conv-two-d, CPU device 64..256; three dispatches), each ``ifft(fft(x) * conj(k))`` with k a
complex64 spectrum shaped like x (one per row or image). These tables print ms per convolution
and effective GB/s = 3 x bytes / time: x read, k read and the result written, the least a
one-pass pipeline moves (for 2-D the same 3 x bytes, although ours makes three passes). The
copy column is the same copy of the array's bytes (2 x bytes / time), so ours/copy is the share
of the copy's bandwidth that the effective rate reaches (target about 0.9: near the one-pass
floor). The references compute the same formula unfused: torch ``ifft(fft(x) * k.conj())``
(``ifft2`` / ``fft2`` for 2-D) in a CUDA graph, cupy eagerly, numpy on the host; ``{ref} ms``
is the reference's time and ours/{ref} = its time / ours, the speed-up (target on an H100: at
least 3.3 at N = 1024, at least 2 for 2-D). The kernels are random unit-modulus phases, so
convolving over and over in place keeps the values' norm (nothing overflows), and the error
column compares ours after one run on fresh data with numpy's complex128 result.

The zero-padded 2-D convolution table (--padded, same N and batches as convolve2D) convolves a
signal that fills only the top-left N/4 x N/4 of each N x N plane (a template in an image):
ours as a user writes it with three vd.fft calls that never read or write the zeros (the row
FFT of the first N/4 rows, reading their first N/4 samples, through hooks that place the rows
in each plane; the column convolution with ``input_signal_range=(0, N/4)``; the inverse row
FFT); the references transform the zero-padded planes (what a torch user writes). Effective
GB/s counts the same 3 x bytes of the whole planes.

    python benchmarks/fft.py [--sizes 3 4 ... 12] [--large] [--lengths 17 1009 ...] [--mib 256]
                             [--two-d 512 1024]
                             [--repeats 5] [--numpy] [--no-conv] [--conv-sizes 8 ... 12]
                             [--conv-two-d 512 ... 4096] [--padded 512 ... 4096]
"""
from __future__ import annotations

import argparse
import functools
import statistics
import time
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

import vkdispatch as vd
from vkdispatch.codegen.abbreviations import Buff, c64

from graph_timing import graph_replay_seconds, timed_seconds  # benchmarks/graph_timing.py
from torch_reference import torch_cuda  # benchmarks/torch_reference.py

CPU_DEVICE = 4          # DeviceInfo.device_type of CPU implementations (lavapipe)
TOLERANCE = 1e-4        # relative L2 error above which a transform counts as wrong
CHECK_ELEMENTS = 1 << 20  # about this many elements of each result are compared with numpy
TORCH_WARMUP_CALLS = 3  # on a side stream before the CUDA graph capture
TWO_D = ([512, 1024, 2048, 4096], [64, 128, 256])
DEFAULTS = {  # option: (GPU default, CPU-device default)
    "mib": (256, 8), "two_d": TWO_D, "conv_two_d": TWO_D, "padded": TWO_D,
    "repeats": (5, 3), "replays": (20, 3), "total_mib": (4096, 32),
}


@dataclass(frozen=True)
class Op:
    """One benchmarked operation, ``name`` as in vd.fft. ``math(fft, x, k, **out)`` computes
    it with ``fft`` = np.fft, torch.fft or cupy.fft (``out=`` only from numpy);
    ``ours(buffer, kernel, graph)`` records ours in a graph, in place; ``moved``: arrays a
    one-pass pipeline reads or writes (GB/s = moved x bytes / time); ``kernel``: it takes a
    spectrum shaped like x; ``vkfft(buffer, kernel, graph)`` records the same with vd.vkfft
    (None: no VkFFT column)."""
    name: str
    title: str
    math: Callable
    ours: Callable
    moved: int = 2
    kernel: bool = False
    vkfft: Optional[Callable] = None
    # The inverses that keep an in-place transform's values bounded in the timed graphs.
    inverse: Optional[Callable] = None
    vkfft_inverse: Optional[Callable] = None
    # The input as this op takes it (the zero-padded signal of a padded convolution).
    signal: Callable[[np.ndarray], np.ndarray] = lambda host: host


PAD_FRACTION = 4  # a padded convolution's signal is N / 4 x N / 4 of its N x N plane


def corner(host: np.ndarray) -> np.ndarray:
    """``host`` with every element outside the top-left ``N/4 x N/4`` of each plane zero."""
    side = host.shape[-1] // PAD_FRACTION
    padded = np.zeros_like(host)
    padded[:, :side, :side] = host[:, :side, :side]
    return padded


def padded_convolve2D(buffer, kernel, graph) -> None:
    """The convolution of a signal that fills the top-left ``K x K`` of each ``N x N`` plane
    (K = N / 4, zeros elsewhere, never read) with ``conj(kernel)``, as a user writes it: the
    row transform of the first K rows (their first K samples read, the rows' places in each
    plane found by the hooks), the fused column convolution reading K rows, the inverse row
    transform of every row."""
    batch, n = buffer.shape[0], buffer.shape[-1]
    side = n // PAD_FRACTION
    rows_in, rows_out = plane_rows(n, side)
    vd.fft.fft(buffer, buffer, buffer_shape=(batch, side, n), input_signal_range=(0, side),
               input_map=rows_in, output_map=rows_out, graph=graph)
    vd.fft.convolve(buffer, kernel, axis=1, input_signal_range=(0, side), graph=graph)
    vd.fft.ifft(buffer, graph=graph)


@functools.lru_cache(maxsize=None)
def plane_rows(n: int, side: int):
    """Hooks that place row ``r`` of ``side`` rows of plane ``b`` at row ``r`` of an ``n x n``
    plane (one object per shape: equal hooks share a cached shader)."""
    block, plane = side * n, n * n

    @vd.map
    def rows_in(source: Buff[c64]):
        op = vd.fft.read_op()
        op.read_from_buffer(source, io_index=(op.io_index // block) * plane
                            + op.io_index % block)

    @vd.map
    def rows_out(target: Buff[c64]):
        op = vd.fft.write_op()
        op.write_to_buffer(target, io_index=(op.io_index // block) * plane
                           + op.io_index % block)
    return rows_in, rows_out


def transform_op(name: str, title: str) -> Op:
    """The transform ``name`` (and its inverse ``i{name}``) of every library: the
    references' module, ``vd.fft`` and ``vd.vkfft`` each call the function of that name."""
    def ours(module, function):
        return lambda buffer, kernel, graph: getattr(module, function)(buffer, graph=graph)
    return Op(name, title, lambda fft, x, k, **out: getattr(fft, name)(x, **out),
              ours(vd.fft, name), vkfft=ours(vd.vkfft, name),
              inverse=ours(vd.fft, "i" + name), vkfft_inverse=ours(vd.vkfft, "i" + name))


CONV_TITLE = "(vd.fft.{}), ms and effective GB/s = 3 x bytes / time"
OPS = {op.name: op for op in (
    transform_op("fft", "Batched 1-D C2C complex64 FFT along the last axis (vd.fft.fft), GB/s"),
    transform_op("fft2", "Batched 2-D C2C complex64 FFT, N x N (vd.fft.fft2), GB/s"),
    Op("convolve", "Batched 1-D convolution ifft(fft(x) * conj(k)) along the last axis "
       + CONV_TITLE.format("convolve"),
       lambda fft, x, k, **out: fft.ifft(fft.fft(x) * k.conj(), **out),
       lambda buffer, kernel, graph: vd.fft.convolve(buffer, kernel, graph=graph),
       moved=3, kernel=True),
    Op("convolve2D", "Batched 2-D convolution ifft2(fft2(x) * conj(K)), N x N "
       + CONV_TITLE.format("convolve2D"),
       lambda fft, x, k, **out: fft.ifft2(fft.fft2(x) * k.conj(), **out),
       lambda buffer, kernel, graph: vd.fft.convolve2D(buffer, kernel, graph=graph),
       moved=3, kernel=True,
       vkfft=lambda buffer, kernel, graph: vd.vkfft.convolve2D(
           buffer, kernel, normalize=True, conjugate_kernel=True, graph=graph)),
    Op("padded", "Batched zero-padded 2-D convolution ifft2(fft2(x) * conj(K)), N x N, x "
       "zero outside its top-left N/4 x N/4 (three vd.fft calls that skip the zeros), ms and "
       "effective GB/s = 3 x bytes / time",
       lambda fft, x, k, **out: fft.ifft2(fft.fft2(x) * k.conj(), **out),
       padded_convolve2D, moved=3, kernel=True, signal=corner),
)}


def cupy_cuda():
    """cupy when it is installed and sees a CUDA device, else None."""
    try:
        import cupy
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # not installed, no driver, no device: no cupy column
        return None


def relative_error(got: np.ndarray, expected: np.ndarray) -> float:
    diff = np.asarray(got, np.complex128) - expected
    return float(np.linalg.norm(diff) / max(np.linalg.norm(expected), 1e-300))


def wide(array: Optional[np.ndarray]) -> Optional[np.ndarray]:
    return None if array is None else array.astype(np.complex128)


class Check:
    """A sample of the items (rows, or images for 2-D) of one input and numpy's result of
    ``op`` on them in complex128, to compare results with."""

    def __init__(self, host: np.ndarray, kernel: Optional[np.ndarray], op: Op,
                 rng: np.random.Generator):
        batch, item = host.shape[0], host[0].size
        count = max(2, min(batch, CHECK_ELEMENTS // item))
        picks = np.concatenate(([0, batch - 1], rng.integers(0, batch, count)))
        self.items = np.unique(picks)[:count]
        sample = None if kernel is None else kernel[self.items]
        self.expected = op.math(np.fft, wide(host[self.items]), wide(sample))

    def error(self, result: np.ndarray) -> float:
        return relative_error(result[self.items], self.expected)

    def require(self, name: str, result: np.ndarray) -> None:
        error = self.error(result)
        if not error <= TOLERANCE:
            raise AssertionError(f"{name}: relative error {error:.2e} against numpy")


class GraphTimer:
    """One graph, recorded once by ``record(graph)``; seconds per replay of it, divided by the
    ``transforms`` it holds."""

    def __init__(self, record: Callable[[vd.CommandGraph], None], replays: int,
                 transforms: int = 1):
        self.replays, self.transforms = -(-replays // transforms), transforms
        self.graph = vd.CommandGraph()
        try:
            record(self.graph)
        except BaseException:
            self.graph.destroy()
            raise

    def seconds(self) -> float:
        return graph_replay_seconds(self.graph, self.replays) / self.transforms

    def run_once(self) -> None:
        self.graph.submit()
        vd.queue_wait_idle()

    def destroy(self) -> None:
        self.graph.destroy()


class TorchFFT:
    """``op.math(torch.fft, x, k)`` (out of place), ``replays`` calls captured once in a CUDA
    graph."""

    def __init__(self, torch, host: np.ndarray, kernel: Optional[np.ndarray], op: Op,
                 replays: int):
        self.torch, self.replays = torch, replays
        self.x = torch.from_numpy(host).cuda()
        self.k = None if kernel is None else torch.from_numpy(kernel).cuda()

        def call():
            return op.math(torch.fft, self.x, self.k)
        # Warm up on a side stream before capturing (makes the cuFFT plans), as torch asks.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(TORCH_WARMUP_CALLS):
                self.y = call()
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):  # records the calls, runs none of them
            for _ in range(replays):
                self.y = call()  # outputs reuse the graph's pool: y is the last one
        torch.cuda.synchronize()

    def seconds(self) -> float:
        return timed_seconds(self._replay) / self.replays

    def _replay(self) -> None:
        self.graph.replay()
        self.torch.cuda.synchronize()

    def result(self) -> np.ndarray:
        return self.y.cpu().numpy()

    def close(self) -> None:
        del self.graph, self.x, self.k, self.y
        self.torch.backends.cuda.cufft_plan_cache.clear()
        self.torch.cuda.empty_cache()


class CupyFFT:
    """``op.math(cupy.fft, x, k)``, an eager loop of ``replays`` calls + synchronize."""

    def __init__(self, cupy, host: np.ndarray, kernel: Optional[np.ndarray], op: Op,
                 replays: int):
        self.cupy, self.replays = cupy, replays
        self.x = cupy.asarray(host)
        self.k = None if kernel is None else cupy.asarray(kernel)
        self.call = lambda: op.math(cupy.fft, self.x, self.k)
        self.y = self.call()  # makes and caches the plans
        cupy.cuda.Device().synchronize()

    def seconds(self) -> float:
        return timed_seconds(self._calls) / self.replays

    def _calls(self) -> None:
        for _ in range(self.replays):
            self.y = self.call()
        self.cupy.cuda.Device().synchronize()

    def result(self) -> np.ndarray:
        return self.cupy.asnumpy(self.y)

    def close(self) -> None:
        del self.x, self.k, self.y
        self.cupy.fft.config.get_plan_cache().clear()
        self.cupy.get_default_memory_pool().free_all_blocks()


class NumpyFFT:
    """``op.math(np.fft, host, kernel, out=...)``, one call per measurement (on the host)."""

    def __init__(self, host: np.ndarray, kernel: Optional[np.ndarray], op: Op):
        out = np.empty_like(host)
        self.call = lambda: op.math(np.fft, host, kernel, out=out)
        self.y = self.call()  # faults the output's pages in

    def seconds(self) -> float:
        start = time.perf_counter()
        self.y = self.call()  # out, except from numpy's fft2 / ifft2, which return a new array
        return time.perf_counter() - start

    def result(self) -> np.ndarray:
        return self.y

    def close(self) -> None:
        del self.y, self.call


class CopyPairs:
    """Source and destination buffers for the copy reference, one pair per byte count (the
    sizes of a table all move the same bytes unless --mib is below one item)."""

    def __init__(self, host: np.ndarray):
        self.host, self.pairs = host, {}

    def get(self, count: int):
        if count not in self.pairs:
            src, dst = vd.Buffer((count,), vd.complex64), vd.Buffer((count,), vd.complex64)
            src.write(self.host[:count])
            self.pairs[count] = (src, dst)
        return self.pairs[count]

    def check(self, count: int) -> None:
        src, dst = self.pairs[count]
        np.testing.assert_array_equal(dst.read(0), self.host[:count], err_msg="vd.copy")

    def destroy(self) -> None:
        for src, dst in self.pairs.values():
            src.destroy()
            dst.destroy()
        self.pairs.clear()


def references(host: np.ndarray, kernel: Optional[np.ndarray], op: Op, replays: int,
               libs: dict) -> dict:
    """The references that apply: name -> object with seconds(), result(), close()."""
    refs = {}
    if libs["torch"] is not None:
        refs["torch"] = TorchFFT(libs["torch"], host, kernel, op, replays)
    if libs["cupy"] is not None:
        refs["cupy"] = CupyFFT(libs["cupy"], host, kernel, op, replays)
    if libs["numpy"]:
        refs["numpy"] = NumpyFFT(host, kernel, op)
    return refs


def round_trips(forward: Callable, inverse: Optional[Callable], buffer, kernel,
                replays: int) -> GraphTimer:
    """A timer of ``forward`` on ``buffer`` (then ``inverse``, when given, which brings the
    values back), per transform."""
    def record(graph):
        forward(buffer, kernel, graph)
        if inverse is not None:
            inverse(buffer, kernel, graph)
    return GraphTimer(record, replays, 1 if inverse is None else 2)


def measure_row(host: np.ndarray, kernel: Optional[np.ndarray], op: Op, args, libs: dict,
                copies: CopyPairs, rng: np.random.Generator) -> dict:
    """Median seconds of ours (None where ours rejects the size), the copy and each reference,
    for one input (and kernel); ``bytes``: the input's; ``error``: ours against numpy;
    ``reason``: why ours is None."""
    nbytes, count = host.nbytes, host.size
    replays = max(args.replays, -(-args.total_mib * 2**20 // nbytes))
    row: dict = {"reason": None, "error": None, "ours": None, "bytes": nbytes, "vkfft": None,
                 "vkfft error": None}
    buffers = [vd.Buffer(host.shape, vd.complex64) for _ in range(2 + op.kernel)]
    for buffer, data in zip(buffers, (host, kernel) if op.kernel else (host,)):
        buffer.write(data)
    kernel_buffer = buffers[1] if op.kernel else None
    vkfft_buffer = buffers[-1]
    src, dst = copies.get(count)
    timers = {"copy": GraphTimer(lambda g: vd.copy(dst, src, graph=g), replays)}
    vkfft_kernel = None
    if op.vkfft is not None and op.kernel:
        # VkFFT multiplies by kernels in its own layout: the spectrum of ifft2(K), prepared once.
        vkfft_kernel = vd.asbuffer(np.fft.ifft2(kernel).astype(np.complex64))
        vd.vkfft.transpose_kernel2D(vkfft_kernel)
        buffers.append(vkfft_kernel)
    if op.vkfft is not None:
        vkfft_buffer.write(host)
        timers["vkfft"] = round_trips(op.vkfft, op.vkfft_inverse, vkfft_buffer, vkfft_kernel,
                                      replays)
        timers["vkfft"].run_once()  # builds the plan
    try:
        timers["ours"] = round_trips(op.ours, op.inverse, buffers[0], kernel_buffer, replays)
        timers["ours"].run_once()  # builds the kernels; a size can be refused here too
    except ValueError as error:
        row["reason"] = f"{type(error).__name__}: {error}"
        if "ours" in timers:
            timers.pop("ours").destroy()
    refs = references(host, kernel, op, replays, libs)
    measures = {name: timer.seconds for name, timer in timers.items()}
    measures.update({name: ref.seconds for name, ref in refs.items()})
    samples: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(args.repeats):
        for name, measure in measures.items():
            samples[name].append(measure())
    row.update({name: statistics.median(values) for name, values in samples.items()})

    check = Check(host, kernel, op, rng)
    copies.check(count)
    for name, ref in refs.items():
        check.require(f"{name} {op.name} of shape {host.shape}", ref.result())
        ref.close()
    if "ours" in timers:
        buffers[0].write(host)  # fresh data through the timed transform, once
        op.ours(buffers[0], kernel_buffer, None)
        row["error"] = check.error(buffers[0].read(0))
    if "vkfft" in timers:
        vkfft_buffer.write(host)
        op.vkfft(vkfft_buffer, vkfft_kernel, None)
        row["vkfft error"] = check.error(vkfft_buffer.read(0))
    for timer in timers.values():
        timer.destroy()
    for buffer in buffers:
        buffer.destroy()
    return row


def cell(value, width: int, spec: str) -> str:
    return f"{value:>{width}{spec}}" if value is not None else f"{'-':>{width}}"


def ratio(numerator, denominator):
    return numerator / denominator if numerator is not None and denominator else None


def milliseconds(seconds):
    return None if seconds is None else 1e3 * seconds


def print_table(op: Op, rows: list[tuple[str, int, dict]], libs: dict) -> bool:
    """Prints one markdown table; False when a row of ours was WRONG. FFT tables give each
    reference's GB/s, convolution tables (op.kernel) its ms, and ours' ms as well; ours/{ref}
    is the reference's time over ours either way (the speed-up)."""
    refs = [name for name in ("torch", "cupy", "numpy") if libs[name]]
    columns = [("N", 9), ("batch", 9)] + [("ours ms", 9)] * op.kernel
    columns += [("ours GB/s", 9), ("copy GB/s", 9), ("ours/copy", 9)]
    for name in refs:
        columns.append((f"{name} {'ms' if op.kernel else 'GB/s'}", 10))
        if name != "numpy":
            columns.append((f"ours/{name}", 10))
    if op.vkfft is not None:
        columns.append((f"vkfft {'ms' if op.kernel else 'GB/s'}", 10))
        columns += [(f"vkfft/{name}", 11) for name in refs if name != "numpy"]
        columns.append(("vkfft error", 16))
    columns.append(("ours error", 16))
    print(f"\n{op.title}\n")
    print("| " + " | ".join(f"{name:>{width}}" for name, width in columns) + " |")
    print("|" + "|".join("-" * (width + 1) + ":" for _name, width in columns) + "|")
    ok = True
    for label, batch, row in rows:
        rates = {name: ratio((2 if name == "copy" else op.moved) * row["bytes"] / 1e9,
                             row[name]) for name in ["ours", "copy", "vkfft"] + refs}
        cells = [f"{label:>9}", f"{batch:>9}"]
        cells += [cell(milliseconds(row["ours"]), 9, ".3f")] * op.kernel
        cells += [cell(rates["ours"], 9, ".1f") if row["reason"] is None else f"{'n/a':>9}",
                  cell(rates["copy"], 9, ".1f"), cell(ratio(rates["ours"], rates["copy"]), 9,
                                                      ".2f")]
        for name in refs:
            cells.append(cell(milliseconds(row[name]), 10, ".3f") if op.kernel
                         else cell(rates[name], 10, ".1f"))
            if name != "numpy":
                cells.append(cell(ratio(row[name], row["ours"]), 10, ".2f"))
        if op.vkfft is not None:
            cells.append(cell(milliseconds(row["vkfft"]), 10, ".3f") if op.kernel
                         else cell(rates["vkfft"], 10, ".1f"))
            cells += [cell(ratio(row[name], row["vkfft"]), 11, ".2f") for name in refs
                      if name != "numpy"]
        for error in ([row["vkfft error"]] if op.vkfft is not None else []) + [row["error"]]:
            wrong = error is not None and not error <= TOLERANCE
            ok = ok and not wrong
            text = f"{error:.1e}" + (" WRONG" if wrong else "") if error is not None else "-"
            cells.append(f"{text:>16}")
        print("| " + " | ".join(cells) + " |")
    refused = [(label, row["reason"]) for label, _batch, row in rows if row["reason"]]
    if refused:
        print()
    for label, reason in refused:
        print(f"ours at N = {label}: n/a ({reason})")
    return ok


def options(device_type: int) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=list(range(3, 13)),
                        help="log2 N of the 1-D transforms (default 3..12; none: only --lengths)")
    parser.add_argument("--large", action="store_true", help="add log2 N = 13..16")
    parser.add_argument("--lengths", type=int, nargs="*", default=[],
                        help="more 1-D lengths, any N (primes above 31: Rader's or "
                             "Bluestein's algorithm)")
    parser.add_argument("--mib", type=int, help="MiB per batch (default 256; CPU device 8)")
    parser.add_argument("--two-d", type=int, nargs="*",
                        help="N of the N x N transforms (default 512..4096; CPU device 64..256; "
                        "none: no 2-D table)")
    parser.add_argument("--conv", action=argparse.BooleanOptionalAction, default=True,
                        help="the convolution tables (default: on)")
    parser.add_argument("--conv-sizes", type=int, nargs="*", default=list(range(8, 13)),
                        help="log2 N of the 1-D convolutions (default 8..12; none: no table)")
    parser.add_argument("--conv-two-d", type=int, nargs="*",
                        help="N of the N x N convolutions (default 512..4096; CPU device "
                        "64..256; none: no table)")
    parser.add_argument("--padded", type=int, nargs="*",
                        help="N of the N x N zero-padded convolutions (default 512..4096; CPU "
                        "device 64..256; none: no table)")
    parser.add_argument("--repeats", type=int, help="measurements per figure (default 5)")
    parser.add_argument("--replays", type=int, help="least transforms per measurement")
    parser.add_argument("--total-mib", type=int,
                        help="replay each transform for at least this many MiB per measurement")
    parser.add_argument("--numpy", action="store_true",
                        help="time numpy as well (default: only when torch and cupy are absent)")
    args = parser.parse_args()
    cpu = device_type == CPU_DEVICE
    for name, (gpu_value, cpu_value) in DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, cpu_value if cpu else gpu_value)
    if args.large:
        args.sizes = sorted(set(args.sizes) | set(range(13, 17)))
    if not args.conv:
        args.conv_sizes, args.conv_two_d, args.padded = [], [], []
    return args


def run_table(shapes: list[tuple[str, tuple[int, ...]]], op: Op, args, libs: dict,
              data: tuple, copies: CopyPairs, rng) -> list[tuple[str, int, dict]]:
    """Rows of one table; ``data``: the host input and kernel (None without --conv) that each
    shape takes its first elements of."""
    limit = vd.get_context().device_infos[0].max_storage_buffer_range
    rows = []
    for label, shape in shapes:
        host, kernel = (None if array is None else array[:int(np.prod(shape))].reshape(shape)
                        for array in data)
        if host.nbytes > limit:
            print(f"N = {label}: skipped, {host.nbytes} bytes exceed this device's storage "
                  f"buffer range ({limit})")
            continue
        kernel = kernel if op.kernel else None
        host = op.signal(host)
        rows.append((label, shape[0], measure_row(host, kernel, op, args, libs, copies, rng)))
    return rows


def unit_phases(count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` random complex64 values of modulus 1: a convolution by them keeps the norm."""
    angle = rng.uniform(0, 2 * np.pi, count).astype(np.float32)
    phases = np.empty(count, np.complex64)
    phases.real, phases.imag = np.cos(angle), np.sin(angle)
    return phases


def main() -> None:
    torch, cupy = torch_cuda(), cupy_cuda()
    info = vd.get_context().device_infos[0]
    args = options(info.device_type)
    libs = {"torch": torch, "cupy": cupy, "numpy": args.numpy or (torch is None and cupy is None)}
    nbytes = args.mib * 2**20

    def lines(logs):
        return [(str(1 << k), (max(1, nbytes // (8 << k)), 1 << k)) for k in logs]

    def planes(sides):
        return [(f"{n}^2", (max(1, nbytes // (8 * n * n)), n, n)) for n in sides]
    lengths = [(str(n), (max(1, nbytes // (8 * n)), n)) for n in args.lengths]
    tables = [("fft", lines(args.sizes) + lengths), ("fft2", planes(args.two_d)),
              ("convolve", lines(args.conv_sizes)), ("convolve2D", planes(args.conv_two_d)),
              ("padded", planes(args.padded))]
    tables = [(OPS[name], shapes) for name, shapes in tables if shapes]
    largest = max(int(np.prod(shape)) for _op, shapes in tables for _label, shape in shapes)
    rng = np.random.default_rng(0)
    host = rng.standard_normal(2 * largest, dtype=np.float32).view(np.complex64)
    kernel = unit_phases(largest, rng) if any(op.kernel for op, _shapes in tables) else None
    print(f"device: {info.device_name}; batches of {args.mib} MiB; "
          f"references: {', '.join(name for name, used in libs.items() if used) or 'none'}")
    copies = CopyPairs(host)
    ok = True
    for op, shapes in tables:
        rows = run_table(shapes, op, args, libs, (host, kernel), copies, rng)
        ok = print_table(op, rows, libs) and ok
    copies.destroy()
    print("\nFFTs: GB/s = 2 x bytes / time per transform. Convolutions: effective GB/s = 3 x "
          "bytes / time\n(x and k read, the result written: a one-pass pipeline's least, for "
          "2-D as well). copy GB/s:\n2 x bytes / time of a device copy of the same bytes; "
          "ours/copy: the share of its bandwidth\nthat ours reaches (target >= 0.9). "
          "ours/torch, ours/cupy: the reference's time / ours, above 1\nours is faster "
          "(targets: FFT >= 1 at N = 8..4096; on an H100 convolution >= 3.3 at N = 1024,\n"
          ">= 2 in 2-D). ours error: relative L2 error against numpy (WRONG above "
          f"{TOLERANCE:g}).")
    if not ok:
        raise SystemExit("ours gave WRONG results (see the error column)")


if __name__ == "__main__":
    main()
