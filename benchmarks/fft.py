"""Throughput of vd.fft's generated FFT beside cuFFT (torch, cupy), numpy and a device copy.

Batched 1-D complex-to-complex float32 FFTs (complex64 buffers of shape (batch, N), transformed
in place along the last axis by ``vd.fft.fft``) for N = 2^3..2^12 (--large adds 2^13..2^16,
which take several passes), with batch = --mib MiB / (8 N bytes); then batched 2-D FFTs
(``vd.fft.fft2``, shape (batch, N, N), two dispatches) for N = 512..4096. Each of ours is one
``vd.CommandGraph`` recorded once and submitted with ``instance_count`` replays (enough for
--total-mib MiB transformed in all, at least --replays), so the submission and the final wait
are amortised; one untimed submission precedes each timed one. GB/s = 2 x bytes / time per
transform: the array read once and written once, the least any FFT must move.

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
with status 1 after both tables. The references' results are checked the same way (a failure
there stops the script). Our timed buffer is transformed over and over in place, so its values
grow past float32's range into inf and NaN, which costs a GPU nothing.

    python benchmarks/fft.py [--sizes 3 4 ... 12] [--large] [--mib 256] [--two-d 512 1024]
                             [--repeats 5] [--numpy]
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np

import vkdispatch as vd

from torch_reference import torch_cuda  # benchmarks/torch_reference.py

CPU_DEVICE = 4          # DeviceInfo.device_type of CPU implementations (lavapipe)
TOLERANCE = 1e-4        # relative L2 error above which a transform counts as wrong
CHECK_ELEMENTS = 1 << 20  # about this many elements of each result are compared with numpy
TORCH_WARMUP_CALLS = 3  # on a side stream before the CUDA graph capture
DEFAULTS = {  # option: (GPU default, CPU-device default)
    "mib": (256, 8), "two_d": ([512, 1024, 2048, 4096], [64, 128, 256]),
    "repeats": (5, 3), "replays": (20, 3), "total_mib": (4096, 32),
}


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


class Check:
    """A sample of the items (rows, or images for 2-D) of one input and numpy's transform of
    them in complex128, to compare results with."""

    def __init__(self, host: np.ndarray, transform: str, rng: np.random.Generator):
        batch, item = host.shape[0], host[0].size
        count = max(2, min(batch, CHECK_ELEMENTS // item))
        picks = np.concatenate(([0, batch - 1], rng.integers(0, batch, count)))
        self.items = np.unique(picks)[:count]
        self.expected = getattr(np.fft, transform)(host[self.items].astype(np.complex128))

    def error(self, result: np.ndarray) -> float:
        return relative_error(result[self.items], self.expected)

    def require(self, name: str, result: np.ndarray) -> None:
        error = self.error(result)
        if not error <= TOLERANCE:
            raise AssertionError(f"{name}: relative error {error:.2e} against numpy")


class GraphTimer:
    """One graph, recorded once by ``record(graph)``; seconds per replay of it."""

    def __init__(self, record: Callable[[vd.CommandGraph], None], replays: int):
        self.replays = replays
        self.graph = vd.CommandGraph()
        try:
            record(self.graph)
        except BaseException:
            self.graph.destroy()
            raise

    def seconds(self) -> float:
        self.graph.submit(instance_count=self.replays)  # untimed: the timed one reuses it
        vd.queue_wait_idle()
        start = time.perf_counter()
        self.graph.submit(instance_count=self.replays)
        vd.queue_wait_idle()
        return (time.perf_counter() - start) / self.replays

    def run_once(self) -> None:
        self.graph.submit()
        vd.queue_wait_idle()

    def destroy(self) -> None:
        self.graph.destroy()


class TorchFFT:
    """torch.fft.<transform>(x), ``replays`` calls captured once in a CUDA graph."""

    def __init__(self, torch, host: np.ndarray, transform: str, replays: int):
        self.torch, self.replays = torch, replays
        call = getattr(torch.fft, transform)
        self.x = torch.from_numpy(host).cuda()
        # Warm up on a side stream before capturing (makes the cuFFT plan), as torch asks.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(TORCH_WARMUP_CALLS):
                self.y = call(self.x)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):  # records the calls, runs none of them
            for _ in range(replays):
                self.y = call(self.x)  # outputs reuse the graph's pool: y is the last one
        torch.cuda.synchronize()

    def seconds(self) -> float:
        self.graph.replay()
        self.torch.cuda.synchronize()
        start = time.perf_counter()
        self.graph.replay()
        self.torch.cuda.synchronize()
        return (time.perf_counter() - start) / self.replays

    def result(self) -> np.ndarray:
        return self.y.cpu().numpy()

    def close(self) -> None:
        del self.graph, self.x, self.y
        self.torch.backends.cuda.cufft_plan_cache.clear()
        self.torch.cuda.empty_cache()


class CupyFFT:
    """cupy.fft.<transform>(x), an eager loop of ``replays`` calls + synchronize."""

    def __init__(self, cupy, host: np.ndarray, transform: str, replays: int):
        self.cupy, self.replays = cupy, replays
        self.call = getattr(cupy.fft, transform)
        self.x = cupy.asarray(host)
        self.y = self.call(self.x)  # makes and caches the plan
        cupy.cuda.Device().synchronize()

    def seconds(self) -> float:
        self.y = self.call(self.x)
        self.cupy.cuda.Device().synchronize()
        start = time.perf_counter()
        for _ in range(self.replays):
            self.y = self.call(self.x)
        self.cupy.cuda.Device().synchronize()
        return (time.perf_counter() - start) / self.replays

    def result(self) -> np.ndarray:
        return self.cupy.asnumpy(self.y)

    def close(self) -> None:
        del self.x, self.y
        self.cupy.fft.config.get_plan_cache().clear()
        self.cupy.get_default_memory_pool().free_all_blocks()


class NumpyFFT:
    """np.fft.<transform>(host, out=...), one call per measurement (on the host)."""

    def __init__(self, host: np.ndarray, transform: str):
        self.host, self.call = host, getattr(np.fft, transform)
        self.out = np.empty_like(host)
        self.call(self.host, out=self.out)  # faults the output's pages in

    def seconds(self) -> float:
        start = time.perf_counter()
        self.call(self.host, out=self.out)
        return time.perf_counter() - start

    def result(self) -> np.ndarray:
        return self.out

    def close(self) -> None:
        del self.out


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


def references(host: np.ndarray, transform: str, replays: int, libs: dict) -> dict:
    """The reference FFTs that apply: name -> object with seconds(), result(), close()."""
    refs = {}
    if libs["torch"] is not None:
        refs["torch"] = TorchFFT(libs["torch"], host, transform, replays)
    if libs["cupy"] is not None:
        refs["cupy"] = CupyFFT(libs["cupy"], host, transform, replays)
    if libs["numpy"]:
        refs["numpy"] = NumpyFFT(host, transform)
    return refs


def measure_row(host: np.ndarray, transform: str, args, libs: dict, copies: CopyPairs,
                rng: np.random.Generator) -> dict:
    """GB/s of ours (None where our FFT rejects the size), the copy and each reference, for
    one input; ``error``: ours against numpy; ``reason``: why ours is None."""
    nbytes, count = host.nbytes, host.size
    replays = max(args.replays, -(-args.total_mib * 2**20 // nbytes))
    row: dict = {"reason": None, "error": None, "ours": None}
    buffer = vd.Buffer(host.shape, vd.complex64)
    buffer.write(host)
    src, dst = copies.get(count)
    timers = {"copy": GraphTimer(lambda g: vd.copy(dst, src, graph=g), replays)}
    try:
        if transform == "fft":
            timers["ours"] = GraphTimer(lambda g: vd.fft.fft(buffer, graph=g), replays)
        else:
            timers["ours"] = GraphTimer(lambda g: vd.fft.fft2(buffer, graph=g), replays)
        timers["ours"].run_once()  # builds the kernels; a size can be refused here too
    except ValueError as error:
        row["reason"] = f"{type(error).__name__}: {error}"
        if "ours" in timers:
            timers.pop("ours").destroy()
    refs = references(host, transform, replays, libs)
    measures = {name: timer.seconds for name, timer in timers.items()}
    measures.update({name: ref.seconds for name, ref in refs.items()})
    samples: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(args.repeats):
        for name, measure in measures.items():
            samples[name].append(measure())
    for name, values in samples.items():
        row[name] = 2 * nbytes / statistics.median(values) / 1e9

    check = Check(host, transform, rng)
    copies.check(count)
    for name, ref in refs.items():
        check.require(f"{name} {transform} of shape {host.shape}", ref.result())
        ref.close()
    if "ours" in timers:
        buffer.write(host)  # fresh data through the timed graph, once
        timers["ours"].run_once()
        row["error"] = check.error(buffer.read(0))
    for timer in timers.values():
        timer.destroy()
    buffer.destroy()
    return row


def cell(value, width: int, spec: str) -> str:
    return f"{value:>{width}{spec}}" if value is not None else f"{'-':>{width}}"


def ratio(numerator, denominator):
    return numerator / denominator if numerator is not None and denominator else None


def print_table(title: str, rows: list[tuple[str, int, dict]], libs: dict) -> bool:
    """Prints one markdown table; False when a row of ours was WRONG."""
    refs = [name for name in ("torch", "cupy", "numpy") if libs[name]]
    columns = [("N", 9), ("batch", 9), ("ours GB/s", 9), ("copy GB/s", 9), ("ours/copy", 9)]
    for name in refs:
        columns.append((f"{name} GB/s", 10))
        if name != "numpy":
            columns.append((f"ours/{name}", 10))
    columns.append(("ours error", 16))
    print(f"\n{title}\n")
    print("| " + " | ".join(f"{name:>{width}}" for name, width in columns) + " |")
    print("|" + "|".join("-" * (width + 1) + ":" for _name, width in columns) + "|")
    ok = True
    for label, batch, row in rows:
        ours = row["ours"]
        cells = [f"{label:>9}", f"{batch:>9}",
                 cell(ours, 9, ".1f") if row["reason"] is None else f"{'n/a':>9}",
                 cell(row["copy"], 9, ".1f"), cell(ratio(ours, row["copy"]), 9, ".2f")]
        for name in refs:
            cells.append(cell(row[name], 10, ".1f"))
            if name != "numpy":
                cells.append(cell(ratio(ours, row[name]), 10, ".2f"))
        error = row["error"]
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
    parser.add_argument("--sizes", type=int, nargs="+", default=list(range(3, 13)),
                        help="log2 N of the 1-D transforms (default 3..12)")
    parser.add_argument("--large", action="store_true", help="add log2 N = 13..16")
    parser.add_argument("--mib", type=int, help="MiB per batch (default 256; CPU device 8)")
    parser.add_argument("--two-d", type=int, nargs="*",
                        help="N of the N x N transforms (default 512..4096; CPU device 64..256; "
                        "none: no 2-D table)")
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
    return args


def run_table(shapes: list[tuple[str, tuple[int, ...]]], transform: str, args, libs: dict,
              host: np.ndarray, copies: CopyPairs, rng) -> list[tuple[str, int, dict]]:
    limit = vd.get_context().device_infos[0].max_storage_buffer_range
    rows = []
    for label, shape in shapes:
        data = host[:int(np.prod(shape))].reshape(shape)
        if data.nbytes > limit:
            print(f"N = {label}: skipped, {data.nbytes} bytes exceed this device's storage "
                  f"buffer range ({limit})")
            continue
        rows.append((label, shape[0], measure_row(data, transform, args, libs, copies, rng)))
    return rows


def main() -> None:
    torch, cupy = torch_cuda(), cupy_cuda()
    info = vd.get_context().device_infos[0]
    args = options(info.device_type)
    libs = {"torch": torch, "cupy": cupy, "numpy": args.numpy or (torch is None and cupy is None)}
    nbytes = args.mib * 2**20
    line_shapes = [(str(1 << k), (max(1, nbytes // (8 << k)), 1 << k)) for k in args.sizes]
    plane_shapes = [(f"{n}^2", (max(1, nbytes // (8 * n * n)), n, n)) for n in args.two_d]
    largest = max([int(np.prod(shape)) for _label, shape in line_shapes + plane_shapes])
    rng = np.random.default_rng(0)
    host = rng.standard_normal(2 * largest, dtype=np.float32).view(np.complex64)
    print(f"device: {info.device_name}; batches of {args.mib} MiB; "
          f"references: {', '.join(name for name, used in libs.items() if used) or 'none'}")
    copies = CopyPairs(host)
    ok = print_table("Batched 1-D C2C complex64 FFT along the last axis (vd.fft.fft), GB/s",
                     run_table(line_shapes, "fft", args, libs, host, copies, rng), libs)
    if plane_shapes:
        ok = print_table("Batched 2-D C2C complex64 FFT, N x N (vd.fft.fft2), GB/s",
                         run_table(plane_shapes, "fft2", args, libs, host, copies, rng),
                         libs) and ok
    copies.destroy()
    print("\nGB/s = 2 x bytes / time per transform. ours/copy: share of the bandwidth of a "
          "device copy of\nthe same bytes (target >= 0.9); ours/torch, ours/cupy: above 1, "
          "ours is faster (target:\nours/torch >= 1 at N = 8..4096). ours error: relative L2 "
          f"error against numpy (WRONG above {TOLERANCE:g}).")
    if not ok:
        raise SystemExit("our FFT gave WRONG results (see the error column)")


if __name__ == "__main__":
    main()
