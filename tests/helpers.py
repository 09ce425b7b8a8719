"""Helpers shared by the test suites (imported as ``helpers``; tests/ is on sys.path)."""
from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NoReturn

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, u32

REQUIRE_DEVICE = "VKDISPATCH_REQUIRE_DEVICE"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@contextlib.contextmanager
def loaded_example(relative_path: str) -> Iterator:
    """The example program ``examples/<relative_path>`` imported as a module (registered in
    sys.modules while in use: dataclasses look their module up there)."""
    path = EXAMPLES / relative_path
    name = "example_" + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[name]


def device_missing(reason: str, environ: Mapping[str, str] = os.environ) -> NoReturn:
    """Ends a test that needs a Vulkan device when none is usable: skips it, or fails it when
    ``VKDISPATCH_REQUIRE_DEVICE`` is set (not ``0``), as in CI, where lavapipe must be there."""
    if environ.get(REQUIRE_DEVICE, "") not in ("", "0"):
        pytest.fail(f"{reason} ({REQUIRE_DEVICE}={environ[REQUIRE_DEVICE]}: the device tests "
                    "must run)", pytrace=False)
    pytest.skip(reason)


def random_array(rng: np.random.Generator, shape, np_dtype) -> np.ndarray:
    """Random values spanning the type's useful range (never all zeros)."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind == "c":
        real = rng.standard_normal(shape) * 100
        imag = rng.standard_normal(shape) * 100
        return (real + 1j * imag).astype(np_dtype)
    if np_dtype.kind == "f":
        return (rng.standard_normal(shape) * 100).astype(np_dtype)
    info = np.iinfo(np_dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=np_dtype, endpoint=True)


def prime_beyond_one_workgroup() -> int:
    """A prime whose Bluestein convolution (at least twice as long) exceeds one workgroup: the
    lengths vd.fft refuses."""
    n = fft_single_pass_limit() + 1
    while any(n % d == 0 for d in range(2, math.isqrt(n) + 1)):
        n += 1
    return n


def fft_single_pass_limit(compute_type=None) -> int:
    """The longest power-of-two line vd.fft transforms in one pass on the current device: at
    least what shared memory holds as complex values, longer when the planner exchanges one
    component at a time (beyond it, complex transforms take two passes)."""
    compute_type = compute_type or vd.complex64
    items = vd.get_context().max_shared_memory // compute_type.item_size
    n = 1 << (items.bit_length() - 1)
    while True:
        try:
            vd.fft.FFTConfig((2 * n,), compute_type=compute_type)
        except ValueError:
            return n
        n *= 2


SPIN_LOCAL = 64


def spin_shader():
    """A shader whose every invocation iterates an LCG ``count`` times and stores the result
    (:func:`lcg`): at most 65535 times (llvmpipe stops longer loops), and with many workgroups a
    kernel that runs for seconds on a CPU device. Workgroups of :data:`SPIN_LOCAL`."""
    @vd.shader(local_size=(SPIN_LOCAL, 1, 1))
    def spin(out: Buff[u32], count: Const[u32]):
        total = vc.new_uint_register(0)
        step = vc.new_uint_register(0)
        with vc.while_block(step < count):
            total[:] = total * 1664525 + 1013904223
            step += 1
        out[vc.global_invocation_id().x] = total

    return spin


def lcg(count: int) -> int:
    """What every invocation of :func:`spin_shader` stores for ``count``."""
    total = 0
    for _ in range(count):
        total = (total * 1664525 + 1013904223) % 2**32
    return total
