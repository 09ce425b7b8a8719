"""Bandwidth of elementwise kernels written one element per invocation, beside torch.

Four kernels as users write them (scalar, one element per invocation, default launch):
axpy ``y = a*x + y`` (float32, in place), a 3-input expression ``out = x*y + z`` (float32),
a complex multiply ``out = a*b`` (complex64) and a type conversion ``out = float(x)``
(int32 -> float32). Each runs as vkdispatch builds it by default ("ours": coarsened where the
device's default says so), with coarsening turned off (``coarsen=False``, "plain"), and as
torch's equivalent (``y.add_(x, alpha=a)``, ``torch.addcmul(z, x, y, out=out)``,
``torch.mul(a, b, out=out)``, ``out.copy_(x)``).

Like for like: ours replays the kernel ``replays`` times in one graph submission, torch
replays as many calls captured in one CUDA graph; both are waited for, after an untimed run.
GB/s count the bytes each kernel must move. Each figure is the median of --repeats
measurements taken in turn with the others; after them every kernel's result is checked
against numpy on fresh random data.

    python benchmarks/elementwise.py [--sizes 20 22 24 26 28 29] [--replays 20] [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, c64, f32, i32

from graph_timing import gpu_seconds  # benchmarks/graph_timing.py
from torch_reference import torch_cuda, torch_graph_seconds  # benchmarks/torch_reference.py

ALPHA = 0.5


def axpy_body(y: Buff[f32], x: Buff[f32], a: Const[f32]):
    i = vc.global_invocation_id().x
    y[i] = x[i] * a + y[i]


def fma_body(out: Buff[f32], x: Buff[f32], y: Buff[f32], z: Buff[f32]):
    i = vc.global_invocation_id().x
    out[i] = x[i] * y[i] + z[i]


def complex_body(out: Buff[c64], a: Buff[c64], b: Buff[c64]):
    i = vc.global_invocation_id().x
    out[i] = vc.mult_complex(a[i], b[i])


def convert_body(out: Buff[f32], x: Buff[i32]):
    i = vc.global_invocation_id().x
    out[i] = vc.to_float(x[i])


def variants(body, size_name: str):
    """The kernel as built by default and with coarsening off."""
    return (vd.shader(size_name)(body), vd.shader(size_name, coarsen=False)(body))


class Kernel:
    """One benchmarked kernel: the element types of its buffers (the output first), the
    numpy reference and torch's call (given the torch module) of one call."""

    def __init__(self, name, body, np_types, bytes_per_element, numpy_call, torch_call,
                 scalars=()):
        self.name, self.np_types, self.bytes = name, np_types, bytes_per_element
        self.ours, self.plain = variants(body, f"{body.__code__.co_varnames[0]}.size")
        self.numpy_call, self.torch_call, self.scalars = numpy_call, torch_call, scalars

    def inputs(self, rng, n: int) -> list[np.ndarray]:
        """Random arrays of ``n`` elements (up to 2^22 random values repeated: drawing 2^29
        took longer than measuring)."""
        drawn = min(n, 1 << 22)
        out = []
        for np_type in self.np_types:
            if np.issubdtype(np_type, np.complexfloating):
                values = rng.standard_normal(drawn) + 1j * rng.standard_normal(drawn)
            elif np.issubdtype(np_type, np.integer):
                values = rng.integers(-2**20, 2**20, drawn)
            else:
                values = rng.standard_normal(drawn)
            out.append(np.resize(values.astype(np_type), n))
        return out


KERNELS = [
    Kernel("axpy", axpy_body, [np.float32, np.float32], 12,
           lambda y, x: x * np.float32(ALPHA) + y,
           lambda torch, y, x: y.add_(x, alpha=ALPHA), (ALPHA,)),
    Kernel("x*y+z", fma_body, [np.float32] * 4, 16,
           lambda out, x, y, z: x * y + z,
           lambda torch, out, x, y, z: torch.addcmul(z, x, y, out=out)),
    Kernel("complex mul", complex_body, [np.complex64] * 3, 24,
           lambda out, a, b: a * b,
           lambda torch, out, a, b: torch.mul(a, b, out=out)),
    Kernel("int->float", convert_body, [np.float32, np.int32], 8,
           lambda out, x: x.astype(np.float32),
           lambda torch, out, x: out.copy_(x)),
]


def check(kernel: Kernel, shader, rng, n: int) -> None:
    """One call of ``shader`` on fresh random data against numpy."""
    hosts = kernel.inputs(rng, n)
    buffers = [vd.asbuffer(h) for h in hosts]
    shader(*buffers, *kernel.scalars)
    expected = kernel.numpy_call(*hosts)
    got = buffers[0].read(0).reshape(expected.shape)
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6,
                               err_msg=f"{kernel.name} ({shader.name}), n = {n}")
    for buffer in buffers:
        buffer.destroy()


def measure(kernel: Kernel, torch, rng, n: int, replays: int, repeats: int) -> dict:
    hosts = kernel.inputs(rng, n)
    buffers = [vd.asbuffer(h) for h in hosts]
    calls = {
        "ours": lambda: gpu_seconds(lambda g: kernel.ours(*buffers, *kernel.scalars, graph=g),
                                    replays),
        "plain": lambda: gpu_seconds(
            lambda g: kernel.plain(*buffers, *kernel.scalars, graph=g), replays),
    }
    if torch is not None:
        tensors = [torch.from_numpy(h).cuda() for h in hosts]
        calls["torch"] = lambda: torch_graph_seconds(
            torch, lambda: kernel.torch_call(torch, *tensors), replays)
    samples = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            samples[name].append(call())
    for buffer in buffers:
        buffer.destroy()
    if torch is not None:
        del tensors
        torch.cuda.empty_cache()
    return {name: kernel.bytes * n / statistics.median(values) / 1e9
            for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 22, 24, 26, 28, 29],
                        help="log2 of the number of elements")
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--total-log2", type=int, default=30,
                        help="replay each kernel for at least 2^N elements per measurement")
    parser.add_argument("--kernels", nargs="+", default=[k.name for k in KERNELS])
    args = parser.parse_args()
    torch = torch_cuda()
    context = vd.get_context()
    print(f"device: {context.device_infos[0].device_name}")
    rng = np.random.default_rng(0)
    limit = min(info.max_storage_buffer_range for info in context.device_infos)
    print("| kernel | elements | ours GB/s | plain GB/s | torch GB/s | ours/torch | ours/plain |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kernel in (k for k in KERNELS if k.name in args.kernels):
        for log2 in args.sizes:
            n = 1 << log2
            if n * max(np.dtype(t).itemsize for t in kernel.np_types) > limit:
                print(f"| {kernel.name} | 2^{log2} | skipped: a buffer beyond the device's "
                      f"storage binding range ({limit} bytes) | | | | |")
                continue
            replays = max(args.replays, (1 << args.total_log2) // n)
            gbps = measure(kernel, torch, rng, n, replays, args.repeats)
            theirs = gbps.get("torch")
            print(f"| {kernel.name} | 2^{log2} | {gbps['ours']:.0f} | {gbps['plain']:.0f} | "
                  + (f"{theirs:.0f} | {gbps['ours'] / theirs:.2f}" if theirs else "- | -")
                  + f" | {gbps['ours'] / gbps['plain']:.2f} |")
        check(kernel, kernel.ours, rng, 1000003)  # a prime: the coarsened tail too
        check(kernel, kernel.plain, rng, 1000003)
    print(f"\nours: as built by default (coarsening factor "
          f"{KERNELS[0].ours.bounds.factor} here); plain: coarsen=False; torch: the same op "
          "in a CUDA graph. ours/torch is the headline (target >= 0.97 from 2^22 up).")


if __name__ == "__main__":
    main()
