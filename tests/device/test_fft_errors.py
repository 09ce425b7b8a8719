"""vd.fft user errors: each raises a clear exception naming the offending argument, and the
context (and the shader builder) stays usable afterwards: every test ends with a small FFT
checked against numpy."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import fft_single_pass_limit, random_array

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, c64, f32

EPS32 = 2.0**-24


def assert_still_usable(rng, shape=(3, 30)) -> None:
    """A correct FFT right after the error: nothing was left half-built or half-recorded."""
    x = random_array(rng, shape, np.complex64)
    buf = vd.asbuffer(x)
    vd.fft.fft(buf)
    expected = np.fft.fft(x.astype(np.complex128))
    err = np.linalg.norm(buf.read(0) - expected) / np.linalg.norm(expected)
    assert err <= EPS32 * 8 * np.log2(shape[-1]), err


@pytest.fixture
def cbuf(context, rng):
    return vd.asbuffer(random_array(rng, (4, 16), np.complex64))


def _load_real(src: Buff[f32]):
    op = vd.fft.read_op()
    t = op.register.var_type.child_type
    op.register.real = vc.to_dtype(t, src[op.io_index])
    op.register.imag = vc.to_dtype(t, 0)


def _store_real(dst: Buff[f32]):
    op = vd.fft.write_op()
    dst[op.io_index] = vc.to_dtype(dst.var_type, op.register.real)


load_real, store_real = vd.map(_load_real), vd.map(_store_real)


# -- buffers ----------------------------------------------------------------------------------

def test_no_buffers(context, rng):
    for call in (vd.fft.fft, vd.fft.fft2, vd.fft.ifft2, vd.fft.fft3, vd.fft.ifft3):
        with pytest.raises(ValueError, match="At least one buffer"):
            call()
    assert_still_usable(rng)


def test_two_buffers_without_maps(context, rng, cbuf):
    other = vd.Buffer((4, 16), vd.complex64)
    with pytest.raises(ValueError, match=r"exactly one buffer, got 2"):
        vd.fft.fft(cbuf, other)
    assert_still_usable(rng)


@pytest.mark.parametrize("dtype", [vd.float32, vd.vec2, vd.int32, vd.float64], ids=str)
def test_non_complex_buffer(context, rng, dtype):
    buf = vd.Buffer((32,), dtype)
    with pytest.raises(ValueError, match=rf"output_type must be one of complex32, complex64, "
                                         rf"or complex128 \(got {dtype.name}\)"):
        vd.fft.fft(buf)
    with pytest.raises(ValueError, match=dtype.name):
        vd.fft.ifft(buf)
    assert_still_usable(rng)


def test_input_type_different_from_output_type_without_maps(context, rng, cbuf):
    with pytest.raises(ValueError, match=r"input_type must match output_type.*complex128.*"
                                         r"complex64"):
        vd.fft.fft(cbuf, input_type=vd.complex128)
    with pytest.raises(ValueError, match=r"input_type must be one of complex32, complex64, or "
                                         r"complex128 \(got float32\)"):
        vd.fft.fft(cbuf, input_type=vd.float32)
    assert_still_usable(rng)


@pytest.mark.parametrize("output_type", [vd.complex128, vd.complex32], ids=str)
def test_output_type_that_does_not_match_the_in_place_buffer(context, rng, cbuf, output_type):
    with pytest.raises(TypeError, match="output_type"):
        vd.fft.fft(cbuf, output_type=output_type)
    assert_still_usable(rng)


_TYPE_AND_MAP_CONFLICTS = {
    "input_type differs from the input buffer": (
        TypeError, "input_type", lambda f32, cbuf: vd.fft.fft(
            f32, cbuf, output_map=store_real, input_type=vd.complex128)),
    "output_type with output_map": (
        ValueError, "output_type cannot be provided when output_map", lambda f32, cbuf:
        vd.fft.fft(f32, cbuf, output_map=store_real, output_type=vd.complex64)),
    "input_type with input_map": (
        ValueError, "input_type cannot be provided when input_map", lambda f32, cbuf:
        vd.fft.fft(cbuf, f32, input_map=load_real, input_type=vd.complex64)),
}


@pytest.mark.parametrize("case", list(_TYPE_AND_MAP_CONFLICTS))
def test_types_that_conflict_with_buffers_or_maps(context, rng, cbuf, case):
    error, message, call = _TYPE_AND_MAP_CONFLICTS[case]
    with pytest.raises(error, match=message):
        call(vd.Buffer((4, 16), vd.float32), cbuf)
    assert_still_usable(rng)


def test_output_map_without_an_input_buffer(context, rng):
    dst = vd.Buffer((4, 16), vd.float32)
    with pytest.raises(ValueError, match="input buffer argument must be provided"):
        vd.fft.fft(dst, output_map=store_real)
    with pytest.raises(ValueError, match="input buffer argument must be provided"):
        vd.fft.fft2(dst, output_map=store_real)
    assert_still_usable(rng)


def test_map_that_is_not_a_mapping_function(context, rng, cbuf):
    src = vd.Buffer((4, 16), vd.float32)
    with pytest.raises(TypeError, match="input_map must be a vd.map"):
        vd.fft.fft(cbuf, src, input_map=_load_real)
    with pytest.raises(TypeError, match="output_map must be a vd.map"):
        vd.fft.fft(src, cbuf, output_map=_store_real)
    assert_still_usable(rng)


@pytest.mark.parametrize("compute_type", [vd.float32, vd.vec2, vd.float64], ids=str)
def test_unsupported_compute_precision(context, rng, cbuf, compute_type):
    with pytest.raises(ValueError, match=rf"compute_type must be one of complex32, complex64, "
                                         rf"or complex128 \(got {compute_type.name}\)"):
        vd.fft.fft(cbuf, compute_type=compute_type)
    rbuf = vd.RFFTBuffer((4, 10))
    with pytest.raises(ValueError, match="compute_type"):
        vd.fft.rfft(rbuf, compute_type=compute_type)
    assert_still_usable(rng)


@pytest.mark.parametrize("axis", [2, -3, 17])
def test_axis_out_of_range(context, rng, cbuf, axis):
    with pytest.raises(ValueError, match=rf"axis {axis} is out of range for a 2-D buffer"):
        vd.fft.fft(cbuf, axis=axis)
    with pytest.raises(ValueError, match=rf"axis {axis}"):
        vd.fft.ifft(cbuf, axis=axis)
    assert_still_usable(rng)


@pytest.mark.parametrize("axis", [1.0, "0", True])
def test_axis_of_the_wrong_type(context, rng, cbuf, axis):
    with pytest.raises(ValueError, match="axis must be an int"):
        vd.fft.fft(cbuf, axis=axis)
    assert_still_usable(rng)


def test_buffer_too_small_for_buffer_shape(context, rng):
    buf = vd.Buffer((64,), vd.complex64)
    with pytest.raises(ValueError, match=r"buffer_shape \(128,\) needs 128 elements but the "
                                         r"buffer holds 64"):
        vd.fft.fft(buf, buffer_shape=(128,))
    with pytest.raises(ValueError, match=r"buffer_shape \(5, 16\) needs 80"):
        vd.fft.fft(buf, buffer_shape=(5, 16))
    assert_still_usable(rng)


def test_bad_buffer_shape_values(context, rng):
    buf = vd.Buffer((64,), vd.complex64)
    with pytest.raises(ValueError, match=r"buffer_shape\[0\] must be at least 1, got 0"):
        vd.fft.fft(buf, buffer_shape=(0, 8))
    assert_still_usable(rng)


def test_smaller_buffer_shape_transforms_the_prefix(context, rng):
    """Not an error: buffer_shape may describe fewer elements than the buffer holds."""
    x = random_array(rng, (100,), np.complex64)
    buf = vd.asbuffer(x)
    vd.fft.fft(buf, buffer_shape=(6, 16))
    result = buf.read(0)
    expected = np.fft.fft(x[:96].reshape(6, 16).astype(np.complex128)).reshape(-1)
    err = np.linalg.norm(result[:96] - expected) / np.linalg.norm(expected)
    assert err <= EPS32 * 8 * 4, err
    np.testing.assert_array_equal(result[96:], x[96:])


# -- unsupported lengths ----------------------------------------------------------------------

def test_a_prime_length_too_long_to_split_names_it_and_vkfft(context, rng):
    """Bluestein's transforms of M ~ 2^32 cannot be split into two passes: refused when the
    plan is made (no buffer of that size needed), naming the length."""
    n = 2**31 - 1
    with pytest.raises(ValueError, match=rf"(?s)FFT length {n} has the prime factor {n}.*"
                                         r"Bluestein.*vd\.vkfft"):
        vd.fft.make_fft_shader((n,))
    assert_still_usable(rng)


def test_too_long_line_names_the_length(context, rng):
    """Beyond the longest single-pass line the planner (FFTConfig, one pass) raises naming the
    length; vd.fft transforms such lines in two passes."""
    n = 2 * fft_single_pass_limit()
    assert n > vd.get_context().max_shared_memory // 8
    with pytest.raises(ValueError, match=rf"\b{n}\b"):
        vd.fft.FFTConfig((n,))
    assert_still_usable(rng)


# -- real transforms --------------------------------------------------------------------------

def test_rfft_on_a_plain_buffer(context, rng, cbuf):
    for call in (vd.fft.rfft, vd.fft.irfft, vd.fft.rfft2, vd.fft.irfft2, vd.fft.rfft3,
                 vd.fft.irfft3):
        with pytest.raises(TypeError, match=r"real transforms need a vd.RFFTBuffer, got Buffer"):
            call(cbuf)
    assert_still_usable(rng)


def test_rfft2_and_rfft3_dimension_checks(context, rng):
    one_d = vd.asrfftbuffer(rng.standard_normal(16).astype(np.float32))
    for call in (vd.fft.rfft2, vd.fft.irfft2):
        with pytest.raises(ValueError, match=r"real shape must have 2 or 3 dimensions, got "
                                             r"\(16,\)"):
            call(one_d)
    two_d = vd.RFFTBuffer((4, 8))
    for call in (vd.fft.rfft3, vd.fft.irfft3):
        with pytest.raises(ValueError, match=r"must have 3 dimensions, got \(4, 8\)"):
            call(two_d)
    assert_still_usable(rng)


def test_r2c_along_a_strided_axis(context, rng):
    buf = vd.RFFTBuffer((8, 10))
    with pytest.raises(ValueError, match="R2C io only supported for contiguous data"):
        vd.fft.fft(buf, buffer_shape=buf.real_shape, r2c=True, axis=0)
    assert_still_usable(rng)


def test_complex_multi_axis_dimension_checks(context, rng):
    one_d = vd.Buffer((16,), vd.complex64)
    for call in (vd.fft.fft2, vd.fft.ifft2):
        with pytest.raises(ValueError, match=r"Buffer must have 2 or 3 dimensions, got shape "
                                             r"\(16,\)"):
            call(one_d)
    for call in (vd.fft.fft3, vd.fft.ifft3):
        with pytest.raises(ValueError, match=r"Buffer must have 3 dimensions"):
            call(vd.Buffer((4, 4), vd.complex64))
    assert_still_usable(rng)


# -- input_signal_range -----------------------------------------------------------------------

@pytest.mark.parametrize("signal_range", [(5, 3), (-1, 4), (0, 17), (17, None), (None, -2)],
                         ids=str)
def test_input_signal_range_out_of_bounds(context, rng, cbuf, signal_range):
    with pytest.raises(ValueError, match=r"input_signal_range .* must satisfy 0 <= start <= "
                                         r"end <= 16"):
        vd.fft.fft(cbuf, input_signal_range=signal_range)
    assert_still_usable(rng)


@pytest.mark.parametrize("signal_range", [[0, 4], (1, 2, 3), (4,), 8], ids=str)
def test_input_signal_range_not_a_pair(context, rng, cbuf, signal_range):
    with pytest.raises(ValueError, match=r"input_signal_range must be a \(start, end\) tuple"):
        vd.fft.fft(cbuf, input_signal_range=signal_range)
    assert_still_usable(rng)


# -- graphs -----------------------------------------------------------------------------------

@pytest.mark.parametrize("graph", ["graph", 5, object()], ids=["str", "int", "object"])
def test_graph_of_the_wrong_type(context, rng, cbuf, graph):
    kind = type(graph).__name__
    with pytest.raises(TypeError, match=rf"graph must be a vd.CommandGraph \(or None\), got "
                                        rf"{kind}"):
        vd.fft.fft(cbuf, graph=graph)
    with pytest.raises(TypeError, match="graph must be a vd.CommandGraph"):
        vd.fft.ifft(cbuf, graph=graph)
    with pytest.raises(TypeError, match="graph must be a vd.CommandGraph"):
        vd.fft.fft2(cbuf, graph=graph)
    with pytest.raises(TypeError, match="graph must be a vd.CommandGraph"):
        vd.fft.rfft(vd.RFFTBuffer((2, 8)), graph=graph)
    assert_still_usable(rng)


def test_graph_both_positional_and_keyword(context, rng, cbuf):
    graph = vd.CommandGraph()
    try:
        with pytest.raises(TypeError, match="graph was given both by position and by keyword"):
            vd.fft.fft2(cbuf, graph, graph=graph)
    finally:
        graph.destroy()
    assert_still_usable(rng)


def test_error_while_recording_leaves_the_graph_usable(context, rng):
    x = random_array(rng, (2, 12), np.complex64)
    buf = vd.asbuffer(x)
    graph = vd.CommandGraph()
    try:
        vd.fft.fft(buf, graph=graph)
        with pytest.raises(ValueError, match="buffer_shape"):
            vd.fft.fft(vd.Buffer((16,), vd.complex64), buffer_shape=(32,), graph=graph)
        graph.submit()
        expected = np.fft.fft(x.astype(np.complex128))
        err = np.linalg.norm(buf.read(0) - expected) / np.linalg.norm(expected)
        assert err <= EPS32 * 8 * np.log2(12), err
    finally:
        graph.destroy()
    assert_still_usable(rng)


# -- hooks ------------------------------------------------------------------------------------

def test_read_op_and_write_op_outside_a_hook(context, rng):
    with pytest.raises(ValueError, match=r"No global read operation.*input_map"):
        vd.fft.read_op()
    with pytest.raises(ValueError, match=r"No global write operation.*output_map"):
        vd.fft.write_op()
    assert_still_usable(rng)


def test_write_op_inside_an_input_map(context, rng, cbuf):
    @vd.map
    def wrong(src: Buff[f32]):
        vd.fft.write_op()

    with pytest.raises(ValueError, match="No global write operation"):
        vd.fft.fft(cbuf, vd.Buffer((4, 16), vd.float32), input_map=wrong)
    assert_still_usable(rng)
    with pytest.raises(ValueError, match="No global read operation"):
        vd.fft.read_op()  # the failed trace did not leave an op set


def test_exception_inside_a_map_propagates_and_tracing_recovers(context, rng, cbuf):
    class Boom(Exception):
        pass

    @vd.map
    def explodes(src: Buff[f32]):
        vd.fft.read_op()
        raise Boom("from the map")

    with pytest.raises(Boom, match="from the map"):
        vd.fft.fft(cbuf, vd.Buffer((4, 16), vd.float32), input_map=explodes)
    with pytest.raises(ValueError, match="No global read operation"):
        vd.fft.read_op()
    assert_still_usable(rng)
    assert_still_usable(rng, shape=(5, 77))


def test_map_buffer_missing_at_dispatch(context, rng, cbuf):
    with pytest.raises((TypeError, ValueError), match=r"(?i)argument"):
        vd.fft.fft(cbuf, input_map=load_real)  # the map's float32 buffer is not passed
    assert_still_usable(rng)


def test_map_annotation_without_one_type_argument(context, rng, cbuf):
    bad = vd.map(_load_real, input_types=[vc.Buffer])
    with pytest.raises(ValueError, match="input_map contains an annotation without exactly "
                                         "one type argument"):
        vd.fft.fft(cbuf, vd.Buffer((4, 16), vd.float32), input_map=bad)
    assert_still_usable(rng)


def test_pad_dim_rejects_non_positive(context):
    for dim in (0, -4):
        with pytest.raises(ValueError, match=rf"Dimension must be greater than 0 \(got "
                                             rf"dim={dim}\)"):
            vd.fft.pad_dim(dim)
    assert vd.fft.pad_dim(17) == 18 and vd.fft.pad_dim(34) == 35 and vd.fft.pad_dim(64) == 64


def _scaled_source(source: Buff[c64]):
    op = vd.fft.read_op()
    op.read_from_buffer(source)
    op.register[:] = op.register * 2.0


scaled_source = vd.map(_scaled_source)


def test_errors_about_hook_arguments_name_the_hook_parameter(context, rng):
    """A generated shader's parameters are param0, param1, ...: errors also say what the
    argument is to the caller (the hook's parameter, or the output/input buffer)."""
    out = vd.Buffer((4, 16), vd.complex64)
    with pytest.raises(ValueError, match=r"'param1' \(input_map's parameter 'source'\).*int"):
        vd.fft.fft(out, 3, input_map=scaled_source)
    shader = vd.fft.make_fft_shader((4, 16), input_map=scaled_source)
    source = vd.asbuffer(random_array(rng, (4, 16), np.complex64))
    with pytest.raises(ValueError, match=r"'param0' \(the output buffer\).*got str"):
        shader("out", source)
    assert_still_usable(rng)
