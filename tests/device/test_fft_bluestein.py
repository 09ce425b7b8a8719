"""vd.fft at lengths with a prime factor above 31 (17..31 have direct butterflies, checked
here too) against numpy's float64 transforms on random data: every such length up to 80 and a
few primes (every one up to 1024 and every prime below 2000, in ``make test-slow``), whichever
algorithm runs them; then, at lengths that run Bluestein's algorithm (composites such as
74 = 2 x 37, primes whose p - 1 has a prime factor above 31 such as 83 = 2 x 41 + 1; the other
primes run Rader's, tested in test_fft_rader.py), each axis of 2-D and 3-D buffers, real
transforms of odd and even lengths, float64, mapping hooks, signal ranges, graphs replayed with
new data, convolutions, lengths whose convolution exceeds one workgroup (four dispatches), and
a shader called on a buffer too small for its shape.

The bound is the one of test_fft_transforms.py, taken at the convolution's length M >= 2N - 1
(the error grows with the transforms of M that Bluestein's algorithm runs; Rader's, of p - 1,
stays within it).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import prime_beyond_one_workgroup, random_array

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, c64
from vkdispatch.fft.bluestein import BluesteinFFT, bluestein_length, needs_bluestein

EPS32, EPS64 = 2.0**-24, 2.0**-53
C = 16  # two transforms of M and two chirp products


def _rough(limit: int) -> list[int]:
    return [n for n in range(2, limit + 1) if needs_bluestein(n)]


def _primes(low: int, high: int) -> list[int]:
    return [p for p in range(low, high) if all(p % d for d in range(2, math.isqrt(p) + 1))]


def assert_close(actual, expected, n: int, eps: float = EPS32) -> None:
    expected = np.asarray(expected, dtype=np.complex128)
    error = np.linalg.norm(np.asarray(actual) - expected) / np.linalg.norm(expected)
    limit = eps * C * math.log2(bluestein_length(n))
    assert error <= limit, f"relative L2 error {error:.3g} above {limit:.3g} (N = {n})"


def round_trip(x: np.ndarray, forward=vd.fft.fft, inverse=vd.fft.ifft, reference=np.fft.fft,
               **options) -> list[tuple]:
    """``(vd.fft, numpy)`` of ``forward`` (numpy's ``reference`` in float64), then of
    ``inverse`` after it (``x``), through one buffer; ``options`` go to both calls."""
    buffer = vd.asbuffer(x)
    forward(buffer, **options)
    transformed = buffer.read(0)
    inverse(buffer, **options)
    return [(transformed, reference(x.astype(np.complex128))), (buffer.read(0), x)]


def real_round_trip(rng, shape: tuple, forward=vd.fft.rfft, inverse=vd.fft.irfft,
                    reference=np.fft.rfft) -> list[tuple]:
    """:func:`round_trip` of random real data of ``shape`` in an RFFTBuffer."""
    x = random_array(rng, shape, np.float32)
    buffer = vd.RFFTBuffer(shape)
    buffer.write_real(x)
    forward(buffer)
    spectrum = buffer.read(0)
    inverse(buffer)
    return [(spectrum, reference(x.astype(np.float64))), (buffer.read_real(0), x)]


def _round_trip(rng, n: int) -> None:
    for actual, expected in round_trip(random_array(rng, (3, n), np.complex64)):
        assert_close(actual, expected, n)


def test_every_rough_length_up_to_80_and_some_primes(context, rng):
    for n in _rough(80) + [83, 251]:
        _round_trip(rng, n)


@pytest.mark.slow
def test_every_rough_length_up_to_1024_and_the_primes_below_2000(context, rng):
    for n in _rough(1024) + _primes(1025, 2000):
        _round_trip(rng, n)


def test_lengths_whose_convolution_exceeds_one_workgroup(context, rng):
    """Four dispatches (two-pass transforms of M into and out of a spectrum buffer): 1-D,
    strided, real, mapped and with a signal range."""
    n = prime_beyond_one_workgroup()
    assert vd.fft.make_fft_shader((n,)).passes is not None
    _round_trip(rng, n)
    x = random_array(rng, (n, 3), np.complex64)
    buffer = vd.asbuffer(x)
    vd.fft.fft(buffer, axis=0)
    assert_close(buffer.read(0), np.fft.fft(x.astype(np.complex128), axis=0), n)
    real = random_array(rng, (2, n), np.float32)
    spectrum = vd.RFFTBuffer((2, n))
    spectrum.write_real(real)
    vd.fft.rfft(spectrum)
    assert_close(spectrum.read(0), np.fft.rfft(real.astype(np.float64)), n)
    vd.fft.irfft(spectrum)
    assert_close(spectrum.read_real(0), real, n)
    x = random_array(rng, (2, n), np.complex64)
    source, out = vd.asbuffer(x), vd.Buffer((2, n), vd.complex64)
    vd.fft.fft(out, source, input_map=doubled, input_signal_range=(10, n - 10))
    y = 2 * x.astype(np.complex128)
    y[:, :10] = 0
    y[:, n - 10:] = 0
    assert_close(out.read(0), np.fft.fft(y), n)
    with pytest.raises(ValueError, match=rf"\({n},\)"):
        vd.fft.make_fft_shader((n,))(vd.Buffer((n - 1,), vd.complex64))


def test_the_plan_is_bluesteins_and_its_length_is_smooth():
    for n in (74, 83, 149, 1019):  # 1019 - 1 = 2 x 509
        m = bluestein_length(n)
        assert m >= 2 * n - 1 and not needs_bluestein(m)
        assert isinstance(vd.fft.make_fft_shader((n,)), BluesteinFFT)
    for n in (16, 17, 31, 2 * 29 * 3, 37, 1009):  # 37, 1009: Rader's
        assert not isinstance(vd.fft.make_fft_shader((n,)), BluesteinFFT)


@pytest.mark.parametrize("n", [17, 19, 23, 29, 31, 2 * 17, 17 * 17, 31 * 128, 29 * 31])
def test_primes_up_to_31_have_direct_butterflies(context, rng, n):
    _round_trip(rng, n)


@pytest.mark.parametrize("shape", [(37, 19, 4), (6, 83, 29), (74, 2, 37)])
def test_every_axis_of_a_3d_buffer(context, rng, shape):
    x = random_array(rng, shape, np.complex64)
    for axis in range(3):
        buffer = vd.asbuffer(x)
        vd.fft.fft(buffer, axis=axis)
        assert_close(buffer.read(0), np.fft.fft(x.astype(np.complex128), axis=axis),
                     shape[axis])
    for actual, expected in round_trip(x, vd.fft.fft3, vd.fft.ifft3, np.fft.fftn):
        assert_close(actual, expected, max(shape))


def test_2d_transforms_with_rough_axes(context, rng):
    x = random_array(rng, (2, 37, 74), np.complex64)
    for actual, expected in round_trip(x, vd.fft.fft2, vd.fft.ifft2, np.fft.fft2):
        assert_close(actual, expected, 74)


@pytest.mark.parametrize("shape", [(4, 83), (3, 74), (2, 3, 82), (1, 107)])
def test_real_transforms_of_odd_and_even_rough_lengths(context, rng, shape):
    for actual, expected in real_round_trip(rng, shape):
        assert_close(actual, expected, shape[-1])


def test_real_2d_transforms_with_a_rough_axis(context, rng):
    for shape in [(6, 83), (74, 8)]:
        for actual, expected in real_round_trip(rng, shape, vd.fft.rfft2, vd.fft.irfft2,
                                                np.fft.rfft2):
            assert_close(actual, expected, max(shape))


def test_float64(context, rng):
    x = random_array(rng, (3, 107), np.complex128)
    for actual, expected in round_trip(x, compute_type=vd.complex128):
        assert_close(actual, expected, 107, EPS64)


@vd.map
def doubled(source: Buff[c64]):
    op = vd.fft.read_op()
    op.read_from_buffer(source)
    op.register[:] = op.register * 2.0


@vd.map
def conjugated(target: Buff[c64]):
    op = vd.fft.write_op()
    value = op.register
    op.register[:] = vc.to_dtype(value.var_type, value.real, -value.imag)
    op.write_to_buffer(target)


def test_mapping_hooks_see_the_callers_indices(context, rng):
    x = random_array(rng, (4, 83), np.complex64)
    source, out = vd.asbuffer(x), vd.asbuffer(random_array(rng, (4, 83), np.complex64))
    vd.fft.fft(out, source, input_map=doubled)
    assert_close(out.read(0), np.fft.fft(2 * x.astype(np.complex128)), 83)
    target = vd.asbuffer(random_array(rng, (4, 83), np.complex64))
    vd.fft.fft(target, source, output_map=conjugated, input_type=vd.complex64)
    assert_close(target.read(0), np.conj(np.fft.fft(x.astype(np.complex128))), 83)
    np.testing.assert_array_equal(source.read(0), x)


def clipped_fft(rng, n: int, start: int, end: int) -> tuple:
    """``(vd.fft, numpy)`` of lines of ``n`` whose samples outside ``[start, end)`` count as
    zeros."""
    x = random_array(rng, (3, n), np.complex64)
    buffer = vd.asbuffer(x)
    vd.fft.fft(buffer, input_signal_range=(start, end))
    y = x.astype(np.complex128)
    y[:, :start] = 0
    y[:, end:] = 0
    return buffer.read(0), np.fft.fft(y)


def replayed_ffts(rng, n: int) -> list[tuple]:
    """``(vd.fft, numpy)`` after each of two submissions of a graph, new data in between."""
    buffer = vd.Buffer((2, n), vd.complex64)
    graph = vd.CommandGraph()
    results = []
    try:
        vd.fft.fft(buffer, graph=graph)
        for _ in range(2):
            x = random_array(rng, (2, n), np.complex64)
            buffer.write(x)
            graph.submit()
            results.append((buffer.read(0), np.fft.fft(x.astype(np.complex128))))
    finally:
        graph.destroy()
    return results


def convolved(rng, n: int, m: int) -> list[tuple]:
    """``(vd.fft, numpy)`` of ``convolve`` along lines of ``n`` and of ``convolve2D`` of an
    ``(m, 8)`` signal."""
    results = []
    for shape, convolve, transform, inverse in [((3, n), vd.fft.convolve, np.fft.fft,
                                                 np.fft.ifft),
                                                ((m, 8), vd.fft.convolve2D, np.fft.fft2,
                                                 np.fft.ifft2)]:
        x, k = (random_array(rng, shape, np.complex64) for _ in range(2))
        signal = vd.asbuffer(x)
        convolve(signal, vd.asbuffer(k))
        results.append((signal.read(0), inverse(transform(x.astype(np.complex128)) *
                                                np.conj(k))))
    return results


def test_input_signal_range(context, rng):
    assert_close(*clipped_fft(rng, 83, 5, 70), 83)


def test_a_graph_replays_with_new_data(context, rng):
    for actual, expected in replayed_ffts(rng, 83):
        assert_close(actual, expected, 83)


def test_convolutions_at_rough_lengths(context, rng):
    (line, line_expected), (plane, plane_expected) = convolved(rng, 74, 83)
    assert_close(line, line_expected, 74)
    assert_close(plane, plane_expected, 83)


@vd.map
def _doubled_kernel(kernel: Buff[c64]):
    op = vd.fft.read_op()
    op.register[:] = vc.mult_complex(op.register, kernel[op.io_index]) * 2.0


@vd.map
def _per_kernel_rows(out: Buff[c64]):
    op = vd.fft.write_op()
    out[op.io_index + vd.fft.mapped_kernel_index() * (2 * op.fft_size)] = op.register


@vd.map
def _per_kernel_spectra(kernel: Buff[c64]):
    op = vd.fft.read_op()
    value = kernel[op.io_index + vd.fft.mapped_kernel_index() * (2 * op.fft_size)]
    op.register[:] = vc.mult_complex(op.register,
                                      vc.to_dtype(value.var_type, value.real, -value.imag))


@pytest.mark.parametrize("n", [83, pytest.param(37, marks=pytest.mark.slow)])  # 37: Rader's
def test_every_convolution_form_at_a_rough_length(context, rng, n):
    """Unfused (a forward FFT, one inverse per kernel): a kernel for every outer batch, a
    signal range, a kernel hook, two kernels (lines of ``2 n``) through hooks that read
    mapped_kernel_index(); a transposed kernel (the fused shader's layout) is refused naming
    it."""
    wide = lambda a: a.astype(np.complex128)  # noqa: E731
    x, k = random_array(rng, (3, 2, n), np.complex64), random_array(rng, (n,), np.complex64)
    signal = vd.asbuffer(x)
    vd.fft.convolve(signal, vd.asbuffer(k), kernel_inner_only=True)
    assert_close(signal.read(0), np.fft.ifft(np.fft.fft(wide(x)) * np.conj(k)), n)
    x, k = (random_array(rng, (2, n), np.complex64) for _ in range(2))
    signal = vd.asbuffer(x)
    vd.fft.convolve(signal, vd.asbuffer(k), input_signal_range=(0, 20))
    y = wide(x)
    y[:, 20:] = 0
    assert_close(signal.read(0), np.fft.ifft(np.fft.fft(y) * np.conj(k)), n)
    signal = vd.asbuffer(x)
    vd.fft.convolve(signal, vd.asbuffer(k), kernel_map=_doubled_kernel)
    assert_close(signal.read(0), np.fft.ifft(np.fft.fft(wide(x)) * k * 2), n)
    kernels = random_array(rng, (2, 2, n), np.complex64)
    out = vd.Buffer((2, 2, n), vd.complex64)
    vd.fft.convolve(out, vd.asbuffer(x), vd.asbuffer(kernels), buffer_shape=(2, n),
                    kernel_map=_per_kernel_spectra, kernel_num=2, output_map=_per_kernel_rows,
                    input_type=vd.complex64)
    expected = [np.fft.ifft(np.fft.fft(wide(x)) * np.conj(kernels[i])) for i in range(2)]
    assert_close(out.read(0), np.stack(expected), n)
    with pytest.raises(ValueError, match=rf"transposed_kernel.*\b{n}\b"):
        vd.fft.convolve(vd.asbuffer(x), vd.asbuffer(k), transposed_kernel=True)


def test_a_shader_made_for_a_longer_line_is_refused(context, rng):
    x = random_array(rng, (10,), np.complex64)
    buffer = vd.asbuffer(x)
    with pytest.raises(ValueError, match=r"\(83,\).*\(10,\)|\(10,\).*\(83,\)"):
        vd.fft.make_fft_shader((83,))(buffer)
    np.testing.assert_array_equal(buffer.read(0), x)
