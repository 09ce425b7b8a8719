"""vd.fft mapping hooks (input_map/output_map through vd.map with read_op()/write_op()), maps
through the multi-axis transforms, command graphs, the shader cache, the ``*_src`` helpers and
the procedural ``fft_context`` API, all against numpy.fft on random data.

Shader argument order: the output side (output_map's arguments, or the output buffer), then
the input side (input_map's arguments, or the input buffer when only output_map is given).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import fft_single_pass_limit, random_array

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.fft.convolution import get_convolution_cache_info
from vkdispatch.codegen.abbreviations import Buff, Var, c64, f32

EPS32 = 2.0**-24
C = 8


def bound(n: int, eps: float = EPS32, c: float = C) -> float:
    return eps * c * math.log2(max(n, 2))


def assert_fft_close(actual, expected, n: int, eps: float = EPS32, c: float = C) -> None:
    """Relative L2 and max errors within ``eps * c * log2(n)`` (float error growth)."""
    actual, expected = np.asarray(actual), np.asarray(expected, np.complex128)
    assert actual.shape == expected.shape and np.all(np.isfinite(actual))
    diff = actual.astype(np.complex128) - expected
    l2 = np.linalg.norm(diff) / np.linalg.norm(expected)
    peak = np.abs(diff).max() / np.abs(expected).max()
    limit = bound(n, eps, c)
    assert l2 <= limit and peak <= limit, (
        f"relative L2 {l2:.3g} / max {peak:.3g} > {limit:.3g} (eps*{c}*log2({n}))")


def assert_real_close(actual, expected, n: int, eps: float = EPS32, c: float = C) -> None:
    actual = np.asarray(actual)
    assert actual.dtype.kind == "f"
    assert_fft_close(actual, np.asarray(expected, np.float64), n, eps, c)


def crandom(rng, shape):
    return random_array(rng, shape, np.complex64)


def frandom(rng, shape):
    return random_array(rng, shape, np.float32)


# -- maps (module level, so the same function gives equal maps) -------------------------------

def _load_scaled(src: Buff[f32], gain: Var[f32]):
    op = vd.fft.read_op()
    t = op.register.var_type.child_type
    op.register.real = vc.to_dtype(t, src[op.io_index]) * gain
    op.register.imag = vc.to_dtype(t, 0)


def _store_real_part(dst: Buff[f32]):
    op = vd.fft.write_op()
    dst[op.io_index] = vc.to_dtype(dst.var_type, op.register.real)


def _load_real(src: Buff[f32]):
    op = vd.fft.read_op()
    t = op.register.var_type.child_type
    op.register.real = vc.to_dtype(t, src[op.io_index])
    op.register.imag = vc.to_dtype(t, 0)


def _store_split(re: Buff[f32], im: Buff[f32]):
    op = vd.fft.write_op()
    re[op.io_index] = vc.to_dtype(re.var_type, op.register.real)
    im[op.io_index] = vc.to_dtype(im.var_type, op.register.imag)


def _store_scaled_complex(dst: Buff[c64], gain: Var[f32]):
    op = vd.fft.write_op()
    op.write_to_buffer(dst, register=op.register * gain)


def _read_through(src: Buff[c64]):
    vd.fft.read_op().read_from_buffer(src)


load_scaled = vd.map(_load_scaled)
store_real_part = vd.map(_store_real_part)
load_real = vd.map(_load_real)
store_split = vd.map(_store_split)
store_scaled_complex = vd.map(_store_scaled_complex)
read_through = vd.map(_read_through)


# -- 1-D maps -----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,axis", [((4, 210), -1), ((64, 3), 0), ((1000,), 0)], ids=str)
def test_reference_example_load_scaled_store_real_part(context, rng, shape, axis):
    x = frandom(rng, shape)
    src, dst = vd.asbuffer(x), vd.Buffer(shape, vd.float32)
    gain = float(rng.uniform(0.5, 3.0))
    vd.fft.fft(dst, src, gain, input_map=load_scaled, output_map=store_real_part, axis=axis)
    expected = np.fft.fft(x.astype(np.float64) * np.float32(gain), axis=axis)
    # Real parts only: the bound relative to the full spectrum's norm still holds per element.
    result = dst.read(0)
    assert_real_close(result, expected.real, shape[axis], c=C * 2)
    np.testing.assert_array_equal(src.read(0), x)  # the input is not touched


def test_input_map_from_float_buffer_with_push_constant_into_complex_output(context, rng):
    x = frandom(rng, (3, 77))
    src, out = vd.asbuffer(x), vd.Buffer((3, 77), vd.complex64)
    for gain in (1.0, -0.25, 7.5):
        vd.fft.fft(out, src, gain, input_map=load_scaled)
        assert_fft_close(out.read(0), np.fft.fft(x.astype(np.float64) * gain), 77)
    vd.fft.fft(out, src, 2.0, input_map=load_scaled, inverse=True)
    assert_fft_close(out.read(0), np.fft.ifft(x.astype(np.float64) * 2.0), 77)


def test_output_map_writes_a_different_buffer_and_leaves_the_input(context, rng):
    x = crandom(rng, (5, 64))
    src = vd.asbuffer(x)
    re, im = vd.Buffer((5, 64), vd.float32), vd.Buffer((5, 64), vd.float32)
    vd.fft.fft(re, im, src, output_map=store_split)
    expected = np.fft.fft(x.astype(np.complex128))
    assert_fft_close(re.read(0) + 1j * im.read(0).astype(np.float64), expected, 64)
    np.testing.assert_array_equal(src.read(0), x)

    dst = vd.Buffer((5, 64), vd.complex64)
    vd.fft.fft(dst, 0.5, src, output_map=store_scaled_complex, inverse=True)
    assert_fft_close(dst.read(0), 0.5 * np.fft.ifft(x.astype(np.complex128)), 64)
    np.testing.assert_array_equal(src.read(0), x)


def test_output_map_only_reads_a_complex_input_of_another_precision(context, rng):
    if not vd.get_context().device_infos[0].float_64_support:
        pytest.skip("the device lacks float64")
    x = random_array(rng, (2, 100), np.complex128)
    src, dst = vd.asbuffer(x), vd.Buffer((2, 100), vd.float32)
    vd.fft.fft(dst, src, output_map=store_real_part)  # input type from the input buffer
    expected = np.fft.fft(x)
    assert_real_close(dst.read(0), expected.real, 100, c=2 * C)


def test_input_map_using_read_from_buffer_keeps_signal_range_masking(context, rng):
    x = crandom(rng, (2, 48))
    src, out = vd.asbuffer(x), vd.Buffer((2, 48), vd.complex64)
    vd.fft.fft(out, src, input_map=read_through, input_signal_range=(6, 30))
    masked = x.astype(np.complex128).copy()
    masked[:, :6] = 0
    masked[:, 30:] = 0
    assert_fft_close(out.read(0), np.fft.fft(masked), 48)


# -- maps through fft2 / fft3 ---------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(12, 20), (3, 8, 14)], ids=str)
def test_fft2_with_input_map_reads_the_map_buffers(context, rng, shape):
    x = frandom(rng, shape)
    src, out = vd.asbuffer(x), vd.Buffer(shape, vd.complex64)
    vd.fft.fft2(out, src, 1.5, input_map=load_scaled)
    n = shape[-1] * shape[-2]
    assert_fft_close(out.read(0), np.fft.fft2(x.astype(np.float64) * 1.5), n)
    np.testing.assert_array_equal(src.read(0), x)


def test_fft2_with_output_map_and_both_maps(context, rng):
    shape = (10, 16)
    x = crandom(rng, shape)
    work, dst = vd.asbuffer(x), vd.Buffer(shape, vd.float32)
    vd.fft.fft2(dst, work, output_map=store_real_part)
    assert_real_close(dst.read(0), np.fft.fft2(x.astype(np.complex128)).real, 160, c=2 * C)

    r = frandom(rng, shape)
    src = vd.asbuffer(r)
    vd.fft.fft2(dst, work, src, 0.5, input_map=load_scaled, output_map=store_real_part)
    expected = np.fft.fft2(r.astype(np.float64) * 0.5)
    assert_real_close(dst.read(0), expected.real, 160, c=2 * C)
    np.testing.assert_array_equal(src.read(0), r)


def test_ifft2_and_fft3_with_maps(context, rng):
    x = frandom(rng, (6, 10))
    src, out = vd.asbuffer(x), vd.Buffer((6, 10), vd.complex64)
    vd.fft.ifft2(out, src, 3.0, input_map=load_scaled)
    assert_fft_close(out.read(0), np.fft.ifft2(x.astype(np.float64) * 3.0), 60)
    vd.fft.ifft2(out, src, 3.0, input_map=load_scaled, normalize=False)
    assert_fft_close(out.read(0), np.fft.ifft2(x.astype(np.float64) * 3.0) * 60, 60)

    y = frandom(rng, (4, 6, 5))
    src3, work, dst = (vd.asbuffer(y), vd.Buffer((4, 6, 5), vd.complex64),
                       vd.Buffer((4, 6, 5), vd.float32))
    vd.fft.fft3(dst, work, src3, input_map=load_real, output_map=store_real_part)
    assert_real_close(dst.read(0), np.fft.fftn(y.astype(np.float64)).real, 120, c=2 * C)
    vd.fft.ifft3(work, src3, input_map=load_real)
    assert_fft_close(work.read(0), np.fft.ifftn(y.astype(np.float64)), 120)


# -- command graphs ---------------------------------------------------------------------------

def test_in_place_fft_recorded_in_a_graph_runs_on_each_submit(context, rng):
    x = crandom(rng, (3, 30))
    buf = vd.asbuffer(x)
    graph = vd.CommandGraph()
    try:
        vd.fft.fft(buf, graph=graph)
        np.testing.assert_array_equal(buf.read(0), x)  # recorded, not run
        graph.submit()
        assert_fft_close(buf.read(0), np.fft.fft(x.astype(np.complex128)), 30)
        graph.submit()
        # fft(fft(x))[k] = N x[-k mod N]
        expected = 30 * np.roll(x[:, ::-1], 1, axis=1).astype(np.complex128)
        assert_fft_close(buf.read(0), expected, 30, c=2 * C)
    finally:
        graph.destroy()


def test_mapped_multi_axis_graph_with_bound_push_constant(context, rng):
    shape = (8, 12)
    x = frandom(rng, shape)
    src, out = vd.asbuffer(x), vd.Buffer(shape, vd.complex64)
    graph = vd.CommandGraph()
    try:
        vd.fft.fft2(out, src, graph.bind_var("gain"), input_map=load_scaled, graph=graph)
        vd.fft.ifft(out, axis=0, graph=graph)
        for gain in (2.0, -0.5):
            graph.set_var("gain", gain)
            graph.submit()
            expected = np.fft.ifft(np.fft.fft2(x.astype(np.float64) * gain), axis=0)
            assert_fft_close(out.read(0), expected, 96, c=2 * C)
        y = frandom(rng, shape)
        src.write(y)
        graph.submit()
        expected = np.fft.ifft(np.fft.fft2(y.astype(np.float64) * -0.5), axis=0)
        assert_fft_close(out.read(0), expected, 96, c=2 * C)
    finally:
        graph.destroy()


def test_graph_is_passed_positionally_to_fft2(context, rng):
    x = crandom(rng, (6, 6))
    buf = vd.asbuffer(x)
    graph = vd.CommandGraph()
    try:
        vd.fft.fft2(buf, graph)
        np.testing.assert_array_equal(buf.read(0), x)
        graph.submit()
        assert_fft_close(buf.read(0), np.fft.fft2(x.astype(np.complex128)), 36)
    finally:
        graph.destroy()


# -- shader cache -----------------------------------------------------------------------------

def test_repeated_transform_hits_the_cache_and_cache_clear_empties_it(context, rng):
    x = crandom(rng, (7, 26))
    buf = vd.asbuffer(x)
    vd.fft.fft(buf)
    before = vd.fft.get_cache_info()
    shader = vd.fft.make_fft_shader((7, 26))
    assert shader is vd.fft.make_fft_shader((7, 26), axis=-1)
    vd.fft.fft(buf)  # the call's plan is kept with the context: not even a factory lookup
    after = vd.fft.get_cache_info()
    assert after.hits == before.hits + 2 and after.misses == before.misses
    assert after.currsize == before.currsize
    expected = np.fft.fft(np.fft.fft(x.astype(np.complex128)))
    assert_fft_close(buf.read(0), expected, 26, c=2 * C)

    vd.fft.cache_clear()
    assert vd.fft.get_cache_info().currsize == 0
    assert vd.fft.get_cache_info().hits == 0
    assert vd.fft.make_fft_shader((7, 26)) is not shader  # rebuilt
    buf.write(x)
    vd.fft.fft(buf)  # still works after clearing, planned again
    assert vd.fft.get_cache_info().hits == 1
    assert_fft_close(buf.read(0), np.fft.fft(x.astype(np.complex128)), 26)


def test_maps_built_twice_from_the_same_function_share_the_shader(context, rng):
    x = frandom(rng, (2, 40))
    src, out = vd.asbuffer(x), vd.Buffer((2, 40), vd.complex64)
    first, second = vd.map(_load_scaled), vd.map(_load_scaled)
    assert first == second and first is not second
    vd.fft.fft(out, src, 1.0, input_map=first)
    before = vd.fft.get_cache_info()
    vd.fft.fft(out, src, 2.0, input_map=second)
    after = vd.fft.get_cache_info()
    assert after.hits == before.hits + 1 and after.misses == before.misses
    assert_fft_close(out.read(0), np.fft.fft(x.astype(np.float64) * 2.0), 40)


def test_print_cache_info(context, capsys):
    vd.fft.print_cache_info()
    assert "hits" in capsys.readouterr().out


# -- source helpers ---------------------------------------------------------------------------

def _codes(sources):
    return [s.code for s in (sources if isinstance(sources, tuple) else (sources,))]


@pytest.mark.parametrize("name,shape,passes", [
    ("fft_src", (64,), 1), ("ifft_src", (4, 30), 1), ("fft2_src", (64, 64), 2),
    ("ifft2_src", (3, 8, 12), 2), ("fft3_src", (4, 6, 10), 3), ("ifft3_src", (4, 6, 10), 3),
    ("rfft_src", (3, 18), 1), ("irfft_src", (3, 15), 1), ("rfft2_src", (6, 10), 2),
    ("irfft2_src", (6, 9), 2), ("rfft3_src", (4, 6, 10), 3), ("irfft3_src", (4, 6, 10), 3),
    ("convolve_src", (4, 32), 1), ("convolve2D_src", (16, 24), 3),
    ("convolve2DR_src", (16, 24), 3), ("transpose_src", (16, 24), 1),
])
def test_src_helpers_return_glsl_with_main(context, name, shape, passes):
    codes = _codes(getattr(vd.fft, name)(shape))
    assert len(codes) == passes
    for code in codes:
        assert "void main" in code and "#version" in code


def test_convolve2D_src_is_what_convolve2D_dispatches(context, rng):
    """The helper builds through the same caches: dispatching afterwards compiles nothing.
    (Planes too large for one workgroup: smaller ones are convolved in one pass.)"""
    vd.fft.convolve2D_src((128, 512))
    before = (vd.fft.get_cache_info(), get_convolution_cache_info())
    buf, kernel = vd.asbuffer(crandom(rng, (128, 512))), vd.asbuffer(crandom(rng, (128, 512)))
    vd.fft.convolve2D(buf, kernel)
    after = (vd.fft.get_cache_info(), get_convolution_cache_info())
    assert [a.misses for a in after] == [b.misses for b in before]
    assert after[1].hits == before[1].hits + 1


def test_fft2_src_works_and_matches_the_dispatched_shaders(context, rng):
    # 128 x 256 values exceed a workgroup, so fft2 runs the two per-axis passes fft2_src shows
    # (a smaller plane runs in one pass: tests/device/test_fft_plane.py)
    first, second = vd.fft.fft2_src((128, 256))  # 0.1.0 raised TypeError here
    assert first.code != second.code
    x = crandom(rng, (128, 256))
    buf = vd.asbuffer(x)
    before = vd.fft.get_cache_info()
    vd.fft.fft2(buf)
    after = vd.fft.get_cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 2
    assert_fft_close(buf.read(0), np.fft.fft2(x.astype(np.complex128)), 128 * 256)


def test_src_helpers_with_maps_and_print_helpers(context, capsys):
    code = vd.fft.fft_src((4, 32), input_map=load_scaled, output_map=store_real_part).code
    assert "void main" in code and code.count("buffer") >= 2
    vd.fft.fft2_print_src((16, 16))
    out = capsys.readouterr().out
    assert out.count("void main") == 2
    vd.fft.irfft_print_src((10,))
    assert "void main" in capsys.readouterr().out
    numbered = vd.fft.fft_src((16,), line_numbers=True).code
    assert numbered.lstrip().startswith("1:")


# -- procedural API (docs/fft.rst, vd.fft.fft_context) --------------------------------------------

def test_fft_context_hand_built_scaled_fft(context, rng):
    with vd.fft.fft_context(buffer_shape=(4, 1024), axis=1) as ctx:
        out_buf, in_buf = ctx.declare_shader_args([vc.Buffer[vc.c64], vc.Buffer[vc.c64]])
        for op in vd.fft.global_reads_iterator(ctx.registers):
            op.read_from_buffer(in_buf)
        ctx.execute(inverse=False)
        for op in vd.fft.global_writes_iterator(ctx.registers):
            op.write_to_buffer(out_buf, register=op.register * 0.5)
    kernel = ctx.get_callable()
    x = crandom(rng, (4, 1024))
    inp, out = vd.asbuffer(x), vd.Buffer((4, 1024), vd.complex64)
    kernel(out, inp)
    assert_fft_close(out.read(0), 0.5 * np.fft.fft(x.astype(np.complex128), axis=1), 1024)
    np.testing.assert_array_equal(inp.read(0), x)
    y = crandom(rng, (4, 1024))
    inp.write(y)
    kernel(out, inp)  # reusable
    assert_fft_close(out.read(0), 0.5 * np.fft.fft(y.astype(np.complex128), axis=1), 1024)


def test_fft_context_strided_inverse_with_manual_normalisation(context, rng):
    with vd.fft.fft_context((30, 6), axis=0) as ctx:
        (buf,) = ctx.declare_shader_args([vc.Buffer[vc.c64]])
        for op in ctx.reads_iter():
            op.read_from_buffer(buf)
        ctx.execute(inverse=True)
        ctx.registers.normalize()
        for op in ctx.writes_iter():
            op.write_to_buffer(buf)
    x = crandom(rng, (30, 6))
    data = vd.asbuffer(x)
    ctx.get_callable()(data)
    assert_fft_close(data.read(0), np.fft.ifft(x.astype(np.complex128), axis=0), 30)


# -- lines longer than one workgroup (multi-pass, when supported) ------------------------------


def test_maps_and_graphs_beyond_one_workgroup(context, rng):
    """Past the single-pass limit the two-pass plan honours maps, push constants and graph
    replays like a one-pass one."""
    n = 2 * fft_single_pass_limit()
    x = frandom(rng, (n,))
    src, dst = vd.asbuffer(x), vd.Buffer((n,), vd.float32)
    graph = vd.CommandGraph()
    try:
        vd.fft.fft(dst, src, graph.bind_var("gain"), input_map=load_scaled,
                   output_map=store_real_part, graph=graph)
        for gain in (1.0, -3.0):
            graph.set_var("gain", gain)
            graph.submit()
            expected = np.fft.fft(x.astype(np.float64) * gain).real
            assert_real_close(dst.read(0), expected, n, c=2 * C)
    finally:
        graph.destroy()
    np.testing.assert_array_equal(src.read(0), x)
