"""Host <-> device transfer bandwidth of vkdispatch buffers beside raw references.

For each size, prints upload (numpy -> buffer, until the device has the data) and download
(buffer -> numpy: ``read(0, out=array)`` into existing memory, and ``read(0)`` into a new array,
which also pays the kernel's first-touch page faults) in GB/s, next to references measured in
the same run: a host memcpy of the same bytes (the ceiling of any copy through host memory) and,
where torch with CUDA is installed, ``tensor.cuda()`` / ``tensor.cpu()`` from pageable memory
and ``copy_`` from and into pinned memory. The ratios are vkdispatch's upload and download
into existing memory over each reference's. Each figure is the median of --repeats
measurements taken in turn with the others (every method and direction once per round; hosts
drift within a minute). After the timed runs, both downloads are checked against the uploaded
data.

    python benchmarks/transfer.py [--sizes-mib 1 4 16 64 256] [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np

import vkdispatch as vd

from torch_reference import torch_cuda  # benchmarks/torch_reference.py


def interleaved_seconds(actions: dict[str, Callable[[], object]],
                        repeats: int) -> dict[str, float]:
    """Median seconds of each action over ``repeats`` rounds, each round timing every action
    once, in turn (after one untimed warm-up of each: first-touch page faults, staging)."""
    for action in actions.values():
        action()
    times: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(repeats):
        for name, action in actions.items():
            start = time.perf_counter()
            action()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def measure(size: int, repeats: int, torch) -> dict[str, tuple[float, float]]:
    """GB/s (upload, download) per method for ``size`` bytes."""
    host = np.random.default_rng(0).standard_normal(size // 4).astype(np.float32)
    buffer = vd.Buffer(host.shape, vd.float32)
    out, scratch = np.empty_like(host), np.empty_like(host)

    def upload():
        buffer.write(host)
        vd.queue_wait_idle()

    # (method, direction) -> action; "vkd new array" uploads as "vkdispatch" does.
    actions = {("vkdispatch", "up"): upload,
               ("vkdispatch", "down"): lambda: buffer.read(0, out=out),
               ("vkd new array", "down"): lambda: buffer.read(0),
               ("host memcpy", "copy"): lambda: np.copyto(scratch, host)}
    if torch is not None:
        pageable = torch.from_numpy(host)
        pinned = pageable.pin_memory()
        device = pageable.cuda()
        pinned_out = torch.empty_like(pinned).pin_memory()

        def synced(fn):
            def run():
                fn()
                torch.cuda.synchronize()
            return run

        actions.update({
            ("torch pageable", "up"): synced(lambda: pageable.cuda()),
            ("torch pageable", "down"): synced(lambda: device.cpu()),
            ("torch pinned", "up"): synced(lambda: device.copy_(pinned, non_blocking=True)),
            ("torch pinned", "down"): synced(
                lambda: pinned_out.copy_(device, non_blocking=True)),
        })
    seconds = interleaved_seconds(actions, repeats)

    # The downloads must bring back what was uploaded (the buffer still holds it).
    assert np.array_equal(out, host), "read(0, out=) returned different data"
    assert np.array_equal(buffer.read(0), host), "read(0) returned different data"
    if torch is not None:
        assert np.array_equal(pinned_out.numpy(), host), "torch pinned copy: different data"
    buffer.destroy()

    results = {"vkdispatch": (seconds[("vkdispatch", "up")], seconds[("vkdispatch", "down")]),
               "vkd new array": (seconds[("vkdispatch", "up")],
                                 seconds[("vkd new array", "down")]),
               "host memcpy": (seconds[("host memcpy", "copy")],) * 2}
    if torch is not None:
        for name in ("torch pageable", "torch pinned"):
            results[name] = (seconds[(name, "up")], seconds[(name, "down")])
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
    print("\nratio = vkdispatch / reference: upload, and download into existing memory (above 1: "
          "vkdispatch is faster)")


if __name__ == "__main__":
    main()
