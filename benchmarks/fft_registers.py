"""What the driver compiles vd.fft's shaders to: registers, shared memory, and how many
workgroups of each a multiprocessor holds at once (its occupancy).

A kernel that reads and writes each value once needs enough work in flight on every
multiprocessor to cover the memory's latency. A workgroup's registers (registers per invocation
x invocations) and its shared memory bound how many workgroups a multiprocessor keeps resident;
the Vulkan driver picks the registers itself, so a shader whose loads, butterflies and twiddles
keep many values live may end up with few workgroups per multiprocessor. For each N this
script makes the shaders of ``vd.fft.fft`` of (batch, N) complex64 rows (--mib MiB, as
benchmarks/fft.py does: one pass, or the four-step passes A and B), of ``vd.fft.convolve``
(--conv-sizes) and the strided pass of ``vd.fft.fft2`` (--two-d), and asks the driver for
their statistics (``ShaderFunction.pipeline_statistics()``). No timing: a diagnostic beside
fft.py and fft_passes.py.

Columns: invocations per workgroup, the driver's registers per invocation and shared memory
per workgroup (NVIDIA's "Register Count" and "Shared Memory Size"), then the workgroups one
multiprocessor holds as limited by registers, by shared memory and by invocations, and the
resident invocations (the least of the three limits x invocations) over the most a
multiprocessor runs. The limits are those of NVIDIA sm_90 GPUs (H100, H200: 65,536
registers allocated 256 a warp, 2,048 invocations, 228 KiB of shared memory with 1 KiB
reserved a workgroup, 32 workgroups; the driver may give shared memory a smaller share),
printed only for NVIDIA devices; other drivers' statistics are listed as they report them. A
driver that reports none (lavapipe) is said so.

    python benchmarks/fft_registers.py [--sizes 6 8 10 11 12 13 14 16 18 20]
                                       [--conv-sizes 10 12] [--two-d 1024] [--mib 256]
"""
from __future__ import annotations

import argparse
import math

import vkdispatch as vd
from vkdispatch.fft.multi_pass import FourStepFFT
from vkdispatch.shader.shader_function import ShaderFunction

REGISTERS, REGISTER_UNIT, WARP = 65536, 256, 32
INVOCATIONS, SHARED, SHARED_RESERVED, GROUPS = 2048, 228 << 10, 1 << 10, 32


def convolution(n: int, mib: int) -> list[tuple[str, ShaderFunction]]:
    """``vd.fft.convolve``'s fused shader of (batch, n) rows."""
    return [("convolve", vd.fft.make_convolution_shader((max(1, (mib << 20) // (8 * n)), n)))]


def columns(n: int, mib: int) -> list[tuple[str, ShaderFunction]]:
    """The strided pass of ``vd.fft.fft2`` of (batch, n, n): lines along axis 1."""
    batch = max(1, (mib << 20) // (8 * n * n))
    return passes(vd.fft.make_fft_shader((batch, n, n), 1), "fft2 columns: ")


def shaders(n: int, mib: int) -> list[tuple[str, ShaderFunction]]:
    """``vd.fft.fft``'s shaders of (batch, n) rows."""
    return passes(vd.fft.make_fft_shader((max(1, (mib << 20) // (8 * n)), n), -1))


def passes(plan, prefix: str = "") -> list[tuple[str, ShaderFunction]]:
    """The shaders of an FFT plan: one pass, or the four-step passes A and B (none listed for
    Rader's and Bluestein's plans)."""
    if isinstance(plan, FourStepFFT):
        return [(f"{prefix}pass A ({plan.n2}-point lines)", plan.pass_a),
                (f"{prefix}pass B ({plan.n1}-point lines)", plan.pass_b)]
    if isinstance(plan, ShaderFunction):
        return [(f"{prefix}one pass", plan)]
    return []


def nvidia_row(statistics: dict, invocations: int) -> list[str]:
    registers, shared = statistics["Register Count"], statistics["Shared Memory Size"]
    warps = -(-invocations // WARP)
    per_warp = -(-registers * WARP // REGISTER_UNIT) * REGISTER_UNIT
    by_registers = REGISTERS // (warps * per_warp)
    by_shared = SHARED // (shared + SHARED_RESERVED)
    by_invocations = min(GROUPS, INVOCATIONS // invocations)
    resident = min(by_registers, by_shared, by_invocations) * invocations
    return [str(registers), str(shared), str(by_registers), str(by_shared), str(by_invocations),
            f"{resident} ({resident / INVOCATIONS:.0%})"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*",
                        default=[6, 8, 10, 11, 12, 13, 14, 16, 18, 20], help="log2 N")
    parser.add_argument("--conv-sizes", type=int, nargs="*", default=[10, 12],
                        help="log2 N of the fused convolutions")
    parser.add_argument("--two-d", type=int, nargs="*", default=[1024],
                        help="N of the N x N transforms whose strided pass is listed")
    parser.add_argument("--mib", type=int, default=256, help="MiB of rows (sets the batch)")
    args = parser.parse_args()
    info = vd.get_context().device_infos[0]
    nvidia = "NVIDIA" in info.device_name
    print(f"device: {info.device_name}")
    header = ["N", "shader", "invocations"]
    header += (["registers", "shared bytes", "groups by registers", "by shared", "by invocations",
                "resident invocations"] if nvidia else ["statistics"])
    print("| " + " | ".join(header) + " |\n|" + "|".join("--:" for _ in header) + "|")
    rows = ([(1 << k, shaders) for k in args.sizes] + [(1 << k, convolution) for k in
            args.conv_sizes] + [(n, columns) for n in args.two_d])
    for n, make in rows:
        for label, shader in make(n, args.mib):
            try:
                statistics = shader.pipeline_statistics()
            except ValueError as error:
                print(f"\n{error}")
                return
            invocations = math.prod(shader.local_size)
            (program, values), = statistics.items()
            cells = (nvidia_row(values, invocations) if nvidia else
                     [f"{program}: " + ", ".join(f"{k} {v}" for k, v in values.items())])
            print("| " + " | ".join([str(n), label, str(invocations)] + cells) + " |")


if __name__ == "__main__":
    main()
