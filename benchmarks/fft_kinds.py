"""vd.fft's other transform kinds beside cuFFT: real (rfft/irfft), float64 and 3-D.

benchmarks/fft.py times batched complex64 1-D and 2-D transforms; this script times, the same
way, what its targets also name: ``vd.fft.rfft`` and ``irfft`` of (batch, N) float32 rows in an
``RFFTBuffer``, ``vd.fft.fft`` of complex128 (batch, N) in float64, and ``vd.fft.fft3`` of an
N x N x N complex64 volume. Ours is a ``vd.CommandGraph`` replayed with ``instance_count``
(``benchmarks/graph_timing.py``), torch (cuFFT, out of place) the same calls captured in a CUDA
graph and replayed: like for like. Each graph holds a transform and its inverse (``rfft`` then
``irfft``, ``fft`` then ``ifft``, ``fft3`` then ``ifft3``), and a row's time is half of the
pair's: ours run in place, and a buffer transformed forward over and over fills with inf and
NaN, which some GPUs compress (faster than the copy's bandwidth, not a real figure). Batches
hold about --mib MiB. GB/s = 2 x the bytes of the data's complex form (read once, written
once) / time per transform. torch/ours: torch's time over ours (above 1: ours is faster;
issue target: at least 1 everywhere). The error column compares ours' forward transform, run
once on fresh data, with numpy in float64 (WRONG above 1e-4; 1e-10 for float64).

    python benchmarks/fft_kinds.py [--mib 256] [--sizes 8 10 12] [--volumes 64 128 256]
"""
from __future__ import annotations

import argparse

import numpy as np

import vkdispatch as vd

from graph_timing import gpu_seconds  # benchmarks/graph_timing.py
from torch_reference import torch_cuda, torch_graph_seconds  # benchmarks/torch_reference.py

REPLAY_BYTES = 4 << 30  # each figure replays at least this many bytes


def relative_error(got, expected) -> float:
    expected = np.asarray(expected, np.complex128)
    return float(np.linalg.norm(np.asarray(got) - expected) / np.linalg.norm(expected))


def rows(args):
    """``(kind, label, host array, ours(buffer, graph), inverse(buffer, graph),
    make_buffer(host), read(buffer), numpy(host), torch pair(t, x), tolerance)`` per row."""
    rng = np.random.default_rng(0)
    nbytes = args.mib << 20
    for log in args.sizes:
        n = 1 << log
        batch = max(1, nbytes // (8 * n))
        real = rng.standard_normal((batch, n), dtype=np.float32)
        yield ("rfft + irfft", n, real, lambda b, g: vd.fft.rfft(b, graph=g),
               lambda b, g: vd.fft.irfft(b, graph=g), vd.asrfftbuffer,
               lambda b: b.read_fourier(0), np.fft.rfft,
               lambda t, x, n=n: t.fft.irfft(t.fft.rfft(x), n), 1e-4)
        wide = (rng.standard_normal((max(1, batch // 2), n))
                + 1j * rng.standard_normal((max(1, batch // 2), n)))
        yield ("fft float64", n, wide,
               lambda b, g: vd.fft.fft(b, graph=g, compute_type=vd.complex128),
               lambda b, g: vd.fft.ifft(b, graph=g, compute_type=vd.complex128), vd.asbuffer,
               lambda b: b.read(0), np.fft.fft, lambda t, x: t.fft.ifft(t.fft.fft(x)), 1e-10)
    for side in args.volumes:
        volume = (rng.standard_normal((side,) * 3, dtype=np.float32)
                  + 1j * rng.standard_normal((side,) * 3, dtype=np.float32)).astype(np.complex64)
        yield ("fft3", f"{side}^3", volume, lambda b, g: vd.fft.fft3(b, graph=g),
               lambda b, g: vd.fft.ifft3(b, graph=g), vd.asbuffer, lambda b: b.read(0),
               np.fft.fftn, lambda t, x: t.fft.ifftn(t.fft.fftn(x)), 1e-4)


def complex_bytes(host: np.ndarray) -> int:
    """The bytes of the data's complex form (a real array's half spectrum for real rows)."""
    if host.dtype.kind == "f":
        return host.shape[0] * (host.shape[1] // 2 + 1) * 8
    return host.nbytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--sizes", type=int, nargs="*", default=[8, 10, 12],
                        help="log2 N of the 1-D rows (default 8 10 12)")
    parser.add_argument("--volumes", type=int, nargs="*", default=[64, 128, 256],
                        help="N of the N^3 volumes (default 64 128 256)")
    args = parser.parse_args()
    torch = torch_cuda()
    print(f"device: {vd.get_context().device_infos[0].device_name}; "
          f"reference: {'torch (CUDA graph)' if torch else 'none'}\n")
    print("| kind | N | ours GB/s | torch GB/s | torch/ours | ours error |")
    print("|---|--:|--:|--:|--:|--:|")
    wrong = False
    for kind, label, host, ours, inverse, make, read, reference, torch_pair, tolerance \
            in rows(args):
        moved = 2 * complex_bytes(host)
        replays = max(3, REPLAY_BYTES // (2 * moved))  # of the pair
        buffer = make(host)
        seconds = gpu_seconds(lambda g: (ours(buffer, g), inverse(buffer, g)), replays) / 2
        torch_seconds = None
        if torch is not None:
            x = torch.from_numpy(host).cuda()
            torch_seconds = torch_graph_seconds(torch, lambda: torch_pair(torch, x),
                                                replays) / 2
            del x
            torch.cuda.empty_cache()
        buffer.destroy()
        buffer = make(host)
        ours(buffer, None)
        error = relative_error(read(buffer), reference(host.astype(
            np.complex128 if host.dtype.kind == "c" else np.float64)))
        buffer.destroy()
        wrong = wrong or not error <= tolerance
        torch_cells = (f"{moved / torch_seconds / 1e9:.1f} | {torch_seconds / seconds:.2f}"
                       if torch_seconds else "- | -")
        print(f"| {kind} | {label} | {moved / seconds / 1e9:.1f} | {torch_cells} | "
              f"{error:.1e}{' WRONG' if not error <= tolerance else ''} |")
    if wrong:
        raise SystemExit("ours gave WRONG results (see the error column)")


if __name__ == "__main__":
    main()
