"""Every way the planner splits a line too long for one workgroup, against numpy.

A line that does not fit one workgroup becomes two passes (``FourStepFFT``), and a pass that
does not fit with its stride is split again, so a plan is a tree of passes. The test shrinks
the device's limits (1 KiB of shared memory, 64 invocations) so that every tree shape the
planner can build appears below a few thousand points, walks the planner's own decisions
(``fits_one_pass``, ``split_length``) over every supported length to find each shape, and
runs the first and last length of each against numpy: forward and inverse, contiguous and
strided lines, real transforms, the unfused convolution and complex128; then signal ranges,
real transforms through hooks and Bluestein's four dispatches over two passes. Each runs with
plans made as for a CPU device and as for a GPU, whose pass A stores its lines through shared
memory one after the other.
"""
from __future__ import annotations

import collections
import dataclasses
import functools

import numpy as np
import pytest
from test_fft_errors import load_real, scaled_source as doubled
from test_fft_transforms import (C, EPS32, EPS64, assert_fft_close, assert_fft_round_trip,
                                 crandom, np_ref)

import vkdispatch as vd
from vkdispatch.base import dtype as dt
from vkdispatch.fft.config import DeviceLimits
from vkdispatch.fft.config import FFTConfig
from vkdispatch.fft.grid import FFTGridManager, StridedGroups
from vkdispatch.fft.multi_pass import (SCATTERED_RUN_BYTES, FourStepFFT, fits_one_pass,
                                       split_length)
from vkdispatch.fft.prime_utils import SUPPORTED_PRIMES, prime_factors

LONGEST = 8192  # every shape of pass tree appears below it with the limits below
STRIDES = (1, 3)  # contiguous lines, and lines interleaved with two others


def small(limits: DeviceLimits) -> DeviceLimits:
    """``limits`` shrunk so that lines past 256 points (64 when strided) take several passes;
    every shader made for them also runs on the real device."""
    return dataclasses.replace(limits, max_shared_memory=1024, max_workgroup_invocations=64,
                               max_workgroup_size=(64, 64, 64))


def pass_tree(n: int, stride: int, compute_type, limits: DeviceLimits):
    """The planner's decision for lines of ``n`` that are ``stride`` apart: ``n`` for one
    pass, else ``(n1, n2, pass A's tree, pass B's tree)``."""
    if fits_one_pass(n, compute_type, limits, stride):
        return n
    n1, n2 = split_length(n, compute_type, limits)
    return (n1, n2, pass_tree(n2, n1 * stride, compute_type, limits),
            pass_tree(n1, n2 * stride, compute_type, limits))


def tree_shape(tree) -> str:
    if isinstance(tree, int):
        return "1"
    return f"[{tree_shape(tree[2])},{tree_shape(tree[3])}]"


def built_tree(plan, n: int):
    """The tree of passes of a built plan of length ``n``, as :func:`pass_tree` writes it."""
    if not isinstance(plan, FourStepFFT):
        return n
    return (plan.n1, plan.n2, built_tree(plan.pass_a, plan.n2), built_tree(plan.pass_b, plan.n1))


@functools.lru_cache(maxsize=None)
def representatives(limits: DeviceLimits, compute_type, stride: int) -> dict:
    """The first and last length (up to LONGEST) of every multi-pass tree shape."""
    by_shape = collections.defaultdict(list)
    for n in range(2, LONGEST + 1):
        if all(p in SUPPORTED_PRIMES for p in prime_factors(n)):
            try:
                shape = tree_shape(pass_tree(n, stride, compute_type, limits))
            except ValueError:  # no split fits: refused with an error (tested elsewhere)
                continue
            by_shape[shape].append(n)
    return {shape: sorted({lengths[0], lengths[-1]})
            for shape, lengths in by_shape.items() if shape != "1"}


@pytest.fixture(params=[True, False], ids=["cpu-plans", "gpu-plans"])
def limits(context, monkeypatch, request):
    """Shrunk limits, with plans made as for a CPU device and as for a GPU (whose pass A
    stores its lines through shared memory, one after the other)."""
    shrunk = dataclasses.replace(small(DeviceLimits.of(vd.get_context())), cpu=request.param)
    monkeypatch.setattr(DeviceLimits, "current", classmethod(lambda cls: shrunk))
    return shrunk


def cases(limits: DeviceLimits, compute_type, stride: int) -> list[tuple[str, int]]:
    found = representatives(limits, compute_type, stride)
    assert {"[1,1]", "[[1,1],1]", "[1,[1,1]]", "[[1,1],[1,1]]"} <= set(found), found
    return [(shape, n) for shape, lengths in found.items() for n in lengths]


def transform(rng, shape, axis: int, inverse: bool, limits: DeviceLimits, dtype=np.complex64):
    x = crandom(rng, shape, dtype)
    buf = vd.asbuffer(x)
    compute_type = vd.complex128 if dtype == np.complex128 else vd.complex64
    plan = vd.fft.make_fft_shader(shape, axis, inverse=inverse, compute_type=compute_type,
                                  output_type=compute_type)
    n, stride = shape[axis], int(np.prod(shape[axis + 1:], dtype=int))
    assert built_tree(plan, n) == pass_tree(n, stride, compute_type, limits)
    (vd.fft.ifft if inverse else vd.fft.fft)(buf, axis=axis)
    expected = np_ref(x, np.fft.ifft if inverse else np.fft.fft, axis=axis)
    assert_fft_close(buf.read(0), expected, n, EPS64 if dtype == np.complex128 else EPS32)


def test_every_pass_tree_of_contiguous_lines(limits, rng):
    for shape, n in cases(limits, dt.complex64, 1):
        transform(rng, (2, n), 1, False, limits)
        transform(rng, (n,), 0, True, limits)


def test_gpu_pass_a_stages_partial_groups(gpu_plans, rng):
    """A GPU plan's pass A staging its stores where the last workgroup of each batch holds
    fewer lines than the others (121 columns, no divisor near a group's width): the missing
    lines' stores are guarded, so the batches after it stay as they are."""
    n, batch = 121 * 128, 3
    plan = vd.fft.make_fft_shader((batch, n), -1)
    assert isinstance(plan, FourStepFFT) and (plan.n1, plan.n2) == (121, 128)
    config = FFTConfig((batch, plan.n2, plan.n1), 1, limits=DeviceLimits.current())
    grid = FFTGridManager(config, declare_variables=False,
                          strided=StridedGroups(SCATTERED_RUN_BYTES, staged_stores=True))
    assert grid.staged_stores and grid.partial
    assert_fft_round_trip(rng, (batch, n), round_trip_c=C)


def test_every_pass_tree_of_strided_lines(limits, rng):
    for shape, n in cases(limits, dt.complex64, 3):
        transform(rng, (n, 3), 0, shape.count("[") % 2 == 0, limits)


def test_every_pass_tree_in_complex128(limits, rng):
    if not vd.get_context().device_infos[0].float_64_support:
        pytest.skip("the device has no 64-bit floats")
    for shape, n in cases(limits, dt.complex128, 1):
        transform(rng, (n,), 0, False, limits, np.complex128)


def test_real_transforms_and_convolution_over_nested_passes(limits, rng):
    nested = [n for shape, lengths in representatives(limits, dt.complex64, 1).items()
              if shape != "[1,1]" for n in lengths if n % 2 == 0]
    assert nested
    for n in nested:
        r = (rng.standard_normal((2, n)) * 100).astype(np.float32)
        rbuf = vd.asrfftbuffer(r)
        vd.fft.rfft(rbuf)
        assert_fft_close(rbuf.read_fourier(0), np.fft.rfft(r.astype(np.float64)), n, EPS32)
        vd.fft.irfft(rbuf)
        assert_fft_close(rbuf.read_real(0), r.astype(np.float64), n, EPS32, c=16)

        x, k = crandom(rng, (2, n)), crandom(rng, (2, n))
        signal, kernel = vd.asbuffer(x), vd.asbuffer(k)
        vd.fft.convolve(signal, kernel)
        expected = np.fft.ifft(np.fft.fft(x.astype(np.complex128)) * np.conj(k))
        assert_fft_close(signal.read(0), expected, n, EPS32, c=16)


def test_signal_ranges_and_real_hooks_over_two_passes(limits, rng):
    """input_signal_range (in place, mapped, strided) and real transforms through an
    input_map, over passes whose own ops know neither the whole line nor the range."""
    n = 1024
    assert isinstance(vd.fft.make_fft_shader((2, n)), FourStepFFT)
    x = crandom(rng, (2, n))
    buffer = vd.asbuffer(x)
    vd.fft.fft(buffer, input_signal_range=(3, n - 100))
    y = x.astype(np.complex128)
    y[:, :3], y[:, n - 100:] = 0, 0
    assert_fft_close(buffer.read(0), np.fft.fft(y), n, EPS32)
    out = vd.Buffer((2, n), vd.complex64)
    vd.fft.fft(out, vd.asbuffer(x), input_map=doubled, input_signal_range=(5, None))
    y = 2 * x.astype(np.complex128)
    y[:, :5] = 0
    assert_fft_close(out.read(0), np.fft.fft(y), n, EPS32)
    x = crandom(rng, (n, 3))
    buffer = vd.asbuffer(x)
    vd.fft.fft(buffer, axis=0, input_signal_range=(0, n // 2))
    y = x.astype(np.complex128)
    y[n // 2:] = 0
    assert_fft_close(buffer.read(0), np.fft.fft(y, axis=0), n, EPS32)
    for m in (n, 3**6):  # even, and odd (no packed half-length transform)
        r = (rng.standard_normal((2, m)) * 100).astype(np.float32)
        padded = np.zeros((2, 2 * (m // 2 + 1)), np.float32)
        padded[:, :m] = r
        spectrum = vd.RFFTBuffer((2, m))
        vd.fft.fft(spectrum, vd.asbuffer(padded), buffer_shape=(2, m), r2c=True,
                   input_map=load_real)
        assert_fft_close(spectrum.read_fourier(0), np.fft.rfft(r.astype(np.float64)), m,
                         EPS32)


def test_bluestein_over_two_passes(limits, rng):
    """A prime whose convolution of M exceeds the shrunk workgroup: four dispatches (149 - 1
    = 4 x 37, so not Rader's algorithm)."""
    n = 149
    plan = vd.fft.make_fft_shader((2, n))
    assert plan.passes is not None
    x = crandom(rng, (2, n))
    buffer = vd.asbuffer(x)
    vd.fft.fft(buffer)
    assert_fft_close(buffer.read(0), np_ref(x, np.fft.fft), n, EPS32, c=16)
    vd.fft.ifft(buffer)
    assert_fft_close(buffer.read(0), x.astype(np.complex128), n, EPS32, c=16)
