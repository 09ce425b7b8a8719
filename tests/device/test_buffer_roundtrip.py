"""Buffer data round trips: write random host data, read it back, compare with numpy.

Expected shapes and host dtypes are vkdispatch 0.1.0's: ``read(i)`` has shape
``buffer.shape + var_type.true_numpy_shape`` and the numpy type of the element's scalar
(complex32 reads back as complex64); ``read()`` stacks every replica on a leading axis.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import Buff, f32

ALL_DTYPES = list(dt.all_dtypes())
SHAPES = [(7,), (5, 3), (2, 3, 5)]
F16_EPS = float(np.finfo(np.float16).eps)


def host_dtype(var_type) -> np.dtype:
    """numpy dtype of ``read()``: the scalar, complex32 -> complex64."""
    if var_type is vd.complex32:
        return np.dtype(np.complex64)
    return np.dtype((var_type.scalar or var_type).name)


def host_shape(shape, var_type) -> tuple:
    return tuple(shape) + tuple(var_type.true_numpy_shape)


def random_host_data(rng, shape, var_type) -> np.ndarray:
    return random_array(rng, host_shape(shape, var_type), host_dtype(var_type))


def stored(var_type, data: np.ndarray) -> np.ndarray:
    """What the device holds for ``data``: complex32 keeps float16 real/imaginary parts."""
    if var_type is not vd.complex32:
        return data
    real = data.real.astype(np.float16).astype(np.float32)
    imag = data.imag.astype(np.float16).astype(np.float32)
    return (real + 1j * imag).astype(np.complex64)


def assert_read_equals(result: np.ndarray, var_type, data: np.ndarray, shape) -> None:
    assert result.shape == host_shape(shape, var_type)
    assert result.dtype == host_dtype(var_type)
    np.testing.assert_array_equal(result, stored(var_type, data))
    if var_type is vd.complex32:  # the float16 rounding stays within half an ulp
        np.testing.assert_allclose(result, data, rtol=F16_EPS, atol=6e-8)


# -- every dtype, every rank ---------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("var_type", ALL_DTYPES, ids=lambda t: t.name)
def test_buffer_write_read_every_dtype_and_rank_roundtrips_exactly(context, rng, var_type, shape):
    data = random_host_data(rng, shape, var_type)
    assert np.count_nonzero(data) > 0
    buffer = vd.Buffer(shape, var_type)
    buffer.write(data)
    assert_read_equals(buffer.read(0), var_type, data, shape)


@pytest.mark.parametrize("var_type,shape", [(vd.float32, (1 << 20,)), (vd.complex32, (1024, 1024)),
                                            (vd.uint64, (64, 128, 128)), (vd.vec3, (1000, 1000))],
                         ids=["float32", "complex32", "uint64", "vec3"])
def test_buffer_write_read_million_elements_roundtrips_exactly(context, rng, var_type, shape):
    data = random_host_data(rng, shape, var_type)
    buffer = vd.Buffer(shape, var_type)
    buffer.write(data)
    assert_read_equals(buffer.read(0), var_type, data, shape)


@pytest.mark.parametrize("var_type", [vd.float64, vd.complex32, vd.ivec2, vd.mat3],
                         ids=lambda t: t.name)
def test_buffer_read_without_index_stacks_every_replica(context, rng, var_type):
    shape = (5, 3)
    data = random_host_data(rng, shape, var_type)
    buffer = vd.Buffer(shape, var_type)
    buffer.write(data)
    stacked = buffer.read()
    assert stacked.shape == (context.queue_count,) + host_shape(shape, var_type)
    assert stacked.dtype == host_dtype(var_type)
    for replica in range(context.queue_count):
        assert_read_equals(stacked[replica], var_type, data, shape)


def test_buffer_write_with_index_targets_only_that_replica(context, rng):
    first = random_host_data(rng, (9,), vd.int32)
    second = random_host_data(rng, (9,), vd.int32)
    buffer = vd.Buffer((9,), vd.int32)
    buffer.write(first)
    buffer.write(second, index=0)
    np.testing.assert_array_equal(buffer.read(0), second)
    for replica in range(1, context.queue_count):
        np.testing.assert_array_equal(buffer.read(replica), first)



def test_small_buffers_side_by_side_keep_their_data_through_writes_kernels_and_reuse(context,
                                                                                       rng):
    """Small buffers share device memory blocks: writing one, running a kernel over it, or
    freeing it and allocating another in its place never touches its neighbours."""
    @vd.shader("b.size")
    def double(b: Buff[f32]):
        i = vc.global_invocation_id().x
        b[i] = b[i] * 2.0

    sizes = rng.integers(1, 3000, size=40)
    data = [random_array(rng, (int(n),), np.float32) for n in sizes]
    buffers = [vd.asbuffer(d) for d in data]
    for k in range(0, len(buffers), 3):
        double(buffers[k])
        data[k] = data[k] * np.float32(2)
    for k in range(1, len(buffers), 3):
        buffers[k].destroy()
        data[k] = random_array(rng, (int(sizes[k]),), np.float32)
        buffers[k] = vd.asbuffer(data[k])
    for k, (buffer, expected) in enumerate(zip(buffers, data)):
        np.testing.assert_array_equal(buffer.read(0), expected, err_msg=f"buffer {k}")

# -- host layout and conversions -----------------------------------------------------------

NON_CONTIGUOUS = {
    "transposed": lambda a: a.T,
    "strided": lambda a: a[::2, 1::3],
    "reversed": lambda a: a[::-1, ::-1],
    "fortran": lambda a: np.asfortranarray(a),
}


@pytest.mark.parametrize("layout", NON_CONTIGUOUS, ids=str)
@pytest.mark.parametrize("np_dtype", [np.float32, np.int16, np.complex128], ids=str)
def test_buffer_write_non_contiguous_array_uses_logical_c_order(context, rng, layout, np_dtype):
    base = random_array(rng, (10, 12), np_dtype)
    view = NON_CONTIGUOUS[layout](base)
    buffer = vd.Buffer(view.shape, dt.from_numpy_dtype(np.dtype(np_dtype)))
    buffer.write(view)
    np.testing.assert_array_equal(buffer.read(0), np.ascontiguousarray(view))


def test_buffer_write_strided_components_into_vector_buffer_keeps_order(context, rng):
    base = random_array(rng, (20, 6), np.float32)
    view = base[::2, ::2]  # (10, 3), non-contiguous in both axes
    buffer = vd.Buffer((10,), vd.vec3)
    buffer.write(view)
    np.testing.assert_array_equal(buffer.read(0), np.ascontiguousarray(view))


CONVERSIONS = [
    (np.float64, vd.float32), (np.float32, vd.float64), (np.float64, vd.float16),
    (np.int64, vd.int32), (np.int32, vd.int64), (np.int16, vd.float32), (np.uint16, vd.int32),
    (np.complex128, vd.complex64), (np.float32, vd.complex64), (np.complex128, vd.complex32),
]


@pytest.mark.parametrize("src,var_type", CONVERSIONS,
                         ids=[f"{np.dtype(s).name}-{t.name}" for s, t in CONVERSIONS])
def test_buffer_write_other_numeric_dtype_converts_like_numpy(context, rng, src, var_type):
    src = np.dtype(src)
    if src == np.int64 and var_type is vd.int32:
        data = rng.integers(-2**31, 2**31, size=(6, 4)).astype(src)  # values that fit
    else:
        data = random_array(rng, (6, 4), src)
    buffer = vd.Buffer((6, 4), var_type)
    buffer.write(data)
    expected = stored(var_type, data.astype(host_dtype(var_type)))
    result = buffer.read(0)
    assert result.dtype == host_dtype(var_type)
    np.testing.assert_array_equal(result, expected)
    if src.kind == "f" and var_type in (vd.float32, vd.float16):
        eps = float(np.finfo(host_dtype(var_type)).eps)
        np.testing.assert_allclose(result, data, rtol=eps, atol=6e-8)


@pytest.mark.parametrize("var_type", [vd.float32, vd.int32, vd.complex64, vd.vec2,
                                      vd.uint16, vd.uvec3],
                         ids=lambda t: t.name)
def test_buffer_write_python_list_converts_to_buffer_type(context, rng, var_type):
    shape = (4, 3)
    values = random_host_data(rng, shape, var_type)
    buffer = vd.Buffer(shape, var_type)
    buffer.write(values.tolist())
    np.testing.assert_array_equal(buffer.read(0), values.astype(host_dtype(var_type)))


def test_buffer_write_nonnegative_int64_array_into_uint32_buffer_converts(context, rng):
    data = rng.integers(0, 2**32, size=(13,), dtype=np.int64)
    buffer = vd.Buffer((13,), vd.uint32)
    buffer.write(data)
    np.testing.assert_array_equal(buffer.read(0), data.astype(np.uint32))


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview"])
@pytest.mark.parametrize("var_type,prefix_bytes", [(vd.float32, 8), (vd.int16, 7),
                                                   (vd.dvec3, 24 * 3 + 5), (vd.uint64, 1)],
                         ids=["float32", "int16", "dvec3", "uint64"])
def test_buffer_write_short_raw_bytes_writes_prefix_only(context, rng, kind, var_type,
                                                         prefix_bytes):
    shape = (11,)
    old = random_host_data(rng, shape, var_type)
    new = random_host_data(rng, shape, var_type)
    buffer = vd.Buffer(shape, var_type)
    buffer.write(old)
    raw = new.tobytes()[:prefix_bytes]
    buffer.write({"bytes": bytes, "bytearray": bytearray, "memoryview": memoryview}[kind](raw))
    result = buffer.read(0)
    assert result.shape == host_shape(shape, var_type)
    assert result.tobytes() == raw + old.tobytes()[prefix_bytes:]


def test_buffer_write_raw_bytes_of_full_size_replaces_everything(context, rng):
    data = random_host_data(rng, (5, 3), vd.uvec4)
    buffer = vd.Buffer((5, 3), vd.uvec4)
    buffer.write(random_host_data(rng, (5, 3), vd.uvec4))
    buffer.write(data.tobytes())
    np.testing.assert_array_equal(buffer.read(0), data)


# -- asbuffer, shorthands ------------------------------------------------------------------

NUMPY_TYPES = [np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
               np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("shape", [(6,), (4, 2), (2, 3, 4)], ids=str)
@pytest.mark.parametrize("np_type", NUMPY_TYPES, ids=lambda t: np.dtype(t).name)
def test_asbuffer_numpy_array_keeps_dtype_shape_and_values_as_scalar_buffer(context, rng, np_type,
                                                                            shape):
    data = random_array(rng, shape, np_type)
    buffer = vd.asbuffer(data)
    assert buffer.var_type is getattr(vd, np.dtype(np_type).name)
    assert not dt.is_vector(buffer.var_type) and not dt.is_matrix(buffer.var_type)
    assert buffer.shape == shape
    result = buffer.read(0)
    assert result.dtype == np.dtype(np_type)
    np.testing.assert_array_equal(result, data)


def test_asbuffer_list_and_strided_array_give_float64_and_c_order(context, rng):
    values = random_array(rng, (3, 4), np.float64)
    from_list = vd.asbuffer(values.tolist())
    assert from_list.var_type is vd.float64 and from_list.shape == (3, 4)
    np.testing.assert_array_equal(from_list.read(0), values)
    strided = random_array(rng, (8, 9), np.int32)[1::2, ::-3]
    from_view = vd.asbuffer(strided)
    assert from_view.var_type is vd.int32 and from_view.shape == strided.shape
    np.testing.assert_array_equal(from_view.read(0), np.ascontiguousarray(strided))


SHORTHANDS = {
    "u32": vd.uint32, "uv2": vd.uvec2, "uv3": vd.uvec3, "uv4": vd.uvec4,
    "i32": vd.int32, "iv2": vd.ivec2, "iv3": vd.ivec3, "iv4": vd.ivec4,
    "f32": vd.float32, "v2": vd.vec2, "v3": vd.vec3, "v4": vd.vec4, "c64": vd.complex64,
    "u16": vd.uint16, "uhv2": vd.uhvec2, "uhv3": vd.uhvec3, "uhv4": vd.uhvec4,
    "i16": vd.int16, "ihv2": vd.ihvec2, "ihv3": vd.ihvec3, "ihv4": vd.ihvec4,
    "f16": vd.float16, "hv2": vd.hvec2, "hv3": vd.hvec3, "hv4": vd.hvec4,
    "f64": vd.float64, "dv2": vd.dvec2, "dv3": vd.dvec3, "dv4": vd.dvec4,
}  # docs/api.rst, "Shorthand allocators"


@pytest.mark.parametrize("code", SHORTHANDS)
def test_buffer_shorthand_allocates_buffer_of_its_dtype(context, rng, code):
    allocate = getattr(vd, f"buffer_{code}")
    assert f"buffer_{code}" in vd.__all__
    var_type = SHORTHANDS[code]
    buffer = allocate((3, 5))
    assert isinstance(buffer, vd.Buffer)
    assert buffer.var_type is var_type and buffer.shape == (3, 5)
    data = random_host_data(rng, (3, 5), var_type)
    buffer.write(data)
    assert_read_equals(buffer.read(0), var_type, data, (3, 5))


# -- attributes ----------------------------------------------------------------------------

ATTRIBUTE_CASES = [(7, vd.float32), ((7,), vd.vec3), ((5, 3), vd.complex128),
                   ((2, 3, 5), vd.mat4), ((), vd.int16), (np.int64(4), vd.uhvec3)]


@pytest.mark.parametrize("shape,var_type", ATTRIBUTE_CASES,
                         ids=[f"{s}-{t.name}" for s, t in ATTRIBUTE_CASES])
def test_buffer_attributes_follow_shape_and_item_size(context, shape, var_type):
    buffer = vd.Buffer(shape, var_type)
    if isinstance(shape, (int, np.integer)):
        expected_shape = (int(shape),)
    else:
        expected_shape = tuple(shape) or (1,)  # an empty tuple behaves like one element
    size = math.prod(expected_shape)
    assert buffer.shape == expected_shape and type(buffer.shape[0]) is int
    assert buffer.var_type is var_type
    assert buffer.size == size
    assert buffer.mem_size == size * var_type.item_size
    assert buffer.shader_shape == expected_shape + (1,) * (3 - len(expected_shape)) + (size,)
    assert buffer.read(0).shape == host_shape(expected_shape, var_type)


# -- RFFTBuffer ----------------------------------------------------------------------------

RFFT_SHAPES = [(8,), (7,), (3, 6), (2, 3, 5)]


@pytest.mark.parametrize("real_shape", RFFT_SHAPES, ids=str)
@pytest.mark.parametrize("np_type,fourier", [(np.float32, vd.complex64),
                                             (np.float64, vd.complex128),
                                             (np.float16, vd.complex32)],
                         ids=["float32", "float64", "float16"])
def test_asrfftbuffer_real_data_reads_back_exactly(context, rng, real_shape, np_type, fourier):
    data = random_array(rng, real_shape, np_type)
    buffer = vd.asrfftbuffer(data)
    fourier_shape = real_shape[:-1] + (real_shape[-1] // 2 + 1,)
    assert isinstance(buffer, vd.RFFTBuffer)
    assert buffer.real_shape == real_shape and buffer.fourier_shape == fourier_shape
    assert buffer.shape == fourier_shape and buffer.var_type is fourier
    result = buffer.read_real(0)
    assert result.shape == real_shape and result.dtype == np.dtype(np_type)
    np.testing.assert_array_equal(result, data)
    stacked = buffer.read_real()
    assert stacked.shape == (context.queue_count,) + real_shape
    np.testing.assert_array_equal(stacked[0], data)


@pytest.mark.parametrize("real_shape", RFFT_SHAPES, ids=str)
def test_rfftbuffer_write_real_lays_rows_out_padded_in_fourier_view(context, rng, real_shape):
    data = random_array(rng, real_shape, np.float32)
    buffer = vd.RFFTBuffer(real_shape)
    assert buffer.var_type is vd.complex64
    buffer.write_real(data)
    padded = np.zeros(real_shape[:-1] + (2 * (real_shape[-1] // 2 + 1),), np.float32)
    padded[..., : real_shape[-1]] = data
    np.testing.assert_array_equal(buffer.read_fourier(0), padded.view(np.complex64))


@pytest.mark.parametrize("fourier", [vd.complex64, vd.complex128, vd.complex32],
                         ids=lambda t: t.name)
def test_rfftbuffer_write_fourier_read_fourier_roundtrips(context, rng, fourier):
    buffer = vd.RFFTBuffer((4, 9), fourier)
    assert buffer.fourier_shape == (4, 5) and buffer.var_type is fourier
    data = random_host_data(rng, (4, 5), fourier)
    buffer.write_fourier(data)
    assert_read_equals(buffer.read_fourier(0), fourier, data, (4, 5))


@pytest.mark.parametrize("np_type,fourier", [(np.int16, vd.complex32), (np.int32, vd.complex64),
                                             (np.int64, vd.complex128)],
                         ids=["int16", "int32", "int64"])
def test_asrfftbuffer_integer_data_uses_float_of_same_width(context, rng, np_type, fourier):
    data = rng.integers(-1000, 1000, size=(3, 10)).astype(np_type)
    buffer = vd.asrfftbuffer(data)
    assert buffer.var_type is fourier
    np.testing.assert_array_equal(buffer.read_real(0), data.astype(np.float64))
