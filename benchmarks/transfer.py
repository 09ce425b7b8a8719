"""Host <-> device transfer bandwidth of vkdispatch buffers beside raw references.

For each size, prints upload (numpy -> buffer, until the device has the data) and download
(buffer -> numpy: ``read(0, out=array)`` into existing memory, and ``read(0)`` into a new array,
which also pays the kernel's first-touch page faults) in GB/s, next to references measured in
the same run: a host
memcpy of the same bytes (the ceiling of any copy through host memory) and, where torch with
CUDA is installed, ``tensor.cuda()`` / ``tensor.cpu()`` from pageable and from pinned memory.

    python benchmarks/transfer.py [--sizes-mib 1 4 16 64 256] [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np

import vkdispatch as vd


def best_seconds(action: Callable[[], object], repeats: int) -> float:
    action()  # warm-up: first-touch page faults, staging allocation
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def measure(size: int, repeats: int, torch) -> dict[str, tuple[float, float]]:
    """GB/s (upload, download) per method for ``size`` bytes."""
    host = np.random.default_rng(0).standard_normal(size // 4).astype(np.float32)
    buffer = vd.Buffer(host.shape, vd.float32)

    def upload():
        buffer.write(host)
        vd.queue_wait_idle()

    out = np.empty_like(host)
    upload_s = best_seconds(upload, repeats)
    results = {"vkdispatch": (upload_s, best_seconds(lambda: buffer.read(0, out=out), repeats)),
               "vkd new array": (upload_s, best_seconds(lambda: buffer.read(0), repeats))}
    buffer.write(host)
    assert np.array_equal(buffer.read(0), host), "transfer returned different data"
    scratch = np.empty_like(host)
    memcpy = best_seconds(lambda: np.copyto(scratch, host), repeats)
    results["host memcpy"] = (memcpy, memcpy)
    if torch is not None:
        pageable = torch.from_numpy(host)
        pinned = pageable.pin_memory()
        device = pageable.cuda()

        def timed(fn):
            def run():
                fn()
                torch.cuda.synchronize()
            return best_seconds(run, repeats)

        results["torch pageable"] = (timed(lambda: pageable.cuda()), timed(lambda: device.cpu()))
        pinned_out = torch.empty_like(pinned).pin_memory()
        results["torch pinned"] = (timed(lambda: device.copy_(pinned, non_blocking=True)),
                                   timed(lambda: pinned_out.copy_(device, non_blocking=True)))
    buffer.destroy()
    return {name: (size / up / 1e9, size / down / 1e9) for name, (up, down) in results.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes-mib", type=int, nargs="+", default=[1, 4, 16, 64, 256])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    context = vd.get_context()
    torch = torch_cuda()
    print(f"device: {context.device_infos[0].device_name}")
    header = (f"{'size MiB':>8} | {'method':<15} | {'upload GB/s':>11} | {'download GB/s':>13} | "
              f"{'up ratio':>8} | {'down ratio':>10}")
    print(header)
    print("-" * len(header))
    for mib in args.sizes_mib:
        rates = measure(mib << 20, args.repeats, torch)
        ours_up, ours_down = rates["vkdispatch"]
        for name, (up, down) in rates.items():
            ours = name.startswith("vkd")
            ratio_up = "" if ours else f"{ours_up / up:8.2f}"
            ratio_down = "" if ours else f"{ours_down / down:10.2f}"
            print(f"{mib:>8} | {name:<15} | {up:11.2f} | {down:13.2f} | {ratio_up:>8} | "
                  f"{ratio_down:>10}")
    print("\nratio = vkdispatch (read into existing memory) / reference (above 1: vkdispatch is "
          "faster)")


if __name__ == "__main__":
    main()
