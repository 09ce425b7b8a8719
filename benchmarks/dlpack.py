"""Handing buffers to torch and back through DLPack, beside the host round trip it replaces.

Rows, for float32 buffers of 4 KiB and --mib MiB (default 256):

* export: ``torch.from_dlpack(buffer)`` (a view: CUDA on NVIDIA GPUs, CPU on host-visible
  devices) of a buffer viewed before, us per call, beside
  ``torch.from_numpy(buffer.read(0)).to(device)`` (the copy through the host a script needed
  before);
* new view: the first ``torch.from_dlpack`` of a new buffer (its CudaView: the range mapped
  from its memory's CUDA import, which the first view of a block or allocation makes and later
  ones share), for a buffer beside one viewed already and, for the large size, of fresh memory;
* import: ``vd.from_dlpack(tensor)`` (a new buffer, mapped into CUDA, and one device-to-device
  copy for a CUDA tensor), us per call and GB/s, beside ``tensor.clone()`` (torch's own device
  copy, from its caching allocator: the bandwidth reference) and
  ``vd.asbuffer(tensor.cpu().numpy())`` (through the host); and ``vd.Buffer`` of the same size
  alone (the allocation's share of the import); each both with every buffer kept (new memory
  each time) and dropped before the next (the memory kept for reuse, with its CUDA import).

Each result is checked against the data. Needs torch; prints why not otherwise.

Usage: python benchmarks/dlpack.py [--mib 256] [--repeats 5]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import vkdispatch as vd


def best_us(call, repeats: int, sync) -> float:
    """The fastest of ``repeats`` timed calls (after one warm-up), with ``sync`` after each."""
    call()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - start)
    return min(times) * 1e6


def new_view_case(nbytes: int) -> str:
    return ("a buffer beside one viewed (its block imported)" if nbytes < 256 << 10
            else "a buffer of fresh memory (imported first)")


def new_view_us(torch, buffer, data, repeats: int, sync) -> float:
    """The first ``torch.from_dlpack`` of new buffers like ``buffer`` (each viewed once), while
    ``buffer`` has a view: small ones share its block and its CUDA import, large ones have
    memory of their own."""
    viewed = torch.from_dlpack(buffer)
    vd.empty_cache()  # large buffers get fresh memory, not a kept allocation imported before
    news = [vd.asbuffer(data) for _ in range(repeats + 1)]
    sync()
    remaining = iter(news)
    views = []
    us = best_us(lambda: views.append(torch.from_dlpack(next(remaining))), repeats, sync)
    assert np.array_equal(views[-1].cpu().numpy(), data)
    del viewed, views
    for new in news:
        new.destroy()
    return us


def import_us(tensor, data, repeats: int, sync) -> dict[str, tuple[float, float]]:
    """``(vd.from_dlpack(tensor) us, vd.Buffer alone us)`` with every buffer made kept (new
    memory each time for large sizes) and with each dropped before the next (the memory, and
    its CUDA import, kept for reuse)."""
    vd.empty_cache()
    made, fresh = [], []
    new_memory = best_us(lambda: made.append(vd.from_dlpack(tensor)), repeats, sync)
    allocation = best_us(lambda: fresh.append(vd.Buffer(data.shape, vd.float32)), repeats, sync)
    assert np.array_equal(made[-1].read(0), data)
    for buffer in made + fresh:
        buffer.destroy()
    reused = best_us(lambda: vd.from_dlpack(tensor).destroy(), repeats, sync)
    reallocation = best_us(lambda: vd.Buffer(data.shape, vd.float32).destroy(), repeats, sync)
    last = vd.from_dlpack(tensor)
    assert np.array_equal(last.read(0), data)
    last.destroy()
    return {"every buffer kept": (new_memory, allocation),
            "each dropped before the next": (reused, reallocation)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        raise SystemExit("dlpack.py compares with torch, which is not installed")
    probe = vd.asbuffer(np.zeros(4, np.float32))
    kind = probe.__dlpack_device__()[0]
    if kind not in (1, 2):
        raise SystemExit(f"buffers of {vd.get_context().device_infos[0].device_name} have no "
                         f"DLPack view here (device type {kind})")
    device = "cuda" if kind == 2 else "cpu"
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    print(f"device: {vd.get_context().device_infos[0].device_name}; views on torch {device}\n")
    print("| operation | size | ours us | reference | reference us | reference/ours | "
          "ours GB/s |")
    print("|---|--:|--:|---|--:|--:|--:|")
    rng = np.random.default_rng(0)
    for nbytes in (4096, args.mib << 20):
        data = rng.standard_normal(nbytes // 4, dtype=np.float32)
        label = f"{nbytes >> 10} KiB" if nbytes < 1 << 20 else f"{nbytes >> 20} MiB"
        buffer = vd.asbuffer(data)
        ours = best_us(lambda: torch.from_dlpack(buffer), args.repeats, sync)
        old = best_us(lambda: torch.from_numpy(buffer.read(0)).to(device), args.repeats, sync)
        assert np.array_equal(torch.from_dlpack(buffer).cpu().numpy(), data)
        print(f"| export: torch.from_dlpack(buffer) | {label} | {ours:.1f} | "
              f"from_numpy(read(0)).to({device}) | {old:.1f} | {old / ours:.2f} | - |")
        print(f"| new view: {new_view_case(nbytes)} | {label} | "
              f"{new_view_us(torch, buffer, data, args.repeats, sync):.1f} | - | - | - | - |")
        tensor = torch.from_numpy(data).to(device)
        clone = best_us(lambda: tensor.clone(), args.repeats, sync)
        host = best_us(lambda: vd.asbuffer(tensor.cpu().numpy()), args.repeats, sync)
        for case, (ours, allocation) in import_us(tensor, data, args.repeats, sync).items():
            print(f"| import, {case}: vd.from_dlpack(tensor) | {label} | {ours:.1f} | "
                  f"tensor.clone() | {clone:.1f} | {clone / ours:.2f} | "
                  f"{2 * nbytes / ours / 1e3:.1f} |")
            print(f"| import, {case}: vd.from_dlpack(tensor) | {label} | {ours:.1f} | "
                  f"asbuffer(tensor.cpu().numpy()) | {host:.1f} | {host / ours:.2f} | - |")
            print(f"| (of which) vd.Buffer of that size, {case} | {label} | {allocation:.1f} | "
                  f"- | - | - | - |")
        buffer.destroy()
    print("\nreference/ours above 1: ours is faster. GB/s = bytes read + written / time.")


if __name__ == "__main__":
    main()
