"""How long vd.vkfft takes to build a plan in a new process: cold (empty disk cache: VkFFT
generates and compiles its kernels with glslang) and warm (a second process finding them in the
disk cache: only the pipelines are created).

Each case runs in a fresh Python process (the context created before the clock starts) with
XDG_CACHE_HOME pointing at a new temporary folder, first cold, then warm in the same folder.
The figure is the wall time of ``vd.vkfft.VkFFTPlan(...)`` (one plan, built on every device of
the context), the median of --repeats pairs of processes. Target: warm under 20 ms.

    python benchmarks/vkfft_plans.py [--repeats 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES = {  # label: VkFFTPlan arguments
    "C2C 4096, batched": dict(shape=(16384, 4096), axes=[1]),
    "C2C 2-D 1024^2": dict(shape=(1024, 1024)),
    "R2C 4096, batched": dict(shape=(16384, 4096), axes=[1], do_r2c=True),
    "C2C 1009 (Bluestein)": dict(shape=(1024, 1009), axes=[1]),
    "convolution 512^2": dict(shape=(512, 512), kernel_count=1, normalize=True),
}


def child(label: str) -> None:
    import vkdispatch as vd
    vd.get_context()
    start = time.perf_counter()
    vd.vkfft.VkFFTPlan(**CASES[label])
    print(f"{1e3 * (time.perf_counter() - start):.3f}")


def run(label: str, cache: str) -> float:
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    out = subprocess.run([sys.executable, __file__, "--child", label], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    print("| plan | cold ms | warm ms |\n|---|---:|---:|")
    for label in CASES:
        cold, warm = [], []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as cache:
                cold.append(run(label, cache))
                warm.append(run(label, cache))
        print(f"| {label} | {statistics.median(cold):.1f} | {statistics.median(warm):.1f} |")


if __name__ == "__main__":
    main()
