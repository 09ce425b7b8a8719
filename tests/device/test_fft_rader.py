"""vd.fft at prime lengths above 31 whose ``p - 1`` has only the butterflies' primes (Rader's
algorithm: one fused convolution of length ``p - 1``) against numpy's float64 transforms on
random data: the choice of Rader over Bluestein, forward and inverse (with and without
normalisation) of batched lines, strided axes, 2-D and 3-D transforms, real transforms, mapping
hooks, signal ranges, float64 and float64 arithmetic on float32 data, graphs replayed with new
data, convolutions, the staged loads and stores of GPU plans, and a shader called on a buffer
too small for its shape. ``make test-slow`` runs every prime from 37 to 257 (those whose
``p - 1`` has a prime factor above 31 run Bluestein's algorithm) and 1009, 2017 and 4093.

The bound is ``1e-6 log2 N`` in float32 (the errors seen are a few 1e-7).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import random_array
from test_fft_bluestein import (clipped_fft, conjugated, convolved, doubled,
                                 real_round_trip, replayed_ffts, round_trip)

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, c64
from vkdispatch.fft.bluestein import BluesteinFFT
from vkdispatch.fft.config import DeviceLimits
from vkdispatch.fft.rader import RaderFFT, rader_budget, rader_prime

BOUND32, BOUND64 = 1e-6, 1e-14  # times log2 N
BOUND16 = 2.0**-11 * 8  # float16 arithmetic (eps C, as test_fuzz_fft.py)


def _primes(low: int, high: int) -> list[int]:
    return [p for p in range(low, high) if all(p % d for d in range(2, math.isqrt(p) + 1))]


def assert_close(actual, expected, n: int, bound: float = BOUND32) -> None:
    expected = np.asarray(expected, dtype=np.complex128)
    error = np.linalg.norm(np.asarray(actual) - expected) / np.linalg.norm(expected)
    limit = bound * math.log2(n)
    assert error <= limit, f"relative L2 error {error:.3g} above {limit:.3g} (N = {n})"


def _round_trip(rng, shape, axis: int = -1) -> None:
    x = random_array(rng, shape, np.complex64)
    for actual, expected in round_trip(x, reference=lambda y: np.fft.fft(y, axis=axis),
                                       axis=axis):
        assert_close(actual, expected, shape[axis])


@pytest.mark.parametrize("p", [37, 1009])
def test_rader_primes_match_numpy_forward_and_inverse(context, rng, p):
    assert isinstance(vd.fft.make_fft_shader((3, p)), RaderFFT)
    _round_trip(rng, (3, p))


@pytest.mark.slow
def test_every_prime_from_37_to_257_and_three_long_ones(context, rng):
    """4093 - 1 = 4 x 3 x 11 x 31: the longest direct stage."""
    for p in _primes(37, 258) + [1009, 2017, 4093]:
        plan = vd.fft.make_fft_shader((3, p))
        assert isinstance(plan, RaderFFT if rader_prime(p) else BluesteinFFT), p
        _round_trip(rng, (3, p))


def test_rader_lengths_do_not_run_bluestein(context):
    """The plan, and the traced shader's name, of a Rader prime; others stay Bluestein's."""
    for p in (37, 41, 1009):
        plan = vd.fft.make_fft_shader((p,))
        assert isinstance(plan, RaderFFT) and not isinstance(plan, BluesteinFFT)
        assert plan.get_src().name.startswith("rader_")
    for n in (83, 107, 2 * 37, 37 * 41):  # 82 = 2 x 41, 106 = 2 x 53; composites
        assert isinstance(vd.fft.make_fft_shader((n,)), BluesteinFFT), n


def test_unnormalised_inverse(context, rng):
    x = random_array(rng, (2, 41), np.complex64)
    buffer = vd.asbuffer(x)
    vd.fft.ifft(buffer, normalize=False)
    assert_close(buffer.read(0), np.fft.ifft(x.astype(np.complex128)) * 41, 41)


def test_a_strided_axis_between_two_others(context, rng):
    _round_trip(rng, (3, 43, 5), 1)


@pytest.mark.parametrize("shape, forward, inverse, reference", [
    ((2, 37, 41), vd.fft.fft2, vd.fft.ifft2, np.fft.fft2),
    pytest.param((37, 4, 43), vd.fft.fft3, vd.fft.ifft3, np.fft.fftn, marks=pytest.mark.slow)])
def test_2d_and_3d_transforms_with_rader_axes(context, rng, shape, forward, inverse,
                                               reference):
    x = random_array(rng, shape, np.complex64)
    for actual, expected in round_trip(x, forward, inverse, reference):
        assert_close(actual, expected, max(shape))


@pytest.mark.parametrize("shape", [(4, 37), (2, 3, 127)])
def test_real_transforms(context, rng, shape):
    for actual, expected in real_round_trip(rng, shape):
        assert_close(actual, expected, shape[-1])


def test_real_2d_transforms_with_a_rader_axis(context, rng):
    """A Rader axis under the half spectrum (the real axis is covered above)."""
    for actual, expected in real_round_trip(rng, (37, 8), vd.fft.rfft2, vd.fft.irfft2,
                                            np.fft.rfft2):
        assert_close(actual, expected, 37)


def test_float64_and_float64_arithmetic_on_float32_data(context, rng):
    for dtype, bound in [(np.complex128, BOUND64), (np.complex64, BOUND32)]:
        x = random_array(rng, (3, 101), dtype)
        for actual, expected in round_trip(x, compute_type=vd.complex128):
            assert_close(actual, expected, 101, bound)


def test_half_precision_arithmetic(context, rng):
    """complex32 arithmetic: the table's powers of g (up to 1008) are exact in float16. Data
    of unit scale: sums of a thousand values of 100 overflow float16."""
    x = random_array(rng, (3, 1009), np.complex64) / 100
    for actual, expected in round_trip(x, compute_type=vd.complex32):
        assert_close(actual, expected, 1009, BOUND16)


@vd.map
def _positions(target: Buff[c64]):
    """Stores each output's position in its line and its flat index instead of the value."""
    op = vd.fft.write_op()
    target[op.io_index] = vc.to_dtype(op.register.var_type, vc.to_dtype(vc.f32, op.fft_index),
                                      vc.to_dtype(vc.f32, op.io_index))


@pytest.mark.parametrize("shape, axis", [((4, 43), 1), ((43, 3), 0)])
def test_an_output_hook_sees_each_elements_position_and_index(context, rng, shape, axis):
    x = random_array(rng, shape, np.complex64)
    target = vd.Buffer(shape, vd.complex64)
    vd.fft.fft(target, vd.asbuffer(x), axis=axis, output_map=_positions,
               input_type=vd.complex64)
    np.testing.assert_array_equal(target.read(0).real, np.indices(shape)[axis])
    np.testing.assert_array_equal(target.read(0).imag, np.arange(x.size).reshape(shape))


def test_input_and_output_maps(context, rng):
    x = random_array(rng, (4, 43), np.complex64)
    wide = x.astype(np.complex128)
    source, target = vd.asbuffer(x), vd.Buffer((4, 43), vd.complex64)
    vd.fft.fft(target, source, input_map=doubled)
    assert_close(target.read(0), np.fft.fft(2 * wide), 43)
    vd.fft.fft(target, source, output_map=conjugated, input_type=vd.complex64)
    assert_close(target.read(0), np.conj(np.fft.fft(wide)), 43)
    vd.fft.fft(target, source, inverse=True, input_map=doubled, output_map=conjugated)
    assert_close(target.read(0), np.conj(np.fft.ifft(2 * wide)), 43)
    np.testing.assert_array_equal(source.read(0), x)


def test_input_signal_range(context, rng):
    for start, end in [(5, 30), (0, 20)]:  # without and with x[0]
        assert_close(*clipped_fft(rng, 37, start, end), 37)


def test_a_graph_replays_with_new_data(context, rng):
    for actual, expected in replayed_ffts(rng, 53):
        assert_close(actual, expected, 53)


def test_convolutions_at_rader_lengths(context, rng):
    (line, line_expected), (plane, plane_expected) = convolved(rng, 37, 41)
    assert_close(line, line_expected, 37)
    assert_close(plane, plane_expected, 41)


@pytest.mark.parametrize("p", [47, pytest.param(59, marks=pytest.mark.slow)])
def test_staged_gpu_plans(gpu_plans, rng, p):
    """p - 1 = 2 x 23 or 2 x 29: a direct stage of 23 or 29 registers leaves few threads per
    line, so a GPU plan loads and stores the lines through shared memory in address order."""
    assert isinstance(vd.fft.make_fft_shader((65, p)), RaderFFT)
    limits = DeviceLimits.current()
    budget = rader_budget((65, p), 1, vd.complex64, limits)
    config = vd.fft.FFTConfig((65, p - 1), 1, budget, limits=limits)
    assert vd.fft.FFTGridManager(config, declare_variables=False).staged
    _round_trip(rng, (65, p))
    x = random_array(rng, (65, p), np.float32)
    buffer = vd.RFFTBuffer((65, p))
    buffer.write_real(x)
    vd.fft.rfft(buffer)
    assert_close(buffer.read(0), np.fft.rfft(x.astype(np.float64)), p)


def test_a_shader_made_for_a_longer_line_is_refused(context, rng):
    x = random_array(rng, (10,), np.complex64)
    buffer = vd.asbuffer(x)
    with pytest.raises(ValueError, match=r"\(37,\).*\(10,\)|\(10,\).*\(37,\)"):
        vd.fft.make_fft_shader((37,))(buffer)
    np.testing.assert_array_equal(buffer.read(0), x)
