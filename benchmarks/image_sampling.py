"""Throughput of hardware image sampling: rotating an N x N float32 image by bilinear
sampling, beside torch doing the same rotation.

Ours: one shader call (each invocation computes its source point and calls ``tex.sample``,
clamp-to-border with zeros outside), recorded in a ``vd.CommandGraph`` and replayed with
``instance_count``. torch: ``F.grid_sample(x, F.affine_grid(theta, ...), mode="bilinear",
padding_mode="zeros", align_corners=False)``, what a torch user writes for a rotation (it
writes and reads an N x N x 2 grid on the way), captured in a CUDA graph and replayed: like for
like, one submission of many rotations; and ``grid_sample`` alone with the grid made once
(``torch sample``: torch's sampling kernel by itself, the stricter comparison). For square
images both map every output pixel to the same source point. Figures are medians of --repeats; Gpix/s = N^2 / time. ours/torch above
1: ours is faster. The results are compared with each other (with numpy's model of the same
rotation on CPU devices) after the timed runs.

    python benchmarks/image_sampling.py [--sizes 1024 4096] [--repeats 5] [--angle 30]
"""
from __future__ import annotations

import argparse
import math
import statistics

import numpy as np

import vkdispatch as vd
from vkdispatch.base.device_info import is_cpu_device
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, Img2, f32, i32, v2

from example_modules import load_example  # benchmarks/example_modules.py
from graph_timing import gpu_seconds  # benchmarks/graph_timing.py
from torch_reference import torch_cuda, torch_graph_seconds  # benchmarks/torch_reference.py

ROTATION_EXAMPLE = load_example("image_rotation")  # its numpy model checks CPU devices


@vd.shader("out.size")
def rotate(out: Buff[f32], tex: Img2[f32], side: Const[i32], centre: Const[f32],
           cos_sin: Const[v2]):
    i = vc.global_invocation_id().x
    x = vc.to_float(i % side) - centre
    y = vc.to_float(i // side) - centre
    source = vc.new_register(v2, cos_sin.x * x - cos_sin.y * y + centre,
                             cos_sin.y * x + cos_sin.x * y + centre)
    out[i] = tex.sample(source).x


def measure(n: int, args, torch) -> dict:
    rng = np.random.default_rng(n)
    picture = rng.random((n, n), dtype=np.float32)
    angle = math.radians(args.angle)
    image = vd.Image2D((n, n))
    image.write(picture)
    sampler = image.sample(address_mode=vd.AddressMode.CLAMP_TO_BORDER,
                           border_color=vd.BorderColor.FLOAT_TRANSPARENT_BLACK)
    out = vd.Buffer((n * n,), vd.float32)
    parameters = (n, (n - 1) / 2, (math.cos(angle), math.sin(angle)))
    replays = max(args.replays, (1 << 28) // (n * n))
    timers = {"ours": lambda: gpu_seconds(
        lambda g: rotate(out, sampler, *parameters, graph=g), replays)}
    if torch is not None:
        functional = torch.nn.functional
        x = torch.from_numpy(picture).cuda().reshape(1, 1, n, n)
        theta = torch.tensor([[[math.cos(angle), -math.sin(angle), 0.0],
                               [math.sin(angle), math.cos(angle), 0.0]]], device="cuda")
        result = {}

        def torch_rotate():
            grid = functional.affine_grid(theta, (1, 1, n, n), align_corners=False)
            result["out"] = functional.grid_sample(x, grid, mode="bilinear",
                                                   padding_mode="zeros", align_corners=False)

        grid = functional.affine_grid(theta, (1, 1, n, n), align_corners=False)
        timers["torch"] = lambda: torch_graph_seconds(torch, torch_rotate, replays)
        timers["torch sample"] = lambda: torch_graph_seconds(
            torch, lambda: functional.grid_sample(x, grid, mode="bilinear",
                                                  padding_mode="zeros", align_corners=False),
            replays)
    samples = {name: [] for name in timers}
    for _ in range(args.repeats):
        for name, timer in timers.items():
            samples[name].append(timer())
    row = {name: statistics.median(values) for name, values in samples.items()}
    rotate(out, sampler, *parameters)
    ours = out.read(0).reshape(n, n)
    if torch is not None:
        torch_rotate()
        reference = result["out"].reshape(n, n).cpu().numpy()
    else:
        reference = ROTATION_EXAMPLE.model_rotation(picture, angle)  # float64, zero outside
    row["difference"] = float(np.abs(ours - reference).max())
    return row


def main() -> None:
    torch = torch_cuda()
    cpu = is_cpu_device(vd.get_context().device_infos[0])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[256, 512, 1024] if cpu else [512, 1024, 2048, 4096, 8192])
    parser.add_argument("--repeats", type=int, default=3 if cpu else 5)
    parser.add_argument("--replays", type=int, default=2 if cpu else 10)
    parser.add_argument("--angle", type=float, default=30.0, help="degrees (default 30)")
    args = parser.parse_args()
    print(f"device: {vd.get_context().device_infos[0].device_name}; rotation by "
          f"{args.angle} degrees, bilinear, zeros outside")
    print("| N | ours Gpix/s | torch Gpix/s | ours/torch | torch sample Gpix/s | "
          "ours/torch sample | max difference |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.sizes:
        row = measure(n, args, torch)
        pixels = n * n / 1e9
        ours = pixels / row["ours"]
        cells = []
        for name in ("torch", "torch sample"):
            theirs = pixels / row[name] if name in row else None
            cells += [f"{theirs:.1f}", f"{ours / theirs:.2f}"] if theirs else ["-", "-"]
        print(f"| {n} | {ours:.1f} | {' | '.join(cells)} | {row['difference']:.1e} |")
        if row["difference"] > 1 / 16:
            raise SystemExit(f"N = {n}: the rotation differs from the reference by "
                             f"{row['difference']}")


if __name__ == "__main__":
    main()
