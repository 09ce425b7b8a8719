"""torch and vkdispatch on the same memory: a batch of signals made in torch goes through
``vd.fft.convolve`` and back into torch without passing through the host.

Two ways, each timed (median of --repeats rounds, each waited for), beside the host round trip
a script needed before DLPack (``tensor.cpu().numpy()`` -> ``vd.asbuffer`` -> convolve ->
``read()`` -> ``torch.from_numpy(...).to(device)``):

* zero copy: a vkdispatch buffer seen as a torch tensor (``torch.from_dlpack(buffer)``); torch
  writes the signals into it, ``vd.fft.convolve`` works on it in place, and torch reads the
  result through a view exported after the call (the export hands the buffer back to torch,
  ordered on the GPU, no host wait);
* import: a tensor torch owns enters vkdispatch with ``vd.from_dlpack`` (one copy on the
  device), and the result comes back to torch as a view of that buffer.

Every result is checked against numpy's FFTs. On an NVIDIA GPU with torch's CUDA build the views
are CUDA tensors; on devices whose memory the host maps (lavapipe, integrated GPUs) they are
torch CPU tensors. ``--library numpy`` runs the same steps with numpy arrays (no torch needed).

    python examples/torch_interop.py                          # 256 signals of 1024 on lavapipe
    python examples/torch_interop.py --batch 32768 --repeats 20   # 256 MiB on a GPU
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Callable

import numpy as np

import vkdispatch as vd


class Library:
    """The few operations the example needs from an array library that speaks DLPack."""

    def __init__(self, name: str):
        self.name = name
        self.torch = None
        self.device = "cpu"
        if name == "torch":
            import torch  # noqa: PLC0415 (optional: only this library needs it)
            self.torch = torch
            cuda_views = vd.asbuffer(np.zeros(1, np.float32)).__dlpack_device__()[0] == 2
            self.device = "cuda" if cuda_views and torch.cuda.is_available() else "cpu"

    def view(self, buffer: vd.Buffer):
        """The buffer's memory as this library's array (a view, no copy)."""
        return self.torch.from_dlpack(buffer) if self.torch else np.from_dlpack(buffer)

    def from_host(self, array: np.ndarray):
        return self.torch.from_numpy(array).to(self.device) if self.torch else array.copy()

    def to_host(self, array) -> np.ndarray:
        return array.cpu().numpy() if self.torch else np.asarray(array)

    def fill(self, view, source) -> None:
        """Writes ``source`` (this library's array) into ``view``."""
        if self.torch:
            view.copy_(source)
        else:
            view[...] = source

    def synchronize(self) -> None:
        if self.torch is not None and self.device == "cuda":
            self.torch.cuda.synchronize()


def random_complex(rng: np.random.Generator, shape) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def reference(signals: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """``ifft(fft(x) * conj(fft(k)))`` per row in float64: what ``vd.fft.convolve`` computes
    with the kernel's spectrum."""
    spectrum = np.fft.fft(kernel.astype(np.complex128), axis=-1)
    return np.fft.ifft(np.fft.fft(signals.astype(np.complex128), axis=-1) * np.conj(spectrum),
                       axis=-1)


def kernel_spectrum(lib: Library, kernel) -> vd.Buffer:
    """The kernel's spectrum in a vkdispatch buffer: imported from the library, then
    transformed on the device."""
    buffer = vd.from_dlpack(kernel)
    vd.fft.fft(buffer)
    return buffer


def zero_copy(lib: Library, buffer: vd.Buffer, signals, spectrum: vd.Buffer):
    """torch writes into the buffer's memory, vkdispatch convolves it in place, torch reads it."""
    lib.fill(lib.view(buffer), signals)
    vd.fft.convolve(buffer, spectrum, kernel_inner_only=True)
    return lib.view(buffer)  # exported after the call: torch's work on it follows it


def imported(lib: Library, signals, spectrum: vd.Buffer):
    """A tensor torch owns copied into a new buffer on the device, convolved, viewed."""
    buffer = vd.from_dlpack(signals)
    vd.fft.convolve(buffer, spectrum, kernel_inner_only=True)
    return lib.view(buffer)


def through_host(lib: Library, signals, spectrum: vd.Buffer):
    """The round trip without DLPack: down to numpy, up to vkdispatch, and back."""
    buffer = vd.asbuffer(lib.to_host(signals))
    vd.fft.convolve(buffer, spectrum, kernel_inner_only=True)
    result = lib.from_host(buffer.read(0))
    buffer.destroy()
    return result


def median_ms(lib: Library, run: Callable[[], object], repeats: int) -> float:
    """Median milliseconds of ``run`` + the library's synchronization (after one warm-up)."""
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        lib.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def relative_error(result: np.ndarray, expected: np.ndarray) -> float:
    return float(np.linalg.norm(result - expected) / np.linalg.norm(expected))


def run(lib: Library, batch: int, length: int, repeats: int, seed: int = 0) -> dict:
    """Times the three ways and returns, per way, its milliseconds and relative error."""
    rng = np.random.default_rng(seed)
    host_signals, host_kernel = random_complex(rng, (batch, length)), random_complex(rng, length)
    expected = reference(host_signals, host_kernel)
    signals = lib.from_host(host_signals)
    spectrum = kernel_spectrum(lib, lib.from_host(host_kernel))
    buffer = vd.Buffer((batch, length), vd.complex64)
    ways = {"zero copy (a view of a vkdispatch buffer)": lambda: zero_copy(lib, buffer, signals,
                                                                           spectrum),
            "import (vd.from_dlpack, one device copy)": lambda: imported(lib, signals, spectrum),
            "through the host (numpy, asbuffer, read)": lambda: through_host(lib, signals,
                                                                              spectrum)}
    results = {}
    for name, way in ways.items():
        ms = median_ms(lib, way, repeats)
        results[name] = (ms, relative_error(lib.to_host(way()), expected))
    buffer.destroy()
    spectrum.destroy()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", choices=["torch", "numpy"], default="torch")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--length", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    try:
        lib = Library(args.library)
    except ImportError:
        print("this example needs torch (pip install torch), or run it with --library numpy")
        return 1
    results = run(lib, args.batch, args.length, args.repeats)
    megabytes = args.batch * args.length * 8 / 2**20
    print(f"{args.library} on {lib.device}, vkdispatch on "
          f"{vd.get_context().device_infos[0].device_name}: {args.batch} signals of "
          f"{args.length} complex64 ({megabytes:.1f} MiB), median of {args.repeats}")
    host_ms = results["through the host (numpy, asbuffer, read)"][0]
    worst = 0.0
    for name, (ms, error) in results.items():
        worst = max(worst, error)
        print(f"  {name:45s} {ms:9.3f} ms  ({host_ms / ms:5.1f}x the host round trip)  "
              f"error {error:.1e}")
    return 0 if worst < 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main())
