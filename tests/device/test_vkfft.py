"""vd.vkfft (VkFFT-backed transforms) against numpy on random data: complex lengths with radix
2-13 factors and Bluestein/Rader primes, batches, every axis form, fft2/fft3, real transforms in
RFFTBuffers, complex128, out-of-place runs, convolve2D (normalisation, conjugate kernel,
padding), command graphs, the plan cache, the disk cache of VkFFT kernels and argument errors.

Errors are bounded as in test_fft_transforms.py: relative L2 and relative max error against a
float64 (extended for complex128) numpy reference must stay under ``eps * c * log2(N)``, N the
number of points transformed together, ``c = C`` for one transform and ``2 C`` for a forward and
an inverse (round trips, convolutions).

Regression tests cover what VkFFT 1.2.26 gets wrong by itself: length-1 axes (left out of the
plan), its setlocale (the caller's locale is restored), reads past a smaller input buffer.
"""
from __future__ import annotations

import gc
import locale
import math

import numpy as np
import pytest
from test_fft_transforms import C, EPS32, EPS64, assert_fft_close, crandom, needs_fp64, np_ref

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch import _native
from vkdispatch.base import disk_cache, vkfft_native_plan
from vkdispatch.codegen.abbreviations import Buff, Const, c64, f32
from vkdispatch.vkfft import vkfft_dispatcher
from vkdispatch.vkfft.vkfft_config import VkFFTConfig

CC = 2 * C  # a forward and an inverse transform


# -- helpers ----------------------------------------------------------------------------------

def rrandom(rng, shape, dtype=np.float32) -> np.ndarray:
    return (rng.standard_normal(shape) * 100).astype(dtype)


def points(shape, axes) -> int:
    """How many points one transform over ``axes`` of ``shape`` mixes."""
    axes = [axes] if isinstance(axes, int) else axes
    return math.prod(shape[a] for a in axes)


def run(buf, x, fn, **kwargs) -> np.ndarray:
    """Writes ``x`` to ``buf``, runs ``fn`` (a vd.vkfft transform) on it in place, reads it back.

    Tests reuse a buffer where they can: each new buffer a plan runs on builds another VkFFT
    application (its pipelines compile again, ~0.5 s on lavapipe with a cold shader cache).
    """
    buf.write(x)
    fn(buf, **kwargs)
    return buf.read(0)


def transformed(x, fn, **kwargs) -> np.ndarray:
    """``fn`` run on a new buffer holding ``x``."""
    return run(vd.asbuffer(x), x, fn, **kwargs)


def conv2_ref(x, kernel, conjugate=False, scale=1.0) -> np.ndarray:
    """``ifft2(fft2(x) * fft2(kernel))`` (or the kernel spectrum's conjugate) per image, in
    float64."""
    spectrum = np.fft.fft2(np.asarray(kernel).astype(np.complex128))
    if conjugate:
        spectrum = np.conj(spectrum)
    return np.fft.ifft2(np.fft.fft2(np.asarray(x).astype(np.complex128)) * spectrum) * scale


def prepared_kernel(kernel) -> vd.Buffer:
    """A buffer holding ``kernel`` turned into convolve2D's layout by transpose_kernel2D."""
    kbuf = vd.asbuffer(kernel)
    vd.vkfft.transpose_kernel2D(kbuf)
    return kbuf


@vd.shader("buf.size")
def scale_complex(buf: Buff[c64], k: Const[f32]):
    i = vc.global_invocation_id().x
    buf[i] = buf[i] * k


@vd.shader("buf.size")
def add_one(buf: Buff[c64]):
    i = vc.global_invocation_id().x
    buf[i].real = buf[i].real + 1.0


# -- 1-D complex transforms along the last axis ------------------------------------------------

LENGTHS = [8, 64, 1024,                      # powers of two
           15, 21, 143, 3 * 5 * 7 * 11,      # radix 3/5/7/11/13 products
           17, 97, 251, 1009]                # primes: Rader / Bluestein


@pytest.mark.parametrize("n", LENGTHS)
def test_1d_lengths_forward_inverse_and_round_trip(context, rng, n):
    x = crandom(rng, (2, n))
    buf = vd.Buffer(x.shape, vd.complex64)
    assert_fft_close(run(buf, x, vd.vkfft.fft), np_ref(x, np.fft.fft, axis=-1), n, EPS32)
    vd.vkfft.ifft(buf)
    assert_fft_close(buf.read(0), x, n, EPS32, CC)
    assert_fft_close(run(buf, x, vd.vkfft.ifft), np_ref(x, np.fft.ifft, axis=-1), n, EPS32)


@pytest.mark.parametrize("shape", [(3, 4, 64), (2, 3, 15), (37, 8),
                                   pytest.param((5, 2, 17), marks=pytest.mark.slow)], ids=str)
def test_batches_of_2d_and_3d_buffers(context, rng, shape):
    x = crandom(rng, shape)
    buf = vd.Buffer(shape, vd.complex64)
    n = shape[-1]
    assert_fft_close(run(buf, x, vd.vkfft.fft), np_ref(x, np.fft.fft, axis=-1), n, EPS32)
    assert_fft_close(run(buf, x, vd.vkfft.ifft), np_ref(x, np.fft.ifft, axis=-1), n, EPS32)


@pytest.mark.parametrize("n", [64, 97])
def test_unnormalised_inverse_is_n_times_ifft(context, rng, n):
    x = crandom(rng, (3, n))
    buf = vd.Buffer(x.shape, vd.complex64)
    expected = np_ref(x, np.fft.ifft, axis=-1) * n
    assert_fft_close(run(buf, x, vd.vkfft.ifft, normalize=False), expected, n, EPS32)
    assert_fft_close(run(buf, x, vd.vkfft.fft, inverse=True, normalize_inverse=False),
                     expected, n, EPS32)


# -- axes ------------------------------------------------------------------------------------

AXES = [  # (shape, equivalent spellings of the transformed axes)
    ((6, 10), (0, -2, [0])),
    ((6, 10), (-1, None)),
    ((6, 10), ((0, 1), (-2, -1), [1, 0])),
    ((4, 5, 6), (0, -3)),
    ((4, 5, 6), (1, -2)),
    ((4, 5, 6), ((0, 2), (-3, -1), [2, 0])),
    ((4, 5, 6), ((0, 1), [-3, -2])),
    ((4, 5, 6), ((1, 2), (-2, 2))),
]


@pytest.mark.parametrize("shape,spellings", AXES, ids=str)
def test_axis_int_negative_and_tuple(context, rng, shape, spellings):
    axes = None
    buf = vd.Buffer(shape, vd.complex64)
    for axis in spellings:
        spelled = [len(shape) - 1] if axis is None else [axis] if isinstance(axis, int) \
            else list(axis)
        positive = sorted({a % len(shape) for a in spelled})
        assert axes is None or positive == axes  # the spellings of one case agree
        axes = positive
        n = points(shape, axes)
        for fn, ref in ((vd.vkfft.fft, np.fft.fftn), (vd.vkfft.ifft, np.fft.ifftn)):
            x = crandom(rng, shape)
            assert_fft_close(run(buf, x, fn, axis=axis), np_ref(x, ref, axes=axes), n, EPS32)


@pytest.mark.parametrize("shape", [(8, 12), (3, 8, 12), (2, 7, 10)], ids=str)
def test_fft2_and_ifft2_over_the_last_two_axes(context, rng, shape):
    x = crandom(rng, shape)
    buf = vd.Buffer(shape, vd.complex64)
    n = shape[-2] * shape[-1]
    assert_fft_close(run(buf, x, vd.vkfft.fft2), np_ref(x, np.fft.fft2), n, EPS32)
    assert_fft_close(run(buf, x, vd.vkfft.ifft2), np_ref(x, np.fft.ifft2), n, EPS32)


@pytest.mark.parametrize("shape", [(4, 6, 10), (3, 5, 7)], ids=str)
def test_fft3_and_ifft3(context, rng, shape):
    x = crandom(rng, shape)
    buf = vd.Buffer(shape, vd.complex64)
    n = math.prod(shape)
    assert_fft_close(run(buf, x, vd.vkfft.fft3), np_ref(x, np.fft.fftn), n, EPS32)
    assert_fft_close(run(buf, x, vd.vkfft.ifft3), np_ref(x, np.fft.ifftn), n, EPS32)


# -- real transforms --------------------------------------------------------------------------

REAL = [  # (real shape, forward, inverse, numpy reference axes)
    ((16,), vd.vkfft.rfft, vd.vkfft.irfft, (-1,)),
    ((15,), vd.vkfft.rfft, vd.vkfft.irfft, (-1,)),
    ((4, 30), vd.vkfft.rfft, vd.vkfft.irfft, (-1,)),
    ((3, 21), vd.vkfft.rfft, vd.vkfft.irfft, (-1,)),
    ((8, 12), vd.vkfft.rfft2, vd.vkfft.irfft2, (-2, -1)),
    ((5, 9), vd.vkfft.rfft2, vd.vkfft.irfft2, (-2, -1)),
    ((3, 6, 10), vd.vkfft.rfft2, vd.vkfft.irfft2, (-2, -1)),
    ((4, 6, 8), vd.vkfft.rfft3, vd.vkfft.irfft3, (0, 1, 2)),
    ((3, 5, 7), vd.vkfft.rfft3, vd.vkfft.irfft3, (0, 1, 2)),
]


@pytest.mark.parametrize("shape,forward,inverse,axes", REAL,
                         ids=[f"{f.__name__}-{s}" for s, f, _, _ in REAL])
def test_real_transforms_and_round_trip(context, rng, shape, forward, inverse, axes):
    x = rrandom(rng, shape)
    buf = vd.asrfftbuffer(x)
    assert isinstance(buf, vd.RFFTBuffer) and buf.var_type is vd.complex64
    n = points(shape, axes)
    forward(buf)
    expected = np.fft.rfftn(x.astype(np.float64), axes=axes)
    assert_fft_close(buf.read_fourier(0), expected, n, EPS32)
    inverse(buf)
    assert_fft_close(buf.read_real(0), x, n, EPS32, CC)


def test_irfft_of_a_numpy_spectrum_normalised_and_not(context, rng):
    """irfft alone (not a round trip): the input is numpy's spectrum."""
    x = rrandom(rng, (4, 30))
    spectrum = np.fft.rfft(x.astype(np.float64)).astype(np.complex64)
    buf = vd.RFFTBuffer((4, 30))
    for normalize, scale in ((True, 1.0), (False, 30.0)):
        buf.write_fourier(spectrum)
        vd.vkfft.irfft(buf, normalize=normalize)
        assert_fft_close(buf.read_real(0), x * scale, 30, EPS32, CC)


def test_rfft_with_an_extra_axis(context, rng):
    x = rrandom(rng, (6, 10))
    buf = vd.asrfftbuffer(x)
    vd.vkfft.rfft(buf, axis=(0, 1))
    assert_fft_close(buf.read_fourier(0), np.fft.rfft2(x.astype(np.float64)), 60, EPS32)


# -- complex128 -------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,pairs,axes", [
    ((3, 97), ((vd.vkfft.fft, np.fft.fft), (vd.vkfft.ifft, np.fft.ifft)), (-1,)),
    ((2, 64), ((vd.vkfft.fft, np.fft.fft),), (-1,)),
    ((6, 10), ((vd.vkfft.fft2, np.fft.fft2),), (0, 1)),
    ((4, 6, 5), ((vd.vkfft.ifft3, np.fft.ifftn),), (0, 1, 2)),
], ids=["fft-ifft-97", "fft-64", "fft2", "ifft3"])
def test_complex128_to_float64_precision(context, rng, shape, pairs, axes):
    needs_fp64(context)
    buf = vd.Buffer(shape, vd.complex128)
    for fn, ref in pairs:
        x = crandom(rng, shape, np.complex128)
        assert_fft_close(run(buf, x, fn), np_ref(x, ref), points(shape, axes), EPS64)


def test_complex128_real_transform(context, rng):
    needs_fp64(context)
    x = rrandom(rng, (3, 18), np.float64)
    buf = vd.asrfftbuffer(x)
    assert buf.var_type is vd.complex128
    vd.vkfft.rfft(buf)
    expected = np_ref(x.astype(np.complex128), np.fft.fft)[..., :10]
    assert_fft_close(buf.read_fourier(0), expected, 18, EPS64)
    vd.vkfft.irfft(buf)
    assert_fft_close(buf.read_real(0), x, 18, EPS64, CC)


def test_complex128_convolution(context, rng):
    needs_fp64(context)
    shape = (2, 6, 8)
    kernel = crandom(rng, shape, np.complex128)
    kbuf = prepared_kernel(kernel)
    buf = vd.Buffer(shape, vd.complex128)
    for normalize, scale in ((True, 1), (False, 48)):  # unnormalised: a float64 scaling pass
        x = crandom(rng, shape, np.complex128)
        actual = run(buf, x, vd.vkfft.convolve2D, kernel=kbuf, normalize=normalize)
        assert_fft_close(actual, conv2_ref(x, kernel, scale=scale), 48, EPS64, CC)


# -- out of place -----------------------------------------------------------------------------

@pytest.mark.parametrize("shape,axis", [
    ((4, 30), None), ((6, 10), (0, 1)),
    pytest.param((5, 17), None, marks=pytest.mark.slow)], ids=str)
def test_out_of_place_leaves_the_input_unchanged(context, rng, shape, axis):
    axes = [-1] if axis is None else list(axis)
    src, dst = vd.Buffer(shape, vd.complex64), vd.Buffer(shape, vd.complex64)
    for inverse, ref in ((False, np.fft.fftn), (True, np.fft.ifftn)):
        x = crandom(rng, shape)
        src.write(x)
        dst.write(crandom(rng, shape))  # garbage the transform must overwrite
        vd.vkfft.fft(dst, input_buffer=src, axis=axis, inverse=inverse)
        assert_fft_close(dst.read(0), np_ref(x, ref, axes=axes), points(shape, axes), EPS32)
        np.testing.assert_array_equal(src.read(0), x)


def test_buffer_shape_transforms_the_leading_part_only(context, rng):
    x = crandom(rng, (4, 16))
    result = transformed(x, vd.vkfft.fft, buffer_shape=(2, 16))
    assert_fft_close(result[:2], np_ref(x[:2], np.fft.fft), 16, EPS32)
    np.testing.assert_array_equal(result[2:], x[2:])


def test_out_of_place_input_smaller_than_the_buffer_is_refused(context, rng):
    src, dst = vd.asbuffer(crandom(rng, (2, 30))), vd.asbuffer(crandom(rng, (4, 30)))
    with pytest.raises(ValueError, match="input_buffer"):
        vd.vkfft.fft(dst, input_buffer=src)


# -- length-1 axes ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape,fn,ref", [
    ((1, 16), vd.vkfft.fft, np.fft.fft),
    ((1, 8, 12), vd.vkfft.fft2, np.fft.fft2),
    ((8, 1, 12), vd.vkfft.fft, np.fft.fft),
    ((16, 1), lambda b: vd.vkfft.fft(b, axis=0), lambda x: np.fft.fft(x, axis=0)),
    ((6, 1), vd.vkfft.fft, np.fft.fft),
], ids=["fft-(1,16)", "fft2-(1,8,12)", "fft-(8,1,12)", "axis0-(16,1)", "identity-(6,1)"])
def test_length_one_batch_axes(context, rng, shape, fn, ref):
    x = crandom(rng, shape)
    assert_fft_close(transformed(x, fn), np_ref(x, ref), math.prod(shape[-2:]), EPS32)


def test_building_a_plan_leaves_the_locale_alone(context):
    saved = locale.setlocale(locale.LC_ALL)
    try:
        try:
            locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
        except locale.Error:
            pytest.skip("no C.UTF-8 locale to detect the change with")
        vd.vkfft.VkFFTPlan((2, 36), axes=[1]).destroy()
        assert locale.setlocale(locale.LC_CTYPE) == "C.UTF-8"
    finally:
        locale.setlocale(locale.LC_ALL, saved)


# -- convolution ------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1, 8, 12), (3, 8, 12), (8, 12), (2, 9, 10)], ids=str)
def test_convolve2d_normalised_and_not(context, rng, shape):
    kernel = crandom(rng, shape)
    kbuf = prepared_kernel(kernel)
    prepared = kbuf.read(0)
    buf = vd.Buffer(shape, vd.complex64)
    n = shape[-2] * shape[-1]
    for normalize, scale in ((True, 1), (False, n), (True, 1)):
        x = crandom(rng, shape)
        actual = run(buf, x, vd.vkfft.convolve2D, kernel=kbuf, normalize=normalize)
        assert_fft_close(actual, conv2_ref(x, kernel, scale=scale), n, EPS32, CC)
    np.testing.assert_array_equal(kbuf.read(0), prepared)  # the kernel is only read


# Built with a newer VkFFT (VKDISPATCH_VKFFT_INCLUDE): conjugate kernels and padded
# convolutions are refused (vkfft_application.cpp).
NEWER_VKFFT = _native.vkfft_version() >= 10300
debian_vkfft = pytest.mark.skipif(NEWER_VKFFT, reason="refused with VkFFT 1.3")


@pytest.mark.skipif(not NEWER_VKFFT, reason="only builds with VkFFT 1.3 refuse them")
def test_newer_vkfft_refuses_conjugate_kernels_and_padded_convolutions(context, rng):
    x = crandom(rng, (8, 12))
    buf, kernel = vd.asbuffer(x), vd.asbuffer(x)
    with pytest.raises(ValueError, match="conjugate_kernel=True"):
        vd.vkfft.convolve2D(buf, kernel, conjugate_kernel=True)
    with pytest.raises(ValueError, match="padding"):
        vd.vkfft.convolve2D(buf, kernel, padding=((1, 3), None))
    vd.vkfft.convolve2D(buf, kernel)  # the context stays usable
    vd.queue_wait_idle()


@debian_vkfft
@pytest.mark.parametrize("shape", [(3, 8, 12), (8, 12)], ids=str)
def test_convolve2d_conjugate_kernel_is_a_correlation(context, rng, shape):
    x, kernel = crandom(rng, shape), crandom(rng, shape)
    actual = run(vd.Buffer(shape, vd.complex64), x, vd.vkfft.convolve2D,
                 kernel=prepared_kernel(kernel), normalize=True, conjugate_kernel=True)
    assert_fft_close(actual, conv2_ref(x, kernel, conjugate=True), shape[-2] * shape[-1], EPS32,
                     CC)


PADDINGS = [((2, 5), (0, 0)), ((0, 0), (3, 7)), ((1, 3), (4, 6))]  # rows, columns, both
EDGE_PADDINGS = [((0, 3), (0, 0)), ((6, 8), (0, 0))]  # blocks touching the first/last row


@debian_vkfft
@pytest.mark.parametrize("shape,paddings", [
    pytest.param((3, 8, 12), PADDINGS, id="batch"),
    pytest.param((8, 12), PADDINGS[:1], id="2d-rows"),
    pytest.param((3, 8, 12), EDGE_PADDINGS, id="batch-edges", marks=pytest.mark.slow),
    pytest.param((8, 12), PADDINGS[1:] + EDGE_PADDINGS, id="2d-others",
                 marks=pytest.mark.slow),
])
def test_convolve2d_padding_treats_the_block_as_zeros(context, rng, shape, paddings):
    """Each padding is its own plan (~1 s to build on lavapipe with a cold shader cache)."""
    kernel = crandom(rng, shape)
    kbuf = prepared_kernel(kernel)
    buf = vd.Buffer(shape, vd.complex64)
    for padding in paddings:
        x = crandom(rng, shape)
        (top, bottom), (left, right) = padding
        outside = np.ones(shape[-2:], bool)
        outside[top:bottom, :] = False
        outside[:, left:right] = False
        expected = conv2_ref(np.where(outside, x, 0), kernel)
        actual = run(buf, x, vd.vkfft.convolve2D, kernel=kbuf, normalize=True, padding=padding)
        assert_fft_close(actual[..., outside], expected[..., outside], shape[-2] * shape[-1],
                         EPS32, CC)


# -- command graphs ---------------------------------------------------------------------------

@pytest.fixture
def graph(context):
    g = vd.CommandGraph()
    yield g
    g.destroy()


def test_fft_ordered_between_shaders_in_a_graph(context, rng, graph):
    x = crandom(rng, (5, 64))
    buf = vd.asbuffer(x)
    scale_complex(buf, 2.0, graph=graph)
    vd.vkfft.fft(buf, graph=graph)
    add_one(buf, graph=graph)
    np.testing.assert_array_equal(buf.read(0), x)  # recorded, not run
    expected = x.astype(np.complex128)
    for _ in range(2):  # the same graph submitted twice applies the chain twice
        graph.submit()
        expected = np.fft.fft(expected * 2) + 1
        assert_fft_close(buf.read(0), expected, 64, EPS32, CC)


def test_fft_and_inverse_of_one_plan_in_one_graph(context, rng, graph):
    x = crandom(rng, (3, 8, 12))
    buf = vd.asbuffer(x)
    vd.vkfft.fft2(buf, graph=graph)
    scale_complex(buf, -0.5, graph=graph)
    vd.vkfft.ifft2(buf, graph=graph)
    graph.submit()
    assert_fft_close(buf.read(0), x * -0.5, 96, EPS32, CC)


def test_convolution_recorded_in_a_graph(context, rng, graph):
    shape = (2, 8, 12)
    x, kernel = crandom(rng, shape), crandom(rng, shape)
    buf, kbuf = vd.asbuffer(x), vd.asbuffer(kernel)
    vd.vkfft.transpose_kernel2D(kbuf, graph=graph)
    scale_complex(buf, 2.0, graph=graph)
    vd.vkfft.convolve2D(buf, kbuf, graph=graph)  # unnormalised: includes a scaling pass
    add_one(buf, graph=graph)
    graph.submit()
    assert_fft_close(buf.read(0), conv2_ref(2 * x, kernel, scale=96) + 1, 96, EPS32, CC)


def test_recorded_fft_survives_plan_cache_clear_and_binding_eviction(context, rng, graph):
    """The graph keeps its plan and buffer binding although the cache forgets the plan and the
    plan's recently used bindings move on to other buffers."""
    x = crandom(rng, (3, 24))
    buf = vd.asbuffer(x)
    vd.vkfft.fft(buf, graph=graph)
    others = [vd.Buffer((3, 24), vd.complex64) for _ in range(6)]
    for other in others:
        y = crandom(rng, (3, 24))
        assert_fft_close(run(other, y, vd.vkfft.fft), np_ref(y, np.fft.fft), 24, EPS32)
    vd.vkfft.clear_plan_cache()
    gc.collect()
    graph.submit()
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft), 24, EPS32)


def test_print_shader_prints_the_kernels_and_still_transforms(context, rng, capfd):
    x = crandom(rng, (2, 8))
    result = transformed(x, vd.vkfft.fft, print_shader=True)
    assert "void main" in capfd.readouterr().out
    assert_fft_close(result, np_ref(x, np.fft.fft), 8, EPS32)


# -- plan cache and VkFFTPlan -----------------------------------------------------------------

@pytest.fixture
def plan_builds(monkeypatch):
    """The VkFFTPlans the dispatcher builds from now on."""
    built = []

    class Counting(vd.vkfft.VkFFTPlan):
        @classmethod
        def from_config(cls, config):
            plan = super().from_config(config)
            built.append(plan)
            return plan

    monkeypatch.setattr(vkfft_dispatcher, "VkFFTPlan", Counting)
    return built


def test_plan_cache_reuses_plans_until_cleared(context, rng, plan_builds):
    shape = (3, 40)
    vd.vkfft.clear_plan_cache()
    x, y = crandom(rng, shape), crandom(rng, shape)
    assert_fft_close(transformed(x, vd.vkfft.fft), np_ref(x, np.fft.fft), 40, EPS32)
    assert len(plan_builds) == 1
    plan = vkfft_dispatcher.get_fft_plan(VkFFTConfig(shape, axes=(1,), normalize=True))
    assert plan is plan_builds[0]
    # Another buffer of the same geometry, the inverse and list axes: the same plan.
    assert_fft_close(transformed(y, vd.vkfft.fft), np_ref(y, np.fft.fft), 40, EPS32)
    assert_fft_close(transformed(y, vd.vkfft.ifft, axis=[1]), np_ref(y, np.fft.ifft), 40, EPS32)
    listed = VkFFTConfig(list(shape), axes=[1], normalize=True)
    assert vkfft_dispatcher.get_fft_plan(listed) is plan
    assert len(plan_builds) == 1
    # A different geometry builds another.
    assert_fft_close(transformed(x, vd.vkfft.fft, axis=0), np_ref(x, np.fft.fft, axis=0), 3,
                     EPS32)
    assert len(plan_builds) == 2
    vd.vkfft.clear_plan_cache()
    assert_fft_close(transformed(x, vd.vkfft.fft), np_ref(x, np.fft.fft), 40, EPS32)
    assert len(plan_builds) == 3
    config = VkFFTConfig(shape, axes=(1,), normalize=True)
    assert vkfft_dispatcher.get_fft_plan(config) is not plan


@pytest.mark.parametrize("normalize", [False, True])
def test_vkfft_plan_records_forward_and_inverse(context, rng, normalize):
    batch, n = 3, 21
    x = crandom(rng, (batch, n))
    buf = vd.asbuffer(x)
    plan = vd.vkfft.VkFFTPlan((batch, n), axes=[1], normalize=normalize)
    plan.record_forward(vd.global_graph(), buf)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft, axis=1), n, EPS32)
    plan.record_inverse(vd.global_graph(), buf)
    assert_fft_close(buf.read(0), x * (1 if normalize else n), n, EPS32, CC)
    plan.destroy()
    with pytest.raises(ValueError, match="VkFFTPlan was destroyed"):
        plan.record_forward(vd.global_graph(), buf)


def test_vkfft_plan_in_a_command_graph(context, rng, graph):
    x = crandom(rng, (4, 6, 5))
    buf = vd.asbuffer(x)
    plan = vd.vkfft.VkFFTPlan((4, 6, 5))  # axes=None: all three
    plan.record(graph, buf)
    plan.record(graph, buf, inverse=True)
    plan.record(graph, buf)
    graph.submit()
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fftn) * 120, 120, EPS32, 3 * C)


# -- disk cache of VkFFT kernels ------------------------------------------------------------

@pytest.fixture
def vkfft_disk_cache(monkeypatch, tmp_path):
    """An empty disk cache; returns (its vkfft folder, the entries plans write from now on)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("VKDISPATCH_CACHE", raising=False)
    written = []

    def spy(path, data):
        written.append(path)
        return write_entry(path, data)

    write_entry = vkfft_native_plan.write_entry
    monkeypatch.setattr(vkfft_native_plan, "write_entry", spy)
    return tmp_path / "vkdispatch" / "vkfft", written


def checked_forward(rng, plan, shape) -> None:
    x = crandom(rng, shape)
    buf = vd.asbuffer(x)
    plan.record_forward(vd.global_graph(), buf)
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft, axis=-1), shape[-1], EPS32)


def entry_is_valid(path) -> bool:
    """Whether the disk cache reads the entry back (it checks the checksum of every entry)."""
    return disk_cache.read_entry(str(path)) is not None


def test_disk_cache_stores_loads_and_rejects_damaged_entries(context, rng, vkfft_disk_cache):
    folder, written = vkfft_disk_cache
    shape = (2, 45)
    devices = len(vd.get_context().device_infos)

    plan = vd.vkfft.VkFFTPlan(shape, axes=[1], normalize=True)
    entries = sorted(folder.iterdir())
    assert len(entries) == devices == len(written)
    assert all(entry_is_valid(path) for path in entries)
    checked_forward(rng, plan, shape)
    plan.destroy()

    contents = [path.read_bytes() for path in entries]
    plan = vd.vkfft.VkFFTPlan(shape, axes=[1], normalize=True)  # loads the kernels
    assert len(written) == devices  # nothing rebuilt, nothing written (a load only marks
    assert [path.read_bytes() for path in entries] == contents  # the entry as used)
    checked_forward(rng, plan, shape)
    plan.destroy()

    damaged = bytearray(entries[0].read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    entries[0].write_bytes(bytes(damaged))
    assert not entry_is_valid(entries[0])
    plan = vd.vkfft.VkFFTPlan(shape, axes=[1], normalize=True)  # rebuilds, no crash
    assert len(written) == 2 * devices  # the entries were written again
    assert all(entry_is_valid(path) for path in entries)
    checked_forward(rng, plan, shape)
    plan.destroy()

    entries[0].write_bytes(b"short")  # truncated below the checksum
    plan = vd.vkfft.VkFFTPlan(shape, axes=[1], normalize=True)
    checked_forward(rng, plan, shape)
    assert entry_is_valid(entries[0])
    plan.destroy()


def test_disk_cache_keys_differ_per_geometry(context, rng, vkfft_disk_cache):
    folder, written = vkfft_disk_cache
    devices = len(vd.get_context().device_infos)
    plans = [vd.vkfft.VkFFTPlan((2, 45), axes=[1], normalize=True),
             vd.vkfft.VkFFTPlan((2, 45), axes=[1], normalize=False),
             vd.vkfft.VkFFTPlan((45, 2), axes=[0], normalize=True)]
    assert len(set(written)) == len(list(folder.iterdir())) == 3 * devices
    checked_forward(rng, plans[0], (2, 45))
    for plan in plans:
        plan.destroy()


# -- errors -----------------------------------------------------------------------------------

def _complex32():
    try:
        return vd.Buffer((4, 16), vd.complex32)
    except (ValueError, TypeError, RuntimeError) as error:  # a device without float16 storage
        pytest.skip(f"complex32 buffers unavailable: {error}")


def convolve_padded(padding):
    """A convolve2D call on (8, 12) images with ``padding``, for the table below."""
    return lambda rng: vd.vkfft.convolve2D(vd.Buffer((8, 12), vd.complex64),
                                           vd.Buffer((8, 12), vd.complex64), padding=padding)


_ERRORS = {
    "float32 buffer": (TypeError, "buffer: VkFFT transforms complex64 or complex128",
                       lambda rng: vd.vkfft.fft(vd.Buffer((4, 16), vd.float32))),
    "not a buffer": (TypeError, "buffer must be a vd.Buffer",
                     lambda rng: vd.vkfft.fft(np.zeros(16, np.complex64))),
    "complex32 buffer": (TypeError, "buffer: VkFFT transforms complex64 or complex128",
                         lambda rng: vd.vkfft.fft(_complex32())),
    "axis too large": (ValueError, "axis: axis 2 is out of range",
                       lambda rng: vd.vkfft.fft(vd.Buffer((4, 16), vd.complex64), axis=2)),
    "axis too negative": (ValueError, "axis: axis -3 is out of range",
                          lambda rng: vd.vkfft.ifft(vd.Buffer((4, 16), vd.complex64), axis=-3)),
    "axis in a tuple": (ValueError, "axis: axis 3 is out of range",
                        lambda rng: vd.vkfft.fft(vd.Buffer((2, 4, 8), vd.complex64),
                                                 axis=(0, 3))),
    "axis not an int": (TypeError, "axis: each axis must be an int",
                        lambda rng: vd.vkfft.fft(vd.Buffer((4, 16), vd.complex64), axis=(1.0,))),
    "fft2 on 1-D": (ValueError, "Buffer must have at least 2 dimensions",
                    lambda rng: vd.vkfft.fft2(vd.Buffer((16,), vd.complex64))),
    "fft3 on 2-D": (ValueError, "Buffer must have at least 3 dimensions",
                    lambda rng: vd.vkfft.fft3(vd.Buffer((4, 16), vd.complex64))),
    "ifft3 on 2-D": (ValueError, "Buffer must have 3 dimensions",
                     lambda rng: vd.vkfft.ifft3(vd.Buffer((4, 16), vd.complex64))),
    "rfft on a plain Buffer": (TypeError, "buffer must be a vd.RFFTBuffer",
                               lambda rng: vd.vkfft.rfft(vd.Buffer((4, 9), vd.complex64))),
    "irfft2 on a plain Buffer": (TypeError, "buffer must be a vd.RFFTBuffer",
                                 lambda rng: vd.vkfft.irfft2(vd.Buffer((4, 9), vd.complex64))),
    "rfft3 on 2-D": (ValueError, "Buffer must have 3 dimensions",
                     lambda rng: vd.vkfft.rfft3(vd.RFFTBuffer((4, 16)))),
    "rfft without the last axis": (ValueError, "axis: a real transform runs along the last axis",
                                   lambda rng: vd.vkfft.rfft(vd.RFFTBuffer((4, 16)), axis=0)),
    "graph of the wrong type": (TypeError, "graph must be a vd.CommandGraph",
                                lambda rng: vd.vkfft.fft(vd.Buffer((4, 16), vd.complex64),
                                                         graph=object())),
    "input_buffer of another dtype": (
        TypeError, "input_buffer holds complex128",
        lambda rng: vd.vkfft.fft(vd.Buffer((4, 16), vd.complex64),
                                 input_buffer=vd.Buffer((4, 16), vd.complex128))),
    "inverse input_buffer of another shape": (
        ValueError, "input_buffer: out of place, the input needs the buffer's shape",
        lambda rng: vd.vkfft.fft(vd.Buffer((4, 16), vd.complex64), inverse=True,
                                 input_buffer=vd.Buffer((2, 16), vd.complex64))),
    "buffer smaller than buffer_shape": (
        ValueError, r"buffer_shape \(8, 16\) of complex64 needs 1024 bytes; the buffer \(shape "
                    r"\(4, 16\)\) has 512",
        lambda rng: vd.vkfft.fft(vd.Buffer((4, 16), vd.complex64), buffer_shape=(8, 16))),
    "VkFFTPlan 4-D": (ValueError, "Shape must be 1D, 2D, or 3D",
                      lambda rng: vd.vkfft.VkFFTPlan((2, 2, 2, 2))),
    "VkFFTPlan zero length": (ValueError, "shape: every length must be a positive int",
                              lambda rng: vd.vkfft.VkFFTPlan((4, 0))),
    "VkFFTPlan r2c without the last axis": (
        ValueError, "axes: a real transform runs along the last axis",
        lambda rng: vd.vkfft.VkFFTPlan((4, 16), do_r2c=True, axes=[0])),
    # These used to be truncated (1.5 batches planned as 1) or raise bare TypeError/OverflowError.
    "VkFFTPlan float num_batches": (TypeError, r"^num_batches must be an int, got 1\.5 \(float\)$",
                                    lambda rng: vd.vkfft.VkFFTPlan((4, 16), num_batches=1.5)),
    "VkFFTPlan num_batches beyond 64 bits": (
        ValueError, r"^num_batches must be in \[1, 18446744073709551615\], got 2361183241434822",
        lambda rng: vd.vkfft.VkFFTPlan((4, 16), num_batches=2**71)),
    "VkFFTPlan conjugate_convolution 3": (
        ValueError, r"^conjugate_convolution must be in \[0, 2\], got 3$",
        lambda rng: vd.vkfft.VkFFTPlan((4, 16), kernel_count=1, conjugate_convolution=3)),
    "VkFFTPlan non-complex fourier_type": (
        TypeError, "fourier_type: VkFFT transforms complex64 or complex128",
        lambda rng: vd.vkfft.VkFFTPlan((4, 16), fourier_type=vd.float32)),
    "convolve2D kernel of another shape": (
        ValueError, r"kernel: shape \(8, 12\) must match",
        lambda rng: vd.vkfft.convolve2D(vd.Buffer((2, 8, 12), vd.complex64),
                                        vd.Buffer((8, 12), vd.complex64))),
    "convolve2D kernel of another dtype": (
        TypeError, "kernel holds complex128",
        lambda rng: vd.vkfft.convolve2D(vd.Buffer((8, 12), vd.complex64),
                                        vd.Buffer((8, 12), vd.complex128))),
    "convolve2D float kernel": (
        TypeError, "kernel: VkFFT transforms complex64 or complex128",
        lambda rng: vd.vkfft.convolve2D(vd.Buffer((8, 12), vd.complex64),
                                        vd.Buffer((8, 12), vd.float32))),
    "convolve2D 1-D buffer": (
        ValueError, "buffer: Kernel shape must be 2D or 3D",
        lambda rng: vd.vkfft.convolve2D(vd.Buffer((12,), vd.complex64),
                                        vd.Buffer((12,), vd.complex64))),
    "convolve2D padding out of order": (
        ValueError, r"padding: \(5, 2\) for axis 0",
        convolve_padded(((5, 2), (0, 0)))),
    "convolve2D padding beyond the image": (
        ValueError, r"padding: \(0, 13\) for axis 1",
        convolve_padded(((0, 0), (0, 13)))),
    # Pairs are bounds of the zero block: (5, 5) is empty (what pad amounts look like), and
    # used to run as an unpadded convolution.
    "convolve2D empty padding block": (
        ValueError, r"padding: \(5, 5\) for axis 0 must satisfy 0 <= left < right <= 8: .*not "
                    r"amounts to pad",
        convolve_padded(((5, 5), (0, 0)))),
    "convolve2D padding of floats": (
        TypeError, r"padding: axis 0 takes None or a \(left, right\) pair of ints, got \(1\.5, 3\)",
        convolve_padded(((1.5, 3), None))),
    "convolve2D padding block of one bound": (
        TypeError, r"padding: axis 1 takes None or a \(left, right\) pair of ints, got \(5,\)",
        convolve_padded(((0, 3), (5,)))),
    "convolve2D padding not pairs": (
        TypeError, r"padding: one \(left, right\) pair or None per axis of \(8, 12\), got 5",
        convolve_padded(5)),
    "transpose_kernel2D 4-D shape": (
        ValueError, "shape must have 1, 2, or 3 dimensions",
        lambda rng: vd.vkfft.transpose_kernel2D(vd.Buffer((8, 12), vd.complex64),
                                                shape=(1, 1, 8, 12))),
    "buffer of a closed context": (
        vd.errors.InvalidStateError, "^buffer belongs to a context that was closed",
        lambda rng: vd.vkfft.fft(buffer_of_a_closed_context((4, 16)))),
}


def buffer_of_a_closed_context(shape) -> vd.Buffer:
    """It used to be reported as a buffer of "another context than the plan"."""
    other = vd.create_context(device_ids=vd.get_context().device_ids)
    with other:
        buffer = vd.Buffer(shape, vd.complex64)
    other.close()
    return buffer


@pytest.fixture(scope="module")
def probe(context):
    """One buffer for the transforms that check the context still works after an error."""
    return vd.Buffer((4, 16), vd.complex64)


@pytest.mark.parametrize("name", list(_ERRORS))
def test_errors_name_the_argument_and_leave_the_context_usable(context, rng, probe, name):
    error, match, call = _ERRORS[name]
    with pytest.raises(error, match=match):
        call(rng)
    x = crandom(rng, probe.shape)
    assert_fft_close(run(probe, x, vd.vkfft.fft), np_ref(x, np.fft.fft), 16, EPS32)


def test_errors_inside_a_graph_record_nothing(context, rng, graph):
    x = crandom(rng, (4, 16))
    buf = vd.asbuffer(x)
    with pytest.raises(ValueError, match="axis"):
        vd.vkfft.fft(buf, axis=5, graph=graph)
    vd.vkfft.fft(buf, graph=graph)
    graph.submit()
    assert_fft_close(buf.read(0), np_ref(x, np.fft.fft), 16, EPS32)


def test_complex128_without_float64_is_refused(context):
    if vd.get_context().device_infos[0].float_64_support:
        pytest.skip("the device has float64")
    with pytest.raises(ValueError, match="fourier_type: complex128 needs 64-bit floats"):
        vd.vkfft.fft(vd.Buffer((4, 16), vd.complex128))

