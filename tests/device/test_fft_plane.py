"""One-pass 2-D transforms of planes that fit a workgroup (vkdispatch/fft/plane.py):
``fft2``/``ifft2`` and ``fft3``'s last two axes, against numpy's float64 transforms on random
data, with the pass count checked (one dispatch where the plane fits, the per-axis passes
where it does not or where maps are given)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd
from vkdispatch.codegen.abbreviations import Buff, c64
from vkdispatch.fft.config import DeviceLimits, FFTConfig
from vkdispatch.fft.plane import plane_fits, plane_shader

EPS32, EPS64 = 2.0**-24, 2.0**-53


def assert_close(actual, expected, n: int, eps: float = EPS32) -> None:
    """Relative L2 error within ``eps 8 log2(n)`` (how rounding grows in an FFT)."""
    error = np.linalg.norm(actual - expected) / np.linalg.norm(expected)
    assert error <= eps * 8 * math.log2(max(n, 2)), error


def dispatches(record) -> int:
    """Shader dispatches that ``record(graph)`` records."""
    graph = vd.CommandGraph()
    record(graph)
    count = len(graph._commands)
    graph.destroy()
    return count


PLANES = [(2, 2), (8, 8), (4, 16), (16, 4), (3, 5), (7, 9), (12, 10), (13, 11), (32, 32),
          (20, 100), (2, 1024), (1024, 2), (64, 64)]


@pytest.mark.parametrize("rows,cols", PLANES)
def test_fft2_and_ifft2_of_planes_in_one_pass(context, rng, rows, cols):
    if not plane_fits(rows, cols, vd.complex64, DeviceLimits.current()):
        pytest.skip(f"a {rows} x {cols} plane does not fit this device's workgroup")
    x = random_array(rng, (3, rows, cols), np.complex64)
    buffer = vd.asbuffer(x)
    vd.fft.fft2(buffer)
    spectrum = np.fft.fft2(x.astype(np.complex128))
    assert_close(buffer.read(0), spectrum, rows * cols)
    vd.fft.ifft2(buffer)
    assert_close(buffer.read(0), x, rows * cols)
    vd.fft.ifft2(buffer := vd.asbuffer(x), normalize=False)
    assert_close(buffer.read(0), np.fft.ifft2(x.astype(np.complex128)) * rows * cols,
                 rows * cols)
    assert dispatches(lambda g: vd.fft.fft2(buffer, graph=g)) == 1


def test_a_2d_buffer_is_one_plane(context, rng):
    x = random_array(rng, (24, 40), np.complex64)
    buffer = vd.asbuffer(x)
    vd.fft.fft2(buffer)
    assert_close(buffer.read(0), np.fft.fft2(x.astype(np.complex128)), 24 * 40)
    assert dispatches(lambda g: vd.fft.fft2(buffer, graph=g)) == 1


@pytest.mark.parametrize("shape", [(4, 16, 16), (16, 8, 32), (5, 6, 7)])
def test_fft3_runs_its_last_two_axes_as_planes(context, rng, shape):
    x = random_array(rng, shape, np.complex64)
    buffer = vd.asbuffer(x)
    vd.fft.fft3(buffer)
    assert_close(buffer.read(0), np.fft.fftn(x.astype(np.complex128)), math.prod(shape))
    vd.fft.ifft3(buffer)
    assert_close(buffer.read(0), x, math.prod(shape))
    assert dispatches(lambda g: vd.fft.fft3(buffer, graph=g)) == 2


def test_complex128_planes(context, rng):
    x = random_array(rng, (2, 16, 24), np.complex128)
    buffer = vd.asbuffer(x)
    vd.fft.fft2(buffer)
    assert_close(buffer.read(0), np.fft.fft2(x), 16 * 24, EPS64)
    assert dispatches(lambda g: vd.fft.fft2(buffer, graph=g)) == 1


def test_planes_too_large_for_a_workgroup_take_two_passes(context, rng):
    limits = DeviceLimits.current()
    assert not plane_fits(128, 512, vd.complex64, limits)  # 512 KiB: more than any workgroup
    x = random_array(rng, (128, 512), np.complex64)
    buffer = vd.asbuffer(x)
    vd.fft.fft2(buffer)
    assert_close(buffer.read(0), np.fft.fft2(x.astype(np.complex128)), 128 * 512)
    assert dispatches(lambda g: vd.fft.fft2(buffer, graph=g)) == 2


def test_lengths_of_other_primes_and_single_rows_take_the_passes(context, rng):
    limits = DeviceLimits.current()
    assert not plane_fits(37, 8, vd.complex64, limits)  # 37: Rader's algorithm, per axis
    assert not plane_fits(1, 64, vd.complex64, limits)
    x = random_array(rng, (2, 37, 8), np.complex64)
    buffer = vd.asbuffer(x)
    vd.fft.fft2(buffer)
    assert_close(buffer.read(0), np.fft.fft2(x.astype(np.complex128)), 37 * 8)


def _load_doubled(src: Buff[c64]):
    op = vd.fft.read_op()
    op.register[:] = src[op.io_index] * 2


load_doubled = vd.map(_load_doubled)  # module level: one map, one cached plan


def test_maps_keep_the_per_axis_passes(context, rng):
    x = random_array(rng, (2, 16, 16), np.complex64)
    source, target = vd.asbuffer(x), vd.Buffer(x.shape, vd.complex64)
    vd.fft.fft2(target, source, input_map=load_doubled)
    assert_close(target.read(0), np.fft.fft2(x.astype(np.complex128)) * 2, 256)
    assert dispatches(lambda g: vd.fft.fft2(target, source, input_map=load_doubled,
                                            graph=g)) == 2


def test_the_plane_stages_are_columns_then_rows(context):
    config = FFTConfig((12 * 10,), 0, compute_type=vd.complex64, plane_rows=12)
    strides = [stage.input_stride for stage in config.stages]
    radices = [stage.radix for stage in config.stages]
    column_stages = [s for s in config.stages if s.interleaved == 1]
    assert math.prod(s.radix for s in column_stages) == 12
    assert [s.interleaved for s in config.stages[len(column_stages):]] == \
        [12] * (len(radices) - len(column_stages))
    assert strides[0] == 1 and math.prod(radices) == 120
    with pytest.raises(ValueError, match="plane_rows 7 must divide"):
        FFTConfig((120,), 0, plane_rows=7)


def test_a_plane_shader_refuses_a_buffer_too_small(context, rng):
    shader = plane_shader(DeviceLimits.current(), (4, 8, 8), False, True, vd.complex64,
                          vd.complex64)
    with pytest.raises(ValueError, match="8, 8"):
        shader(vd.asbuffer(random_array(rng, (3, 8, 8), np.complex64)))


@pytest.mark.parametrize("shape", [(3, 8, 8), (2, 32, 16), (16, 24), (4, 5, 7), (2, 12, 10)])
@pytest.mark.parametrize("inner_only", [False, True])
def test_convolve2d_of_planes_in_one_pass(context, rng, shape, inner_only):
    x = random_array(rng, shape, np.complex64)
    k = random_array(rng, shape[-2:] if inner_only else shape, np.complex64)
    buffer, kernel = vd.asbuffer(x), vd.asbuffer(k)
    vd.fft.convolve2D(buffer, kernel, kernel_inner_only=inner_only)
    expected = np.fft.ifft2(np.fft.fft2(x.astype(np.complex128)) * np.conj(k))
    assert_close(buffer.read(0), expected, 2 * shape[-1] * shape[-2])
    np.testing.assert_array_equal(kernel.read(0), k)
    assert dispatches(lambda g: vd.fft.convolve2D(buffer, kernel, kernel_inner_only=inner_only,
                                                  graph=g)) == 1


def test_convolve2d_of_planes_unnormalized_in_complex128(context, rng):
    x, k = (random_array(rng, (2, 16, 8), np.complex128) for _ in range(2))
    buffer = vd.asbuffer(x)
    vd.fft.convolve2D(buffer, vd.asbuffer(k), normalize=False)
    expected = np.fft.ifft2(np.fft.fft2(x) * np.conj(k)) * 128
    assert_close(buffer.read(0), expected, 2 * 128, EPS64)


def test_convolve2d_of_large_planes_keeps_three_passes(context, rng):
    x, k = (random_array(rng, (128, 512), np.complex64) for _ in range(2))
    buffer, kernel = vd.asbuffer(x), vd.asbuffer(k)
    vd.fft.convolve2D(buffer, kernel)
    expected = np.fft.ifft2(np.fft.fft2(x.astype(np.complex128)) * np.conj(k))
    assert_close(buffer.read(0), expected, 2 * 128 * 512)
    assert dispatches(lambda g: vd.fft.convolve2D(buffer, kernel, graph=g)) == 3


def test_convolve2d_of_planes_refuses_a_short_kernel(context, rng):
    x = random_array(rng, (2, 16, 16), np.complex64)
    buffer = vd.asbuffer(x)
    short = vd.asbuffer(random_array(rng, (1, 16, 16), np.complex64))
    with pytest.raises(ValueError, match="holds 256 elements.*needs 512"):
        vd.fft.convolve2D(buffer, short)
    np.testing.assert_array_equal(buffer.read(0), x)  # nothing ran


def test_convolve2d_of_planes_names_a_buffer_shape_larger_than_the_buffer(context, rng):
    x = random_array(rng, (3, 8), np.complex64)
    buffer, kernel = vd.asbuffer(x), vd.asbuffer(random_array(rng, (3, 8), np.complex64))
    with pytest.raises(ValueError, match=r"buffer_shape \(4, 8\) needs 32 elements"):
        vd.fft.convolve2D(buffer, kernel, buffer_shape=(4, 8))
    np.testing.assert_array_equal(buffer.read(0), x)
