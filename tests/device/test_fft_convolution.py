"""vd.fft's fused convolutions against numpy on random data: ``convolve`` along every axis,
per-batch and broadcast (``kernel_inner_only``) kernels, the transposed kernel layout,
several kernels per dispatch, mapping hooks, signal ranges, precisions, ``convolve2D``,
``convolve2DR``, command graphs, errors and the shader cache; and plans made as for a GPU
(lavapipe skips the staged loads and stores a GPU plan uses).

The default kernel action is ``ifft(fft(x) * conj(K))`` along the axis, with ``K`` a kernel
*spectrum* buffer shaped like the signal; results are normalised unless ``normalize=False``
(then N times larger). Errors are bounded as in test_fft_transforms.py: ``eps * c * log2(N)``
relative (L2 and max), with ``c = 2 C`` because a convolution runs a forward and an inverse
transform.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import fft_single_pass_limit
from test_fft_transforms import (C, EPS16, EPS32, EPS64, assert_fft_close, bound,
                                 complex32_buffer, crandom, errors, masked, needs_fp16,
                                 needs_fp64)

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, Var, c64, f32
from vkdispatch.fft.config import DeviceLimits
from vkdispatch.fft.convolution import get_convolution_cache_info

CC = 2 * C  # forward + inverse transform


def conv_ref(x, kernel, axis=-1, normalize=True):
    """``ifft(fft(x) * conj(K))`` along ``axis`` in float64 (extended for complex128 data)."""
    x = np.asarray(x)
    wide = np.clongdouble if x.dtype == np.complex128 else np.complex128
    spectrum = np.fft.fft(x.astype(wide), axis=axis) * np.conj(np.asarray(kernel).astype(wide))
    return np.fft.ifft(spectrum, axis=axis) * (1 if normalize else x.shape[axis])


def conv2_ref(x, kernel_spectrum, normalize=True):
    """``ifft2(fft2(x) * conj(K))`` over the last two axes, in float64."""
    x = np.asarray(x).astype(np.complex128)
    out = np.fft.ifft2(np.fft.fft2(x) * np.conj(np.asarray(kernel_spectrum, np.complex128)))
    return out * (1 if normalize else math.prod(x.shape[-2:]))


def convolved(rng, shape, axis, kernel_shape=None, **options):
    """Runs ``vd.fft.convolve`` on a random signal and kernel spectrum; returns (result,
    signal, kernel)."""
    x, kernel = crandom(rng, shape), crandom(rng, kernel_shape or shape)
    buf = vd.asbuffer(x)
    vd.fft.convolve(buf, vd.asbuffer(kernel), axis=axis, **options)
    return buf.read(0), x, kernel


# -- maps (module level: equal maps share cached shaders) ---------------------------------------

def _load_pair(re: Buff[f32], im: Buff[f32]):
    """The input register from two float buffers (real, imaginary)."""
    op = vd.fft.read_op()
    t = op.register.var_type.child_type
    op.register.real = vc.to_dtype(t, re[op.io_index])
    op.register.imag = vc.to_dtype(t, im[op.io_index])


def _store_gain(dst: Buff[c64], gain: Var[f32]):
    op = vd.fft.write_op()
    op.write_to_buffer(dst, register=op.register * gain)


def _load_conjugate(src: Buff[c64]):
    op = vd.fft.read_op()
    op.read_from_buffer(src)
    op.register.imag = -op.register.imag


def _store_conjugate(dst: Buff[c64]):
    op = vd.fft.write_op()
    op.register.imag = -op.register.imag
    op.write_to_buffer(dst)


def _scale_spectrum(s: Var[f32]):
    op = vd.fft.read_op()
    op.register[:] = op.register * s


load_pair, store_gain = vd.map(_load_pair), vd.map(_store_gain)
load_conjugate, store_conjugate = vd.map(_load_conjugate), vd.map(_store_conjugate)
scale_spectrum = vd.map(_scale_spectrum)


# -- convolve along every axis ------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1024,), (6, 243), (11, 64), (8, 30, 13),
                                   pytest.param((100, 7), marks=pytest.mark.slow)], ids=str)
def test_every_axis_including_negative_ones(context, rng, shape):
    """Per-batch kernels along each axis (negative axes are the same shaders)."""
    for axis in range(-len(shape), len(shape)):
        result, x, kernel = convolved(rng, shape, axis)
        assert_fft_close(result, conv_ref(x, kernel, axis), shape[axis], EPS32, CC)


def test_default_axis_is_the_last(context, rng):
    x, kernel = crandom(rng, (3, 8, 16)), crandom(rng, (3, 8, 16))
    buf = vd.asbuffer(x)
    vd.fft.convolve(buf, vd.asbuffer(kernel))
    assert_fft_close(buf.read(0), conv_ref(x, kernel, -1), 16, EPS32, CC)


@pytest.mark.parametrize("shape,axis", [((5, 100), -1), ((3, 12, 5), 1),
                                        pytest.param((64, 7), 0, marks=pytest.mark.slow)],
                         ids=str)
def test_without_normalisation_the_result_is_n_times_larger(context, rng, shape, axis):
    result, x, kernel = convolved(rng, shape, axis, normalize=False)
    assert_fft_close(result, conv_ref(x, kernel, axis, normalize=False), shape[axis], EPS32, CC)


@pytest.mark.parametrize("shape,axis", [((5, 1), -1), ((1, 6), 0), ((4, 1, 3), 1)], ids=str)
def test_length_one_axis_multiplies_by_the_conjugate_kernel(context, rng, shape, axis):
    result, x, kernel = convolved(rng, shape, axis)
    assert_fft_close(result, x.astype(np.complex128) * np.conj(kernel), 1, EPS32)


def test_kernel_and_input_buffers_are_not_modified(context, rng):
    x, kernel = crandom(rng, (4, 16)), crandom(rng, (4, 16))
    src, kbuf, out = vd.asbuffer(x), vd.asbuffer(kernel), vd.Buffer((4, 16), vd.complex64)
    vd.fft.convolve(out, 1.0, src, kbuf, output_map=store_gain)
    assert_fft_close(out.read(0), conv_ref(x, kernel), 16, EPS32, CC)
    np.testing.assert_array_equal(src.read(0), x)
    np.testing.assert_array_equal(kbuf.read(0), kernel)


# -- kernel_inner_only: one kernel for every outer batch -----------------------------------------

INNER_ONLY = [((4, 16), -1, (16,)), ((3, 4, 16), 2, (16,)), ((3, 12, 5), 1, (12, 5)),
              pytest.param((2, 12, 6), -2, (12, 6), marks=pytest.mark.slow)]


@pytest.mark.parametrize("shape,axis,kernel_shape", INNER_ONLY, ids=str)
def test_kernel_inner_only_broadcasts_over_outer_batches(context, rng, shape, axis, kernel_shape):
    result, x, kernel = convolved(rng, shape, axis, kernel_shape, kernel_inner_only=True)
    expected = conv_ref(x, np.broadcast_to(kernel, shape), axis)
    assert_fft_close(result, expected, shape[axis], EPS32, CC)


# -- the transposed kernel layout ---------------------------------------------------------------

@pytest.mark.parametrize("shape,axis", [((4, 16), -1), ((12, 5), 0), ((3, 12, 5), 1)] + [
    pytest.param(*case, marks=pytest.mark.slow)
    for case in (((2, 16, 12), 0), ((6, 243), 0), ((8, 30, 13), -2))], ids=str)
def test_transposed_kernel_equals_the_natural_layout(context, rng, shape, axis):
    x, kernel = crandom(rng, shape), crandom(rng, shape)
    kbuf = vd.asbuffer(kernel)
    size = vd.fft.get_transposed_size(shape, axis=axis)
    assert size >= math.prod(shape)
    transposed = vd.fft.transpose(kbuf, conv_shape=shape, axis=axis)
    assert transposed.shape == (size,) and transposed.var_type is vd.complex64
    natural, buf = vd.asbuffer(x), vd.asbuffer(x)
    vd.fft.convolve(natural, kbuf, axis=axis)
    vd.fft.convolve(buf, transposed, axis=axis, transposed_kernel=True)
    assert_fft_close(buf.read(0), conv_ref(x, kernel, axis), shape[axis], EPS32, CC)
    # The same products in the same order: the layouts differ only in where K is read from.
    np.testing.assert_array_equal(buf.read(0), natural.read(0))


@pytest.mark.parametrize("shape,axis,kernel_shape", INNER_ONLY[:3], ids=str)
def test_transposed_kernel_inner_only(context, rng, shape, axis, kernel_shape):
    x, kernel = crandom(rng, shape), crandom(rng, kernel_shape)
    transposed = vd.fft.transpose(vd.asbuffer(kernel), conv_shape=shape, axis=axis,
                                  kernel_inner_only=True)
    buf = vd.asbuffer(x)
    vd.fft.convolve(buf, transposed, axis=axis, transposed_kernel=True, kernel_inner_only=True)
    expected = conv_ref(x, np.broadcast_to(kernel, shape), axis)
    assert_fft_close(buf.read(0), expected, shape[axis], EPS32, CC)


@pytest.mark.parametrize("shape,axis", [((1000,), 0), ((4, 8), 0), ((30, 6), 0), ((7, 11, 13), 1),
                                        ((5, 3, 64), -1), ((243, 2), -2), ((1, 1), 0)], ids=str)
def test_get_transposed_size_covers_every_element(context, shape, axis):
    size = vd.fft.get_transposed_size(shape, axis)
    assert isinstance(size, int) and size >= math.prod(shape)
    other = axis - len(shape) if axis >= 0 else axis + len(shape)  # the same axis
    assert vd.fft.get_transposed_size(shape, other) == size


def test_transpose_into_a_given_out_buffer(context, rng):
    shape, axis = (3, 12, 5), 1
    x, kernel = crandom(rng, shape), crandom(rng, shape)
    size = vd.fft.get_transposed_size(shape, axis)
    out = vd.Buffer((size + 7,), vd.complex64)  # larger than needed is fine
    assert vd.fft.transpose(vd.asbuffer(kernel), axis=axis, out_buffer=out) is out
    buf = vd.asbuffer(x)
    vd.fft.convolve(buf, out, axis=axis, transposed_kernel=True)
    assert_fft_close(buf.read(0), conv_ref(x, kernel, axis), 12, EPS32, CC)


def test_transpose_recorded_in_a_graph(context, rng):
    shape, axis = (4, 16), -1
    x, kernel = crandom(rng, shape), crandom(rng, shape)
    buf, kbuf = vd.asbuffer(x), vd.asbuffer(kernel)
    out = vd.Buffer((vd.fft.get_transposed_size(shape, axis),), vd.complex64)
    graph = vd.CommandGraph()
    try:
        vd.fft.transpose(kbuf, axis=axis, out_buffer=out, graph=graph)
        vd.fft.convolve(buf, out, axis=axis, transposed_kernel=True, graph=graph)
        np.testing.assert_array_equal(buf.read(0), x)  # recorded, not run
        graph.submit()
    finally:
        graph.destroy()
    assert_fft_close(buf.read(0), conv_ref(x, kernel, axis), 16, EPS32, CC)


def test_transpose_out_buffer_errors(context, rng):
    shape, axis = (12, 5), 0
    kbuf = vd.asbuffer(crandom(rng, shape))
    size = vd.fft.get_transposed_size(shape, axis)
    with pytest.raises(ValueError, match=rf"out_buffer holds {size - 1} elements.*needs {size}"):
        vd.fft.transpose(kbuf, axis=axis, out_buffer=vd.Buffer((size - 1,), vd.complex64))
    with pytest.raises(TypeError, match="out_buffer holds complex64, not output_type=complex128"):
        vd.fft.transpose(kbuf, axis=axis, out_buffer=vd.Buffer((size,), vd.complex64),
                         output_type=vd.complex128)
    with pytest.raises(ValueError, match=r"output_type must be one of .*\(got float32\)"):
        vd.fft.transpose(kbuf, axis=axis, out_buffer=vd.Buffer((size,), vd.float32))
    assert_still_convolves(rng)


def test_transpose_out_buffer_dtype_error_is_a_value_error(context, rng):
    shape = (12, 5)
    kbuf = vd.asbuffer(crandom(rng, shape))
    out = vd.Buffer((vd.fft.get_transposed_size(shape, 0),), vd.complex64)
    with pytest.raises(ValueError):
        vd.fft.transpose(kbuf, axis=0, out_buffer=out, output_type=vd.complex128)


# -- several kernels per dispatch -------------------------------------------------------------

def stacked_maps(slice_size: int):
    """A kernel_map reading kernel ``mapped_kernel_index()`` of a stack, and an output_map
    writing its result into that slice of a stacked output."""
    def kernel_from_stack(kernels: Buff[c64]):
        op = vd.fft.read_op()
        offset = vd.fft.mapped_kernel_index() * slice_size
        kernel = kernels[op.io_index + offset]
        op.register[:] = vc.mult_complex(op.register, kernel.conjugate())

    def store_into_stack(out: Buff[c64]):
        op = vd.fft.write_op()
        op.write_to_buffer(out, io_index=op.io_index + vd.fft.mapped_kernel_index() * slice_size)

    return vd.map(kernel_from_stack), vd.map(store_into_stack)


@pytest.mark.parametrize("shape,axis,kernel_num", [((5, 16), -1, 3), ((12, 5), 0, 2),
                                                   ((2, 10, 3), 1, 4)], ids=str)
def test_several_kernels_with_mapped_kernel_index(context, rng, shape, axis, kernel_num):
    x, kernels = crandom(rng, shape), crandom(rng, (kernel_num,) + shape)
    kernel_map, output_map = stacked_maps(math.prod(shape))
    src = vd.asbuffer(x)
    out = vd.Buffer((kernel_num * shape[0],) + shape[1:], vd.complex64)
    vd.fft.convolve(out, src, vd.asbuffer(kernels.reshape(out.shape)), kernel_map=kernel_map,
                    output_map=output_map, kernel_num=kernel_num, buffer_shape=shape,
                    axis=axis)
    result = out.read(0).reshape((kernel_num,) + shape)
    for index in range(kernel_num):
        assert_fft_close(result[index], conv_ref(x, kernels[index], axis), shape[axis],
                         EPS32, CC)
    np.testing.assert_array_equal(src.read(0), x)


def test_mapped_kernel_index_is_none_outside_a_convolution(context):
    assert vd.fft.mapped_kernel_index() is None


def test_kernel_map_with_a_push_constant(context, rng):
    """vkdispatch 0.1.0's example: a kernel_map that scales the spectrum (fft, x s, ifft)."""
    x = crandom(rng, (3, 16))
    buf = vd.asbuffer(x)
    for s in (0.5, -2.0):
        buf.write(x)
        vd.fft.convolve(buf, s, kernel_map=scale_spectrum)
        assert_fft_close(buf.read(0), x.astype(np.complex128) * s, 16, EPS32, CC)
    buf.write(x)
    vd.fft.convolve(buf, 0.25, kernel_map=scale_spectrum, normalize=False)
    assert_fft_close(buf.read(0), x.astype(np.complex128) * 4, 16, EPS32, CC)


def test_kernel_map_push_constant_bound_in_a_graph(context, rng):
    x = crandom(rng, (3, 16))
    buf = vd.asbuffer(x)
    graph = vd.CommandGraph()
    try:
        vd.fft.convolve(buf, graph.bind_var("s"), kernel_map=scale_spectrum, graph=graph)
        for s in (3.0, -0.5):
            graph.set_var("s", s)
            buf.write(x)
            graph.submit()
            assert_fft_close(buf.read(0), x.astype(np.complex128) * s, 16, EPS32, CC)
    finally:
        graph.destroy()


def _conjugate_kernel(kernel: Buff[c64]):
    """The default kernel action, written as a kernel_map."""
    op = vd.fft.read_op()
    op.register[:] = vc.mult_complex(op.register, kernel[op.io_index].conjugate())


conjugate_kernel = vd.map(_conjugate_kernel)


@pytest.mark.parametrize("transposed", [False, True], ids=["natural", "transposed"])
def test_kernel_map_reads_the_kernel_layout_of_io_index(context, rng, transposed):
    """Inside a kernel_map, io_index is the kernel's index: natural or transposed."""
    shape, axis = (12, 5), 0
    x, kernel = crandom(rng, shape), crandom(rng, shape)
    kbuf = vd.asbuffer(kernel)
    if transposed:
        kbuf = vd.fft.transpose(kbuf, axis=axis)
    buf = vd.asbuffer(x)
    vd.fft.convolve(buf, kbuf, kernel_map=conjugate_kernel, axis=axis,
                    transposed_kernel=transposed)
    assert_fft_close(buf.read(0), conv_ref(x, kernel, axis), 12, EPS32, CC)


@pytest.mark.parametrize("transposed", [False, True], ids=["natural", "transposed"])
def test_lines_longer_than_the_whole_line_limit(context, rng, transposed):
    """A line past CONVOLUTION_WHOLE_LINE_BYTES exchanges one component at a time; the
    transposed kernel's layout follows the same plan."""
    n = 4096
    assert n * 8 > vd.fft.fused_budget.CONVOLUTION_WHOLE_LINE_BYTES
    shape = (3, n)
    x, kernel = crandom(rng, shape), crandom(rng, shape)
    kbuf = vd.asbuffer(kernel)
    if transposed:
        kbuf = vd.fft.transpose(kbuf, axis=-1)
    buf = vd.asbuffer(x)
    vd.fft.convolve(buf, kbuf, transposed_kernel=transposed)
    assert_fft_close(buf.read(0), conv_ref(x, kernel, -1), n, EPS32, CC)


# -- mapping hooks and signal ranges ----------------------------------------------------------

def test_input_map_output_map_and_kernel_argument_order(context, rng):
    """Arguments: output side (map's arguments), input side (map's arguments), kernel."""
    shape, axis = (4, 16), -1
    x, kernel = crandom(rng, shape), crandom(rng, shape)
    re = vd.asbuffer(np.ascontiguousarray(x.real))
    im = vd.asbuffer(np.ascontiguousarray(x.imag))
    out, kbuf = vd.Buffer(shape, vd.complex64), vd.asbuffer(kernel)
    vd.fft.convolve(out, 3.0, re, im, kbuf, input_map=load_pair, output_map=store_gain,
                    axis=axis)
    assert_fft_close(out.read(0), conv_ref(x, kernel, axis) * 3, 16, EPS32, CC)

    # Input map alone: the output buffer, the input map's arguments, the kernel.
    out2 = vd.Buffer(shape, vd.complex64)
    vd.fft.convolve(out2, re, im, kbuf, input_map=load_pair, axis=axis)
    assert_fft_close(out2.read(0), conv_ref(x, kernel, axis), 16, EPS32, CC)

    # Output map alone: its arguments, the input buffer, the kernel.
    src = vd.asbuffer(x)
    vd.fft.convolve(out, -0.5, src, kbuf, output_map=store_gain, axis=axis)
    assert_fft_close(out.read(0), conv_ref(x, kernel, axis) * -0.5, 16, EPS32, CC)
    np.testing.assert_array_equal(src.read(0), x)


def test_maps_along_a_strided_axis(context, rng):
    shape, axis = (12, 5), 0
    x, kernel = crandom(rng, shape), crandom(rng, shape)
    src, kbuf = vd.asbuffer(x), vd.asbuffer(kernel)
    out = vd.Buffer(shape, vd.complex64)
    vd.fft.convolve(out, src, kbuf, input_map=load_conjugate, output_map=store_conjugate,
                    axis=axis)
    expected = np.conj(conv_ref(np.conj(x), kernel, axis))
    assert_fft_close(out.read(0), expected, 12, EPS32, CC)


@pytest.mark.parametrize("shape,axis,signal_range", [
    ((3, 16), -1, (3, 12)), ((12, 5), 0, (5, None)),
    pytest.param((3, 64), -1, (None, 17), marks=pytest.mark.slow)], ids=str)
def test_input_signal_range_zero_masks_the_input(context, rng, shape, axis, signal_range):
    x, kernel = crandom(rng, shape), crandom(rng, shape)
    data = x.copy()
    data[masked(np.ones(shape), *signal_range, axis) == 0] = np.nan  # must not be read
    buf = vd.asbuffer(data)
    vd.fft.convolve(buf, vd.asbuffer(kernel), axis=axis, input_signal_range=signal_range)
    expected = conv_ref(masked(x, *signal_range, axis), kernel, axis)
    assert_fft_close(buf.read(0), expected, shape[axis], EPS32, CC)


# -- precisions -------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,axis", [
    ((3, 16), -1), pytest.param((64, 5), 0, marks=pytest.mark.slow)], ids=str)
def test_complex128(context, rng, shape, axis):
    needs_fp64(context)
    x, kernel = crandom(rng, shape, np.complex128), crandom(rng, shape, np.complex128)
    buf = vd.asbuffer(x)
    vd.fft.convolve(buf, vd.asbuffer(kernel), axis=axis)
    result = buf.read(0)
    assert result.dtype == np.complex128
    assert_fft_close(result, conv_ref(x, kernel, axis), shape[axis], EPS64, CC)


@pytest.mark.parametrize("shape,axis", [
    ((3, 16), -1), pytest.param((30, 4), 0, marks=pytest.mark.slow)], ids=str)
def test_complex32_buffers_compute_in_complex64(context, rng, shape, axis):
    needs_fp16(context)
    buf, x = complex32_buffer(rng, shape)
    kbuf, kernel = complex32_buffer(rng, shape)
    vd.fft.convolve(buf, kbuf, axis=axis)
    assert_fft_close(buf.read(0), conv_ref(x, kernel, axis), shape[axis], EPS16, CC)


def test_complex32_signal_with_a_complex64_kernel(context, rng):
    needs_fp16(context)
    buf, x = complex32_buffer(rng, (3, 16))
    kernel = (rng.standard_normal((3, 16)) + 1j * rng.standard_normal((3, 16))).astype(
        np.complex64)
    vd.fft.convolve(buf, vd.asbuffer(kernel))  # the kernel keeps its float32 digits
    assert_fft_close(buf.read(0), conv_ref(x, kernel), 16, EPS16, CC)


def assert_rounded_once(actual, expected, n: int) -> None:
    """Computed in double, the only float32 error is the final rounding of each output."""
    l2, peak = errors(actual, expected)
    limit = EPS32 + bound(n, EPS64, CC)
    assert l2 <= limit and peak <= limit, (l2 / EPS32, peak / EPS32)


@pytest.mark.parametrize("shape,axis", [
    ((12, 5), 0), pytest.param((3, 100), -1, marks=pytest.mark.slow)], ids=str)
def test_complex64_io_with_complex128_compute(context, rng, shape, axis):
    needs_fp64(context)
    result, x, kernel = convolved(rng, shape, axis, compute_type=vd.complex128)
    assert result.dtype == np.complex64
    assert_rounded_once(result, conv_ref(x, kernel, axis), shape[axis])


def test_complex128_kernel_promotes_the_computation(context, rng):
    """kernel_type comes from the kernel buffer: a complex128 kernel makes a complex64
    signal's convolution compute in double."""
    needs_fp64(context)
    x, kernel = crandom(rng, (4, 16)), crandom(rng, (4, 16), np.complex128) / 3
    buf, kbuf = vd.asbuffer(x), vd.asbuffer(kernel)
    vd.fft.convolve(buf, kbuf)
    promoted = buf.read(0)
    assert promoted.dtype == np.complex64
    assert_rounded_once(promoted, conv_ref(x, kernel), 16)
    buf.write(x)
    vd.fft.convolve(buf, kbuf, kernel_type=vd.complex128, compute_type=vd.complex64)
    assert_fft_close(buf.read(0), conv_ref(x, kernel), 16, EPS32, CC)
    assert not np.array_equal(buf.read(0), promoted)  # an explicit compute_type wins


# -- convolve2D -------------------------------------------------------------------------------

def kernel_spectrum_2d(rng, shape):
    """A random kernel and a buffer holding its fft2 (computed by vd.fft.fft2)."""
    kernel = crandom(rng, shape)
    kbuf = vd.asbuffer(kernel)
    vd.fft.fft2(kbuf)
    return kbuf, np.fft.fft2(kernel.astype(np.complex128))


@pytest.mark.parametrize("shape", [(8, 12), (3, 6, 10),
                                   pytest.param((13, 30), marks=pytest.mark.slow)], ids=str)
def test_convolve2D_matches_numpy(context, rng, shape):
    x = crandom(rng, shape)
    kbuf, spectrum = kernel_spectrum_2d(rng, shape)
    buf = vd.asbuffer(x)
    vd.fft.convolve2D(buf, kbuf)
    n = math.prod(shape[-2:])
    assert_fft_close(buf.read(0), conv2_ref(x, spectrum), n, EPS32, CC)
    buf.write(x)
    vd.fft.convolve2D(buf, kbuf, normalize=False)
    assert_fft_close(buf.read(0), conv2_ref(x, spectrum, normalize=False), n, EPS32, CC)


@pytest.mark.parametrize("shape", [(8, 12), (3, 6, 10)], ids=str)
def test_convolve2D_with_a_transposed_kernel(context, rng, shape):
    x = crandom(rng, shape)
    kbuf, spectrum = kernel_spectrum_2d(rng, shape)
    transposed = vd.fft.transpose(kbuf, axis=len(shape) - 2)
    buf = vd.asbuffer(x)
    vd.fft.convolve2D(buf, transposed, transposed_kernel=True)
    assert_fft_close(buf.read(0), conv2_ref(x, spectrum), math.prod(shape[-2:]), EPS32, CC)


def test_convolve2D_with_a_kernel_map(context, rng):
    x = crandom(rng, (8, 12))
    kbuf, spectrum = kernel_spectrum_2d(rng, (8, 12))
    buf = vd.asbuffer(x)
    vd.fft.convolve2D(buf, kbuf, kernel_map=conjugate_kernel)
    assert_fft_close(buf.read(0), conv2_ref(x, spectrum), 96, EPS32, CC)
    buf.write(x)
    vd.fft.convolve2D(buf, -1.5, kernel_map=scale_spectrum)  # its one argument as the kernel
    assert_fft_close(buf.read(0), x.astype(np.complex128) * -1.5, 96, EPS32, CC)


def test_convolve2D_inner_only_kernel_over_a_batch(context, rng):
    shape = (3, 6, 10)
    x = crandom(rng, shape)
    kbuf, spectrum = kernel_spectrum_2d(rng, shape[1:])
    buf = vd.asbuffer(x)
    vd.fft.convolve2D(buf, kbuf, kernel_inner_only=True)
    assert_fft_close(buf.read(0), conv2_ref(x, np.broadcast_to(spectrum, shape)), 60, EPS32,
                     CC)


@pytest.mark.parametrize("shape", [(8, 12), (3, 6, 10)], ids=str)
def test_convolve2D_with_input_map_and_output_map(context, rng, shape):
    """The maps' single buffer argument is the convolved buffer itself."""
    n = math.prod(shape[-2:])
    x = crandom(rng, shape)
    kbuf, spectrum = kernel_spectrum_2d(rng, shape)
    buf = vd.asbuffer(x)
    vd.fft.convolve2D(buf, kbuf, input_map=load_conjugate)
    assert_fft_close(buf.read(0), conv2_ref(np.conj(x), spectrum), n, EPS32, CC)
    buf.write(x)
    vd.fft.convolve2D(buf, kbuf, output_map=store_conjugate)  # a 0.1.0 defect (TypeError)
    assert_fft_close(buf.read(0), np.conj(conv2_ref(x, spectrum)), n, EPS32, CC)
    buf.write(x)
    vd.fft.convolve2D(buf, kbuf, input_map=load_conjugate, output_map=store_conjugate)
    assert_fft_close(buf.read(0), np.conj(conv2_ref(np.conj(x), spectrum)), n, EPS32, CC)


# -- convolve2DR ------------------------------------------------------------------------------

def convolved_2dr(rng, real_shape, transposed=False, **options):
    """Runs ``vd.fft.convolve2DR`` with a kernel holding ``rfft2`` of a random real kernel
    (computed by vd.fft.rfft2, optionally transposed); returns (result, expected)."""
    x = (rng.standard_normal(real_shape) * 100).astype(np.float32)
    kernel = (rng.standard_normal(real_shape) * 100).astype(np.float32)
    kbuf = vd.asrfftbuffer(kernel)
    vd.fft.rfft2(kbuf)
    buf = vd.asrfftbuffer(x)
    if transposed:
        kbuf = vd.fft.transpose(kbuf, conv_shape=buf.shape, axis=len(real_shape) - 2)
    vd.fft.convolve2DR(buf, kbuf, transposed_kernel=transposed, **options)
    spectrum = np.fft.rfft2(x.astype(np.float64)) * np.conj(np.fft.rfft2(kernel.astype(
        np.float64)))
    n = math.prod(real_shape[-2:])
    expected = np.fft.irfft2(spectrum, s=real_shape[-2:]) * (
        1 if options.get("normalize", True) else n)
    result = buf.read_real(0)
    assert result.shape == real_shape and result.dtype == np.float32
    return result, expected


@pytest.mark.parametrize("real_shape", [(8, 10), (7, 9), (3, 6, 12),
                                        pytest.param((2, 5, 7), marks=pytest.mark.slow)],
                         ids=str)
def test_convolve2DR_matches_numpy(context, rng, real_shape):
    result, expected = convolved_2dr(rng, real_shape)
    assert_fft_close(result, expected, math.prod(real_shape[-2:]), EPS32, CC)


def test_convolve2DR_without_normalisation(context, rng):
    result, expected = convolved_2dr(rng, (7, 9), normalize=False)
    assert_fft_close(result, expected, 63, EPS32, CC)


@pytest.mark.parametrize("real_shape", [(8, 10), (2, 5, 7)], ids=str)
def test_convolve2DR_with_a_transposed_kernel(context, rng, real_shape):
    result, expected = convolved_2dr(rng, real_shape, transposed=True)
    assert_fft_close(result, expected, math.prod(real_shape[-2:]), EPS32, CC)


# -- GPU plans ---------------------------------------------------------------------------------

def test_staged_gpu_plans(gpu_plans, rng):
    shape = (300, 12)
    config = vd.fft.FFTConfig(shape, 1, limits=DeviceLimits.current())
    grid = vd.fft.FFTGridManager(config, declare_variables=False)
    assert grid.staged and grid.partial  # the last group holds fewer lines

    result, x, kernel = convolved(rng, shape, -1, input_signal_range=(2, 11))
    assert_fft_close(result, conv_ref(masked(x, 2, 11, -1), kernel), 12, EPS32, CC)

    x, kernel = crandom(rng, shape), crandom(rng, (12,))
    transposed = vd.fft.transpose(vd.asbuffer(kernel), conv_shape=shape, kernel_inner_only=True)
    buf = vd.asbuffer(x)
    vd.fft.convolve(buf, transposed, transposed_kernel=True, kernel_inner_only=True)
    assert_fft_close(buf.read(0), conv_ref(x, np.broadcast_to(kernel, shape)), 12, EPS32, CC)

    x = crandom(rng, (6, 10))
    kbuf, spectrum = kernel_spectrum_2d(rng, (6, 10))
    buf = vd.asbuffer(x)
    vd.fft.convolve2D(buf, kbuf, output_map=store_conjugate)
    assert_fft_close(buf.read(0), np.conj(conv2_ref(x, spectrum)), 60, EPS32, CC)


def test_staged_gpu_plan_with_several_kernels(gpu_plans, rng):
    shape = (300, 12)
    x, kernels = crandom(rng, shape), crandom(rng, (2,) + shape)
    kernel_map, output_map = stacked_maps(math.prod(shape))
    out = vd.Buffer((2 * shape[0], shape[1]), vd.complex64)
    vd.fft.convolve(out, vd.asbuffer(x), vd.asbuffer(kernels.reshape(out.shape)),
                    kernel_map=kernel_map, output_map=output_map, kernel_num=2,
                    buffer_shape=shape)
    for index, result in enumerate(out.read(0).reshape((2,) + shape)):
        assert_fft_close(result, conv_ref(x, kernels[index]), 12, EPS32, CC)


# -- command graphs ---------------------------------------------------------------------------

@vd.shader("buf.size")
def scale_complex(buf: Buff[c64], k: Const[f32]):
    i = vc.global_invocation_id().x
    buf[i] = buf[i] * k


def test_convolutions_recorded_between_other_shaders(context, rng):
    shape = (6, 10)
    x = crandom(rng, shape)
    kbuf, spectrum = kernel_spectrum_2d(rng, shape)
    kernel = crandom(rng, shape)
    buf, kbuf1 = vd.asbuffer(x), vd.asbuffer(kernel)
    graph = vd.CommandGraph()
    try:
        scale_complex(buf, 2.0, graph=graph)
        vd.fft.convolve(buf, kbuf1, axis=0, graph=graph)
        vd.fft.convolve2D(buf, kbuf, graph=graph)
        scale_complex(buf, -0.25, graph=graph)
        np.testing.assert_array_equal(buf.read(0), x)  # recorded, not run
        for _ in range(2):
            x = crandom(rng, shape)
            buf.write(x)
            graph.submit()
            expected = conv2_ref(conv_ref(x * 2.0, kernel, 0), spectrum) * -0.25
            assert_fft_close(buf.read(0), expected, 60, EPS32, 2 * CC)
    finally:
        graph.destroy()


@vd.shader("out.size")
def doubled_copy(out: Buff[c64], buf: Buff[c64]):
    i = vc.global_invocation_id().x
    out[i] = buf[i] * 2.0


def test_convolve2DR_in_a_graph_is_finished_before_the_next_kernel_reads_it(context, rng):
    """convolve2DR stores its real output through raw index text; a kernel recorded after it
    that only reads the buffer must still wait for those stores (debug runs also check the
    barrier with validation)."""
    real_shape = (64, 125)
    x = (rng.standard_normal(real_shape) * 100).astype(np.float32)
    kernel = (rng.standard_normal(real_shape) * 100).astype(np.float32)
    kbuf = vd.asrfftbuffer(kernel)
    vd.fft.rfft2(kbuf)
    buf = vd.asrfftbuffer(x)
    graph = vd.CommandGraph()
    try:
        vd.fft.convolve2DR(buf, kbuf, graph=graph)
        out = vd.Buffer(buf.shape, vd.complex64)
        doubled_copy(out, buf, graph=graph)  # every real value, as pairs, doubled
        graph.submit()
        spectrum = np.fft.rfft2(x.astype(np.float64)) * np.conj(
            np.fft.rfft2(kernel.astype(np.float64)))
        expected = 2 * np.fft.irfft2(spectrum, s=real_shape)
        doubled = out.read(0).view(np.float32)[..., :real_shape[-1]]
        assert_fft_close(doubled, expected, math.prod(real_shape), EPS32, CC)
    finally:
        graph.destroy()


# -- errors -----------------------------------------------------------------------------------

def assert_still_convolves(rng) -> None:
    """A correct convolution right after the error: nothing was left half-built."""
    result, x, kernel = convolved(rng, (3, 16), -1)
    assert_fft_close(result, conv_ref(x, kernel), 16, EPS32, CC)


_ERRORS = {
    "no buffers": (ValueError, "At least one buffer", lambda b, k: vd.fft.convolve()),
    "one buffer without kernel_map": (
        ValueError, r"requires at least an output buffer and kernel buffer",
        lambda b, k: vd.fft.convolve(b)),
    "one buffer with output_map": (
        ValueError, r"requires at least an output buffer and kernel buffer",
        lambda b, k: vd.fft.convolve(b, 1.0, b, output_map=store_gain)),
    "kernel_type with kernel_map": (
        ValueError, "kernel_type cannot be provided when kernel_map is used",
        lambda b, k: vd.fft.convolve(b, 1.0, kernel_map=scale_spectrum,
                                     kernel_type=vd.complex64)),
    "kernel_type unlike the kernel buffer": (
        TypeError, "kernel_type=complex128 does not match the kernel buffer's dtype complex64",
        lambda b, k: vd.fft.convolve(b, k, kernel_type=vd.complex128)),
    "kernel buffer that is not complex": (
        ValueError, r"kernel_type must be one of complex32, complex64, or complex128",
        lambda b, k: vd.fft.convolve(b, vd.Buffer((3, 16), vd.float32))),
    "kernel_num 0": (
        ValueError, "kernel_num must be a positive int, got 0",
        lambda b, k: vd.fft.convolve(b, k, kernel_num=0)),
    "kernel_num not an int": (
        ValueError, "kernel_num must be an int, got float 2.0",
        lambda b, k: vd.fft.convolve(b, k, kernel_num=2.0)),
    "axis out of range": (ValueError, "axis", lambda b, k: vd.fft.convolve(b, k, axis=2)),
    "graph of the wrong type": (
        TypeError, "graph must be a vd.CommandGraph",
        lambda b, k: vd.fft.convolve(b, k, graph=object())),
    "convolve2D on a 1-D buffer": (
        ValueError, r"must have 2 or 3 dimensions, got shape \(30,\)",
        lambda b, k: vd.fft.convolve2D(vd.Buffer((30,), vd.complex64),
                                       vd.Buffer((30,), vd.complex64))),
    "convolve2DR on a plain Buffer": (
        TypeError, "convolve2DR needs a vd.RFFTBuffer, got Buffer",
        lambda b, k: vd.fft.convolve2DR(b, k)),
    "convolve2DR on a 1-D real shape": (
        ValueError, r"2-D or 3-D real shape, got \(30,\)",
        lambda b, k: vd.fft.convolve2DR(vd.RFFTBuffer((30,)), vd.RFFTBuffer((30,)))),
}
_ERRORS.update({f"{hook} that is not a vd.map": (
    TypeError, f"{hook} must be a vd.map MappingFunction, got 42",
    lambda b, k, hook=hook: vd.fft.convolve(b, k, **{hook: 42}))
    for hook in ("kernel_map", "input_map", "output_map")})


@pytest.mark.parametrize("case", list(_ERRORS))
def test_errors_are_clear_and_leave_the_context_usable(context, rng, case):
    error, message, call = _ERRORS[case]
    buf, kbuf = vd.asbuffer(crandom(rng, (3, 16))), vd.asbuffer(crandom(rng, (3, 16)))
    with pytest.raises(error, match=message):
        call(buf, kbuf)
    assert_still_convolves(rng)


def test_buffer_smaller_than_buffer_shape_is_refused(context, rng):
    buf = vd.asbuffer(crandom(rng, (2, 16)))
    with pytest.raises(ValueError, match=r"buffer_shape \(4, 16\) needs 64 elements"):
        vd.fft.convolve(buf, vd.asbuffer(crandom(rng, (4, 16))), buffer_shape=(4, 16))


def test_kernel_smaller_than_the_signal_is_refused(context, rng):
    buf = vd.asbuffer(crandom(rng, (4, 16)))
    with pytest.raises(ValueError, match="kernel"):
        vd.fft.convolve(buf, vd.asbuffer(crandom(rng, (16,))))


@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "strided"])
def test_axis_longer_than_one_workgroup_holds(context, rng, strided):
    """Past the fused (single-pass) limit every form runs unfused and is as exact: the plain
    one, a signal range (a zero-padded convolution's column pass), a kernel broadcast over
    the outer batches, two kernels through hooks; the transposed kernel (the fused shader's
    layout) raises naming the length."""
    n = 2 * fft_single_pass_limit() if not strided else fft_single_pass_limit()
    shape = (n, 2) if strided else (2, n)
    axis = 0 if strided else 1
    x, k = crandom(rng, shape), crandom(rng, shape)
    wide = x.astype(np.complex128)

    def expected(signal, kernel):
        return np.fft.ifft(np.fft.fft(signal, axis=axis) * np.conj(kernel), axis=axis)

    buf, kbuf = vd.asbuffer(x), vd.asbuffer(k)
    vd.fft.convolve(buf, kbuf, axis=axis)
    assert_fft_close(buf.read(0), expected(wide, k), n, EPS32, c=2 * C)

    start, end = n // 8, n // 3
    masked = np.zeros_like(wide)
    index = [slice(None)] * 2
    index[axis] = slice(start, end)
    masked[tuple(index)] = wide[tuple(index)]
    buf.write(x)
    vd.fft.convolve(buf, kbuf, axis=axis, input_signal_range=(start, end))
    assert_fft_close(buf.read(0), expected(masked, k), n, EPS32, c=2 * C)

    if not strided:  # one kernel line for both batches
        line = crandom(rng, (n,))
        buf.write(x)
        vd.fft.convolve(buf, vd.asbuffer(line), axis=axis, kernel_inner_only=True)
        assert_fft_close(buf.read(0), expected(wide, line[None, :]), n, EPS32, c=2 * C)

    @vd.map
    def scaled(kernel: Buff[c64]):
        op = vd.fft.read_op()
        gain = vc.new_float_register(1.0 + vd.fft.mapped_kernel_index())
        op.register[:] = vc.mult_complex(op.register, kernel[op.io_index]) * gain

    out = vd.Buffer((2,) + shape, vd.complex64)

    @vd.map
    def store(target: Buff[c64]):
        op = vd.fft.write_op()
        op.write_to_buffer(target, io_index=op.io_index + vd.fft.mapped_kernel_index() * x.size)

    source = vd.asbuffer(x)
    vd.fft.convolve(out, source, kbuf, buffer_shape=shape, axis=axis, kernel_num=2,
                    kernel_map=scaled, output_map=store, input_type=vd.complex64)
    product = np.fft.ifft(np.fft.fft(wide, axis=axis) * k, axis=axis)
    got = out.read(0)
    for index in range(2):
        assert_fft_close(got[index], (1 + index) * product, n, EPS32, c=2 * C)
    with pytest.raises(ValueError, match=rf"transposed_kernel: .* length {n} \(longer"):
        vd.fft.convolve(buf, kbuf, axis=axis, transposed_kernel=True)
    assert_still_convolves(rng)


@pytest.mark.parametrize("batch,n,k", [(3, 64, 16), (2, 96, 40), (1, 60, 15)])
def test_zero_padded_2d_convolution_as_the_docs_write_it(context, rng, batch, n, k):
    """docs/fft.rst's three calls convolve the k x k corner of each plane and never read
    outside it: random values there (not zeros) leave the result that of the zero-padded
    planes."""
    block, plane = k * n, n * n

    @vd.map
    def rows_in(src: Buff[c64]):
        op = vd.fft.read_op()
        op.read_from_buffer(src, io_index=(op.io_index // block) * plane + op.io_index % block)

    @vd.map
    def rows_out(dst: Buff[c64]):
        op = vd.fft.write_op()
        op.write_to_buffer(dst, io_index=(op.io_index // block) * plane + op.io_index % block)

    x, spectra = crandom(rng, (batch, n, n)), crandom(rng, (batch, n, n))
    padded = np.zeros((batch, n, n), np.complex128)
    padded[:, :k, :k] = x[:, :k, :k]
    buf, kernel = vd.asbuffer(x), vd.asbuffer(spectra)
    vd.fft.fft(buf, buf, buffer_shape=(batch, k, n), input_signal_range=(0, k),
               input_map=rows_in, output_map=rows_out)
    vd.fft.convolve(buf, kernel, axis=1, input_signal_range=(0, k))
    vd.fft.ifft(buf)
    expected = np.fft.ifft2(np.fft.fft2(padded) * np.conj(spectra))
    assert_fft_close(buf.read(0), expected, n * n, EPS32, c=2 * C)


def test_error_while_recording_leaves_the_graph_usable(context, rng):
    x, kernel = crandom(rng, (3, 16)), crandom(rng, (3, 16))
    buf, kbuf = vd.asbuffer(x), vd.asbuffer(kernel)
    graph = vd.CommandGraph()
    try:
        vd.fft.convolve(buf, kbuf, graph=graph)
        with pytest.raises(ValueError, match="kernel_num"):
            vd.fft.convolve(buf, kbuf, graph=graph, kernel_num=-1)
        graph.submit()
    finally:
        graph.destroy()
    assert_fft_close(buf.read(0), conv_ref(x, kernel), 16, EPS32, CC)


# -- caches (last: clearing makes later tests rebuild their shaders) ----------------------------

def test_cache_clear_empties_the_convolution_cache(context, rng, capsys):
    shape = (2, 8, 12)
    transpose_shader = vd.fft.make_transpose_shader(shape, 1)
    vd.fft.convolve(vd.asbuffer(crandom(rng, shape)), vd.asbuffer(crandom(rng, shape)))
    assert get_convolution_cache_info().currsize >= 1
    vd.fft.cache_clear()
    assert get_convolution_cache_info().currsize == 0
    assert vd.fft.get_cache_info().currsize == 0
    assert vd.fft.make_transpose_shader(shape, 1) is not transpose_shader

    before = get_convolution_cache_info()
    result, x, kernel = convolved(rng, shape, -1)
    assert_fft_close(result, conv_ref(x, kernel), 12, EPS32, CC)
    after = get_convolution_cache_info()
    assert after.currsize == 1 and after.misses == before.misses + 1
    convolved(rng, shape, 2)  # the same shader (axis 2 is axis -1)
    assert get_convolution_cache_info().hits == after.hits + 1
    assert get_convolution_cache_info().currsize == 1

    vd.fft.print_cache_info()
    printed = capsys.readouterr().out
    assert "FFT shader cache" in printed and "Convolution shader cache" in printed
    assert str(get_convolution_cache_info()) in printed
