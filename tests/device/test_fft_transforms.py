"""vd.fft transforms against numpy.fft on random data: every axis (negative ones too) of 1-3-D
buffers, lengths whose prime factors are 2..13 up to the device's longest line, batches,
multi-axis forms, real transforms, normalisation, input_signal_range and precisions.

Errors are measured as relative L2 and relative max errors against a float64 numpy
reference (extended precision for complex128 results) and bounded by how floating-point
error grows in an FFT: ``eps * C * log2(N)``, with ``eps`` the unit roundoff of the I/O or
compute type and N the number of points transformed together.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import fft_single_pass_limit, random_array

import vkdispatch as vd
from vkdispatch.fft.config import DeviceLimits
from vkdispatch.fft.multi_pass import FourStepFFT

EPS32, EPS64, EPS16 = 2.0**-24, 2.0**-53, 2.0**-11
C = 8

LENGTHS = [1, 2, 3, 5, 7, 11, 13, 16, 30, 64, 77, 100, 128, 143, 169, 210, 256, 343, 512,
           1000, 1024, 2048]


# -- helpers ----------------------------------------------------------------------------------

def bound(n: int, eps: float, c: float = C) -> float:
    return eps * c * math.log2(max(n, 2))


def errors(actual, expected) -> tuple[float, float]:
    """(relative L2 error, max error relative to the largest expected magnitude), computed in
    the extended precision of ``expected``."""
    expected = np.asarray(expected)
    wide = np.clongdouble if expected.dtype in (np.clongdouble, np.longdouble) else np.complex128
    diff = np.asarray(actual).astype(wide) - expected.astype(wide)
    scale = np.sqrt(np.sum(np.abs(expected.astype(wide)) ** 2))
    l2 = float(np.sqrt(np.sum(np.abs(diff) ** 2)) / scale)
    peak = float(np.max(np.abs(diff)) / np.max(np.abs(expected.astype(wide))))
    return l2, peak


def assert_fft_close(actual, expected, n: int, eps: float, c: float = C) -> None:
    assert np.shape(actual) == np.shape(expected)
    assert np.all(np.isfinite(actual))
    limit = bound(n, eps, c)
    l2, peak = errors(actual, expected)
    assert l2 <= limit and peak <= limit, (
        f"relative L2 error {l2:.3g} / max error {peak:.3g} exceed {limit:.3g} "
        f"(= eps {eps:.3g} * {c} * log2({n}); in eps: {l2 / eps:.2f}, {peak / eps:.2f})")


def crandom(rng, shape, dtype=np.complex64) -> np.ndarray:
    return random_array(rng, shape, dtype)


def np_ref(x, fn, *args, **kwargs):
    """numpy's transform of ``x`` in float64 (complex128 data: extended precision)."""
    wide = np.clongdouble if np.asarray(x).dtype == np.complex128 else np.complex128
    return fn(np.asarray(x).astype(wide), *args, **kwargs)


def assert_fft_round_trip(rng, shape: tuple, round_trip_c: float = 2 * C) -> None:
    """Random complex64 rows of ``shape``: ``vd.fft.fft`` in place along the last axis against
    numpy's, then ``vd.fft.ifft`` back to the rows (within ``round_trip_c`` log2 N eps)."""
    n = shape[-1]
    x = crandom(rng, shape)
    buf = vd.asbuffer(x)
    vd.fft.fft(buf)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft), n, EPS32)
    vd.fft.ifft(buf)
    assert_fft_close(buf.read(0), x.astype(np.complex128), n, EPS32, c=round_trip_c)


max_pow2_length = fft_single_pass_limit


# -- lengths: contiguous and strided lines, forward and inverse --------------------------------

@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("inverse", [False, True], ids=["fft", "ifft"])
def test_1d_lengths_match_numpy(context, rng, n, inverse):
    x = crandom(rng, (n,))
    buf = vd.asbuffer(x)
    (vd.fft.ifft if inverse else vd.fft.fft)(buf)
    expected = np_ref(x, np.fft.ifft if inverse else np.fft.fft)
    assert_fft_close(buf.read(0), expected, n, EPS32)


@pytest.mark.parametrize("n", [3, 13, 77, 210, 343, 2048])
@pytest.mark.parametrize("batch", [1, 3, 37])
def test_batched_lines_along_last_axis(context, rng, n, batch):
    x = crandom(rng, (batch, n))
    buf = vd.asbuffer(x)
    vd.fft.fft(buf)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft, axis=-1), n, EPS32)


@pytest.mark.parametrize("n", [2, 7, 16, 100, 143, 169, 343, 1024])
@pytest.mark.parametrize("batch", [1, 5, 33])
def test_batched_strided_lines_along_first_axis(context, rng, n, batch):
    x = crandom(rng, (n, batch))
    buf = vd.asbuffer(x)
    vd.fft.ifft(buf, axis=0)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.ifft, axis=0), n, EPS32)


@pytest.mark.parametrize("shape", [(30,), (13, 100), (64, 6), (6, 11, 16), (5, 8, 3),
                                   (2, 3, 7)], ids=str)
@pytest.mark.parametrize("inverse", [False, True], ids=["fft", "ifft"])
def test_every_axis_including_negative_ones(context, rng, shape, inverse):
    for axis in range(-len(shape), len(shape)):
        x = crandom(rng, shape)
        buf = vd.asbuffer(x)
        (vd.fft.ifft if inverse else vd.fft.fft)(buf, axis=axis)
        expected = np_ref(x, np.fft.ifft if inverse else np.fft.fft, axis=axis)
        assert_fft_close(buf.read(0), expected, shape[axis], EPS32)


def test_fft_with_inverse_flag_equals_ifft(context, rng):
    x = crandom(rng, (4, 210))
    buf = vd.asbuffer(x)
    vd.fft.fft(buf, inverse=True)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.ifft), 210, EPS32)


def test_longest_power_of_two_line_fits_in_one_pass(context, rng):
    n = max_pow2_length()
    assert n >= vd.get_context().max_shared_memory // 8
    assert_fft_round_trip(rng, (3, n))

    strided = crandom(rng, (n, 2))
    sbuf = vd.asbuffer(strided)
    vd.fft.fft(sbuf, axis=0)
    assert_fft_close(sbuf.read(0), np_ref(strided, np.fft.fft, axis=0), n, EPS32)

    r = (rng.standard_normal((2, n)) * 100).astype(np.float32)
    rbuf = vd.asrfftbuffer(r)
    vd.fft.rfft(rbuf)
    assert_fft_close(rbuf.read_fourier(0), np.fft.rfft(r.astype(np.float64)), n, EPS32)
    vd.fft.irfft(rbuf)
    assert_fft_close(rbuf.read_real(0), r.astype(np.float64), n, EPS32, c=2 * C)


def test_one_pass_plan_of_twice_the_longest_line_raises_naming_the_length(context):
    for compute_type in (vd.complex64, vd.complex128):
        n = 2 * max_pow2_length(compute_type)
        with pytest.raises(ValueError, match=rf"\b{n}\b"):
            vd.fft.FFTConfig((n,), compute_type=compute_type)


def _beyond_one_pass(rng, shape, axis=-1, inverse=False, **kwargs):
    """A complex transform longer than one workgroup holds runs in two passes, as exactly."""
    n = shape[axis]
    x = crandom(rng, shape)
    buf = vd.asbuffer(x)
    vd.fft.fft(buf, axis=axis, inverse=inverse, **kwargs)
    assert isinstance(vd.fft.make_fft_shader(shape, axis, inverse=inverse, **kwargs),
                      FourStepFFT)
    expected = np_ref(x, np.fft.ifft if inverse else np.fft.fft, axis=axis)
    assert_fft_close(buf.read(0), expected, n, EPS32)


def test_lines_beyond_one_workgroup_take_two_passes(context, rng):
    n = 2 * max_pow2_length()
    _beyond_one_pass(rng, (2, n))
    _beyond_one_pass(rng, (n, 3), axis=0, inverse=True)
    _beyond_one_pass(rng, (3, 2 * n, 2), axis=1)
    if vd.get_context().device_infos[0].float_64_support:
        _beyond_one_pass(rng, (2 * max_pow2_length(vd.complex128),),
                         compute_type=vd.complex128)
    for real_shape in ((2, 2 * n), (2, 3, n + n // 2)):  # real lines past the packed limit
        r = (rng.standard_normal(real_shape) * 100).astype(np.float32)
        rbuf = vd.asrfftbuffer(r)
        vd.fft.rfft(rbuf)
        length = real_shape[-1]
        assert_fft_close(rbuf.read_fourier(0), np.fft.rfft(r.astype(np.float64)), length,
                         EPS32)
        vd.fft.irfft(rbuf)
        assert_fft_close(rbuf.read_real(0), r.astype(np.float64), length, EPS32, c=2 * C)


def test_a_prime_axis_beside_a_smooth_one(context, rng):
    """A prime with a direct butterfly (17) along one axis, the radix stages along the
    other."""
    x = crandom(rng, (17, 16))
    buf = vd.asbuffer(x)
    vd.fft.fft(buf, axis=1)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft, axis=1), 16, EPS32)
    vd.fft.fft(buf, axis=0)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft2), 17 * 16, EPS32)


@pytest.mark.parametrize("shape,axis", [((1,), 0), ((5, 1), -1), ((1, 7), 0), ((3, 1, 4), 1)])
def test_length_one_is_the_identity(context, rng, shape, axis):
    x = crandom(rng, shape)
    buf = vd.asbuffer(x)
    vd.fft.fft(buf, axis=axis)
    np.testing.assert_array_equal(buf.read(0), x)
    vd.fft.ifft(buf, axis=axis)
    np.testing.assert_array_equal(buf.read(0), x)


def test_name_is_accepted(context, rng):
    x = crandom(rng, (2, 48))
    buf = vd.asbuffer(x)
    vd.fft.fft(buf, name="my_named_fft")
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft), 48, EPS32)
    vd.fft.ifft(buf, name="my_named_ifft")
    assert_fft_close(buf.read(0), x.astype(np.complex128), 48, EPS32, c=2 * C)


# -- 2-D and 3-D transforms ---------------------------------------------------------------------

_MULTI_AXIS = {"fft2": (vd.fft.fft2, vd.fft.ifft2, np.fft.fft2, np.fft.ifft2, 2),
               "fft3": (vd.fft.fft3, vd.fft.ifft3, np.fft.fftn, np.fft.ifftn, 3)}


@pytest.mark.parametrize("name,shape", [
    ("fft2", (16, 30)), ("fft2", (77, 8)), ("fft2", (1, 13)), ("fft2", (3, 12, 10)),
    ("fft2", (5, 7, 64)), ("fft3", (8, 6, 10)), ("fft3", (13, 4, 9)), ("fft3", (2, 16, 1)),
    ("fft3", (7, 11, 5))], ids=str)
def test_multi_axis_transforms_match_numpy(context, rng, name, shape):
    """fft2/ifft2 over the last two axes (a 3-D buffer is a batch), fft3/ifft3 over all."""
    forward, inverse, np_forward, np_inverse, axes = _MULTI_AXIS[name]
    n = math.prod(shape[-axes:])
    x = crandom(rng, shape)
    buf = vd.asbuffer(x)
    forward(buf)
    assert_fft_close(buf.read(0), np_ref(x, np_forward), n, EPS32)
    y = crandom(rng, shape)
    buf.write(y)
    inverse(buf)
    assert_fft_close(buf.read(0), np_ref(y, np_inverse), n, EPS32)


def test_multi_axis_inverses_without_normalisation(context, rng):
    x2, x3 = crandom(rng, (12, 20)), crandom(rng, (4, 6, 10))
    b2, b3 = vd.asbuffer(x2), vd.asbuffer(x3)
    vd.fft.ifft2(b2, normalize=False)
    vd.fft.ifft3(b3, normalize=False)
    assert_fft_close(b2.read(0), np_ref(x2, np.fft.ifft2) * 240, 240, EPS32)
    assert_fft_close(b3.read(0), np_ref(x3, np.fft.ifftn) * 240, 240, EPS32)


def test_round_trips_recover_the_input(context, rng):
    x = crandom(rng, (6, 10, 14))
    buf = vd.asbuffer(x)
    vd.fft.fft3(buf)
    vd.fft.ifft3(buf)
    assert_fft_close(buf.read(0), x.astype(np.complex128), x.size, EPS32, c=2 * C)
    vd.fft.fft2(buf)
    vd.fft.ifft2(buf)
    assert_fft_close(buf.read(0), x.astype(np.complex128), x.size, EPS32, c=4 * C)


# -- normalisation ----------------------------------------------------------------------------

@pytest.mark.parametrize("n", [7, 64, 210])
def test_inverse_without_normalisation_is_n_times_numpy(context, rng, n):
    x = crandom(rng, (3, n))
    buf = vd.asbuffer(x)
    vd.fft.ifft(buf, normalize=False)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.ifft) * n, n, EPS32)
    buf.write(x)
    vd.fft.fft(buf, inverse=True, normalize_inverse=False)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.ifft) * n, n, EPS32)
    buf.write(x)
    vd.fft.fft(buf, normalize_inverse=False)  # no effect on a forward transform
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft), n, EPS32)


# -- real transforms --------------------------------------------------------------------------

def random_spectrum(rng, real_shape, dtype=np.complex64) -> np.ndarray:
    """A random half spectrum, imaginary DC/Nyquist parts included (irfft ignores them)."""
    return crandom(rng, tuple(real_shape[:-1]) + (real_shape[-1] // 2 + 1,), dtype)


@pytest.mark.parametrize("real_shape", [(2,), (4,), (6,), (16,), (15,), (1000,), (77,), (3, 30),
                                        (5, 13), (2, 3, 64), (2, 4, 9), (3, 2048), (1, 1)],
                         ids=str)
def test_rfft_and_irfft_match_numpy(context, rng, real_shape):
    n = real_shape[-1]
    x = (rng.standard_normal(real_shape) * 100).astype(np.float32)
    buf = vd.asrfftbuffer(x)
    assert buf.fourier_shape == real_shape[:-1] + (n // 2 + 1,)
    vd.fft.rfft(buf)
    assert_fft_close(buf.read_fourier(0), np.fft.rfft(x.astype(np.float64)), n, EPS32)
    vd.fft.irfft(buf)
    back = buf.read_real(0)
    assert back.shape == real_shape and back.dtype == np.float32
    assert_fft_close(back, x.astype(np.float64), n, EPS32, c=2 * C)

    spectrum = random_spectrum(rng, real_shape)
    buf.write_fourier(spectrum)
    vd.fft.irfft(buf)
    expected = np.fft.irfft(spectrum.astype(np.complex128), n=n)
    assert_fft_close(buf.read_real(0), expected, n, EPS32)


@pytest.mark.parametrize("n", [7, 9, 15, 25, 27])
def test_staged_gpu_plans_with_a_partial_last_group(gpu_plans, rng, n):
    """Short lines as a GPU plan runs them (staged through shared memory) where the last
    workgroup holds fewer lines than the others (its missing lines load copies of the last)."""
    batch = 301
    config = vd.fft.FFTConfig((batch, n), 1, limits=DeviceLimits.current())
    grid = vd.fft.FFTGridManager(config, declare_variables=False)
    assert grid.staged and grid.partial
    assert_fft_round_trip(rng, (batch, n))

    real = (rng.standard_normal((batch, 2 * n)) * 100).astype(np.float32)
    rbuf = vd.asrfftbuffer(real)
    vd.fft.rfft(rbuf)
    assert_fft_close(rbuf.read_fourier(0), np.fft.rfft(real.astype(np.float64)), 2 * n, EPS32)
    spectrum = random_spectrum(rng, real.shape)
    rbuf.write_fourier(spectrum)
    vd.fft.irfft(rbuf)
    expected = np.fft.irfft(spectrum.astype(np.complex128), n=2 * n)
    assert_fft_close(rbuf.read_real(0), expected, 2 * n, EPS32)


_MULTI_AXIS_REAL = {
    "rfft2": (vd.fft.rfft2, vd.fft.irfft2, np.fft.rfft2,
              lambda spectrum, shape: np.fft.irfft2(spectrum, s=shape[-2:]), 2),
    "rfft3": (vd.fft.rfft3, vd.fft.irfft3, np.fft.rfftn,
              lambda spectrum, shape: np.fft.irfftn(spectrum, s=shape, axes=(0, 1, 2)), 3),
}


@pytest.mark.parametrize("name,real_shape", [
    ("rfft2", (8, 10)), ("rfft2", (7, 9)), ("rfft2", (3, 6, 12)), ("rfft2", (2, 5, 7)),
    ("rfft3", (4, 6, 10)), ("rfft3", (3, 5, 9)), ("rfft3", (8, 2, 16))], ids=str)
def test_multi_axis_real_transforms_match_numpy(context, rng, name, real_shape):
    forward, inverse, np_forward, np_inverse, axes = _MULTI_AXIS_REAL[name]
    n = math.prod(real_shape[-axes:])
    x = (rng.standard_normal(real_shape) * 100).astype(np.float32)
    buf = vd.asrfftbuffer(x)
    forward(buf)
    assert_fft_close(buf.read_fourier(0), np_forward(x.astype(np.float64)), n, EPS32)
    inverse(buf)
    assert_fft_close(buf.read_real(0), x.astype(np.float64), n, EPS32, c=2 * C)

    spectrum = random_spectrum(rng, real_shape)
    buf.write_fourier(spectrum)
    inverse(buf)
    expected = np_inverse(spectrum.astype(np.complex128), real_shape)
    assert_fft_close(buf.read_real(0), expected, n, EPS32)


@pytest.mark.parametrize("real_shape", [(3, 10), (2, 4, 7)], ids=str)
def test_real_inverses_without_normalisation(context, rng, real_shape):
    spectrum = random_spectrum(rng, real_shape)
    buf = vd.RFFTBuffer(real_shape)
    n1, n2 = real_shape[-1], real_shape[-1] * real_shape[-2]
    buf.write_fourier(spectrum)
    vd.fft.irfft(buf, normalize=False)
    expected = np.fft.irfft(spectrum.astype(np.complex128), n=n1) * n1
    assert_fft_close(buf.read_real(0), expected, n1, EPS32)
    buf.write_fourier(spectrum)
    vd.fft.irfft2(buf, normalize=False)
    expected = np.fft.irfft2(spectrum.astype(np.complex128), s=real_shape[-2:]) * n2
    assert_fft_close(buf.read_real(0), expected, n2, EPS32)
    if len(real_shape) == 3:
        buf.write_fourier(spectrum)
        vd.fft.irfft3(buf, normalize=False)
        n3 = math.prod(real_shape)
        expected = np.fft.irfftn(spectrum.astype(np.complex128), s=real_shape, axes=(0, 1, 2)) * n3
        assert_fft_close(buf.read_real(0), expected, n3, EPS32)


def test_rfft_name_is_accepted_and_padding_is_not_data(context, rng):
    x = (rng.standard_normal((4, 11)) * 100).astype(np.float32)
    buf = vd.asrfftbuffer(x)
    # Garbage in the row padding (one scalar for odd N) must not reach the spectrum.
    padded = buf.read(0).view(np.float32).copy()
    padded[:, 11] = 1e6
    buf.write(padded.view(np.complex64))
    vd.fft.rfft(buf, name="named_rfft")
    assert_fft_close(buf.read_fourier(0), np.fft.rfft(x.astype(np.float64)), 11, EPS32)
    vd.fft.irfft(buf, name="named_irfft")
    assert_fft_close(buf.read_real(0), x.astype(np.float64), 11, EPS32, c=2 * C)


# -- input_signal_range -----------------------------------------------------------------------

def masked(x, start, end, axis):
    n = x.shape[axis]
    start, end = (0 if start is None else start), (n if end is None else end)
    keep = np.zeros(n, bool)
    keep[start:end] = True
    shape = [1] * x.ndim
    shape[axis] = n
    return np.where(keep.reshape(shape), x, 0)


@pytest.mark.parametrize("signal_range", [None, (0, 64), (None, None), (10, None), (None, 40),
                                          (10, 40), (63, 64), (0, 1), (17, 17)], ids=str)
def test_input_signal_range_zero_masks_outside_samples(context, rng, signal_range):
    x = crandom(rng, (5, 64))
    start, end = signal_range or (None, None)
    # Samples outside the range hold NaN: they must be neither read nor propagated.
    data = x.copy()
    outside = masked(np.ones_like(x), start, end, -1) == 0
    data[outside] = np.nan
    buf = vd.asbuffer(data)
    vd.fft.fft(buf, input_signal_range=signal_range)
    expected = np_ref(masked(x, start, end, -1), np.fft.fft)
    result = buf.read(0)
    if not np.any(~outside):
        np.testing.assert_array_equal(result, np.zeros_like(x))
    else:
        assert_fft_close(result, expected, 64, EPS32)


@pytest.mark.parametrize("signal_range", [(5, 30), (None, 12), (40, None)], ids=str)
def test_input_signal_range_on_a_strided_axis_and_inverse(context, rng, signal_range):
    x = crandom(rng, (48, 6))
    start, end = signal_range
    buf = vd.asbuffer(x)
    vd.fft.fft(buf, axis=0, inverse=True, input_signal_range=signal_range)
    expected = np_ref(masked(x, start, end, 0), np.fft.ifft, axis=0)
    assert_fft_close(buf.read(0), expected, 48, EPS32)


@pytest.mark.parametrize("n,signal_range", [(16, (3, 11)), (15, (None, 9)), (30, (2, None))],
                         ids=str)
def test_input_signal_range_with_real_transforms(context, rng, n, signal_range):
    x = (rng.standard_normal((3, n)) * 100).astype(np.float32)
    buf = vd.asrfftbuffer(x)
    vd.fft.fft(buf, buffer_shape=buf.real_shape, r2c=True, input_signal_range=signal_range)
    expected = np.fft.rfft(masked(x.astype(np.float64), *signal_range, -1))
    assert_fft_close(buf.read_fourier(0), expected, n, EPS32)


# -- precisions -------------------------------------------------------------------------------

def needs_fp64(context):
    if not vd.get_context().device_infos[0].float_64_support:
        pytest.skip("the device lacks float64")


def needs_fp16(context):
    info = vd.get_context().device_infos[0]
    if not (info.float_16_support and (info.storage_buffer_16_bit_access
                                       or info.uniform_and_storage_buffer_16_bit_access)):
        pytest.skip("the device lacks float16 storage/arithmetic")


def complex32_buffer(rng, shape):
    """A complex32 buffer of random (re, im) float16 pairs and the complex64 values it holds."""
    pairs = rng.standard_normal(tuple(shape) + (2,)).astype(np.float16)
    buf = vd.Buffer(shape, vd.complex32)
    buf.write(pairs)
    values = buf.read(0)
    np.testing.assert_array_equal(values.real, pairs[..., 0].astype(np.float32))
    np.testing.assert_array_equal(values.imag, pairs[..., 1].astype(np.float32))
    return buf, values


@pytest.mark.parametrize("shape,axis", [((64,), -1), ((3, 100), -1), ((77, 4), 0),
                                        ((2, 1024), 1)], ids=str)
def test_complex32_io_computes_in_complex64(context, rng, shape, axis):
    needs_fp16(context)
    n = shape[axis]
    buf, x = complex32_buffer(rng, shape)
    vd.fft.fft(buf, axis=axis)
    result = buf.read(0)
    assert result.dtype == np.complex64
    assert_fft_close(result, np_ref(x, np.fft.fft, axis=axis), n, EPS16)
    buf, x = complex32_buffer(rng, shape)
    vd.fft.ifft(buf, axis=axis)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.ifft, axis=axis), n, EPS16)


@pytest.mark.parametrize("shape,axis", [((64,), -1), ((2, 1024), 1), ((16, 3), 0)], ids=str)
def test_complex32_compute_of_power_of_two_lengths(context, rng, shape, axis):
    """fp16 registers: the error bound is eps16-based like the I/O."""
    needs_fp16(context)
    n = shape[axis]
    buf, x = complex32_buffer(rng, shape)
    vd.fft.fft(buf, axis=axis, compute_type=vd.complex32)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft, axis=axis), n, EPS16)
    buf, x = complex32_buffer(rng, shape)
    vd.fft.fft(buf, axis=axis, inverse=True, normalize_inverse=False, compute_type=vd.complex32)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.ifft, axis=axis) * n, n, EPS16)


def test_complex32_compute_normalised_inverse(context, rng):
    needs_fp16(context)
    buf, x = complex32_buffer(rng, (64,))
    vd.fft.ifft(buf, compute_type=vd.complex32)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.ifft), 64, EPS16)


@pytest.mark.parametrize("shape", [(3, 100), (12,)], ids=str)
def test_complex32_compute_odd_prime_lengths(context, rng, shape):
    needs_fp16(context)
    buf, x = complex32_buffer(rng, shape)
    vd.fft.fft(buf, compute_type=vd.complex32)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft), shape[-1], EPS16)


def test_complex32_multi_axis(context, rng):
    needs_fp16(context)
    buf, x = complex32_buffer(rng, (4, 12, 10))
    vd.fft.fft2(buf)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft2), 120, EPS16)
    buf, x = complex32_buffer(rng, (4, 12, 10))
    vd.fft.fft3(buf)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fftn), 480, EPS16)


def test_complex32_real_transforms(context, rng):
    needs_fp16(context)
    x = rng.standard_normal((3, 40)).astype(np.float16)
    buf = vd.asrfftbuffer(x)
    assert buf.var_type is vd.complex32
    vd.fft.rfft(buf)
    assert_fft_close(buf.read_fourier(0), np.fft.rfft(x.astype(np.float64)), 40, EPS16)
    vd.fft.irfft(buf)
    back = buf.read_real(0)
    assert back.dtype == np.float16
    assert_fft_close(back, x.astype(np.float64), 40, EPS16, c=2 * C)


@pytest.mark.parametrize("n", [2, 7, 13, 16, 77, 169, 1000, 2048] + [
    pytest.param(n, marks=pytest.mark.slow) for n in (3, 5, 11, 30, 100, 143, 210, 343, 1024)])
def test_complex128_lengths(context, rng, n):
    needs_fp64(context)
    x = crandom(rng, (2, n), np.complex128)
    buf = vd.asbuffer(x)
    vd.fft.fft(buf)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft), n, EPS64)
    buf.write(x)
    vd.fft.ifft(buf)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.ifft), n, EPS64)


def test_complex128_every_axis_and_multi_axis(context, rng):
    needs_fp64(context)
    shape = (6, 14, 10)
    for axis in range(-3, 3):
        x = crandom(rng, shape, np.complex128)
        buf = vd.asbuffer(x)
        vd.fft.fft(buf, axis=axis)
        assert_fft_close(buf.read(0), np_ref(x, np.fft.fft, axis=axis), shape[axis], EPS64)
    x = crandom(rng, shape, np.complex128)
    buf = vd.asbuffer(x)
    vd.fft.fft2(buf)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft2), 140, EPS64)
    buf.write(x)
    vd.fft.ifft3(buf)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.ifftn), 840, EPS64)


def test_complex128_real_transforms(context, rng):
    needs_fp64(context)
    x = rng.standard_normal((3, 5, 18)) * 100
    buf = vd.asrfftbuffer(x)
    assert buf.var_type is vd.complex128
    vd.fft.rfft3(buf)
    expected = np.fft.rfftn(x.astype(np.longdouble))
    assert_fft_close(buf.read_fourier(0), expected, x.size, EPS64)
    vd.fft.irfft3(buf)
    assert_fft_close(buf.read_real(0), x.astype(np.longdouble), x.size, EPS64, c=2 * C)


@pytest.mark.parametrize("n", [30, 1000, 2048])
def test_complex64_io_with_complex128_compute_only_rounds_the_output(context, rng, n):
    needs_fp64(context)
    x = crandom(rng, (3, n))
    buf = vd.asbuffer(x)
    vd.fft.fft(buf, compute_type=vd.complex128)
    result = buf.read(0)
    assert result.dtype == np.complex64
    expected = np_ref(x, np.fft.fft)
    # Computed in double, the only float32 error left is rounding each output once: at most
    # EPS32 relative per element (a float32 computation would show ~log2(N) growth).
    l2, peak = errors(result, expected)
    assert l2 <= EPS32 + bound(n, EPS64) and peak <= EPS32 + bound(n, EPS64), (l2, peak)
    buf.write(x)
    vd.fft.ifft(buf, compute_type=vd.complex128)
    l2, peak = errors(buf.read(0), np_ref(x, np.fft.ifft))
    assert l2 <= EPS32 + bound(n, EPS64) and peak <= EPS32 + bound(n, EPS64), (l2, peak)


def test_mixed_precision_multi_axis_and_real(context, rng):
    needs_fp64(context)
    x = crandom(rng, (10, 12))
    buf = vd.asbuffer(x)
    vd.fft.fft2(buf, compute_type=vd.complex128)
    l2, _ = errors(buf.read(0), np_ref(x, np.fft.fft2))
    assert l2 <= 2 * EPS32, l2  # rounded to float32 after each of the two passes

    r = (rng.standard_normal((4, 26)) * 100).astype(np.float32)
    rbuf = vd.asrfftbuffer(r)
    vd.fft.rfft(rbuf, compute_type=vd.complex128)
    l2, _ = errors(rbuf.read_fourier(0), np.fft.rfft(r.astype(np.float64)))
    assert l2 <= EPS32 + bound(26, EPS64), l2


def test_complex128_io_with_complex64_compute(context, rng):
    needs_fp64(context)
    x = crandom(rng, (2, 1000), np.complex128)
    buf = vd.asbuffer(x)
    vd.fft.fft(buf, compute_type=vd.complex64)
    result = buf.read(0)
    assert result.dtype == np.complex128
    assert_fft_close(result, np_ref(x, np.fft.fft), 1000, EPS32)
    l2, _ = errors(result, np_ref(x, np.fft.fft))
    assert l2 > bound(1000, EPS64), "a complex64 computation cannot be double-accurate"
