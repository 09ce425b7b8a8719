"""User errors of buffers: the right exception class, a message naming the argument and what
is allowed, and a context that still works afterwards (every case ends with a round trip)."""
from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd
from vkdispatch import errors
from vkdispatch.base import dtype as dt


def assert_context_usable(rng) -> None:
    """A fresh buffer still round-trips random data exactly."""
    data = random_array(rng, (33, 3), np.float32)
    buffer = vd.Buffer((33,), vd.vec3)
    buffer.write(data)
    np.testing.assert_array_equal(buffer.read(0), data)
    buffer.destroy()


def expect_error(rng, builtin, action, *fragments, vk_class=errors.VkDispatchError):
    """Runs ``action``; it must raise ``builtin`` (a vkdispatch error) whose message contains
    every fragment (at least one). Then the context must still be usable."""
    assert fragments, "name what the message must say"
    every_fragment = "(?s)" + "".join(f"(?=.*{re.escape(str(f))})" for f in fragments)
    with pytest.raises(builtin, match=every_fragment) as info:
        action()
    assert isinstance(info.value, vk_class), f"{type(info.value).__mro__} is not {vk_class}"
    assert_context_usable(rng)
    return info.value


# -- construction --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(1, 1, 1, 1), (2, 3, 4, 5, 6)], ids=str)
def test_buffer_shape_more_than_three_dims_raises_value_error(context, rng, shape):
    expect_error(rng, ValueError, lambda: vd.Buffer(shape, vd.float32),
                 "1, 2, or 3", str(len(shape)), vk_class=errors.InvalidArgumentError)


@pytest.mark.parametrize("shape", [(2**30 + 1,), (2**20, 2**20), (1024, 1024, 1025)], ids=str)
def test_buffer_more_than_2_30_elements_raises_value_error(context, rng, shape):
    count = int(np.prod(shape, dtype=np.int64))
    expect_error(rng, ValueError, lambda: vd.Buffer(shape, vd.uint16), "2^30", str(count),
                 vk_class=errors.InvalidArgumentError)


@pytest.mark.parametrize("shape,axis,value", [((0,), 0, 0), ((3, 0), 1, 0), ((-2,), 0, -2),
                                              ((4, 5, -1), 2, -1), (0, 0, 0)], ids=str)
def test_buffer_zero_or_negative_extent_raises_value_error(context, rng, shape, axis, value):
    expect_error(rng, ValueError, lambda: vd.Buffer(shape, vd.float32), f"shape[{axis}]",
                 "at least 1", str(value), vk_class=errors.InvalidArgumentError)


@pytest.mark.parametrize("shape,fragment", [((2.5,), "shape[0]"), ((3, "4"), "shape[1]"),
                                            ((True,), "shape[0]"), (None, "shape")], ids=str)
def test_buffer_non_integer_extent_raises_type_error(context, rng, shape, fragment):
    expect_error(rng, TypeError, lambda: vd.Buffer(shape, vd.float32), fragment, "int",
                 vk_class=errors.InvalidTypeError)


@pytest.mark.parametrize("var_type", [np.float32, "float32", 3, None, float, vd.dtype,
                                      dt._Scalar, dt._Vector], ids=repr)
def test_buffer_non_dtype_var_type_raises_type_error(context, rng, var_type):
    expect_error(rng, TypeError, lambda: vd.Buffer((4,), var_type), "var_type", "vd.float32",
                 vk_class=errors.InvalidTypeError)


# -- write ---------------------------------------------------------------------------------


@pytest.mark.parametrize("var_type,shape,data_shape,expected", [
    (vd.float32, (4, 3), (13,), 12), (vd.float32, (4, 3), (3, 3), 12),
    (vd.vec3, (4,), (4,), 12), (vd.complex64, (5,), (5, 2), 5), (vd.mat2, (2,), (2, 2), 8),
], ids=["f32-more", "f32-fewer", "vec3-scalars", "c64-pairs", "mat2"])
def test_buffer_write_wrong_value_count_raises_value_error_naming_both(context, rng, var_type,
                                                                       shape, data_shape, expected):
    buffer = vd.Buffer(shape, var_type)
    data = random_array(rng, data_shape, np.float32)
    expect_error(rng, ValueError, lambda: buffer.write(data), str(data.size), str(expected),
                 vk_class=errors.InvalidArgumentError)


@pytest.mark.parametrize("extra", [1, 4, 1000])
def test_buffer_write_bytes_longer_than_buffer_raises_value_error(context, rng, extra):
    buffer = vd.Buffer((6,), vd.int32)
    original = random_array(rng, (6,), np.int32)
    buffer.write(original)
    raw = random_array(rng, (24 + extra,), np.uint16).astype(np.uint8).tobytes()
    expect_error(rng, ValueError, lambda: buffer.write(raw), str(24 + extra), "24",
                 vk_class=errors.InvalidArgumentError)
    np.testing.assert_array_equal(buffer.read(0), original)  # nothing was written


@pytest.mark.parametrize("var_type,np_type", [(vd.float32, np.complex64), (vd.int32, np.complex128),
                                              (vd.vec2, np.complex64), (vd.float64, np.complex128)],
                         ids=["f32", "i32", "vec2", "f64"])
def test_buffer_write_complex_into_real_buffer_raises_type_error(context, rng, var_type, np_type):
    buffer = vd.Buffer((6,), var_type)
    data = random_array(rng, (6,) + var_type.true_numpy_shape, np_type)
    expect_error(rng, TypeError, lambda: buffer.write(data), "complex", var_type.name,
                 vk_class=errors.InvalidTypeError)


@pytest.mark.parametrize("var_type,np_type", [(vd.int32, np.float32), (vd.uint16, np.float64),
                                              (vd.int64, np.float16), (vd.ivec4, np.float32)],
                         ids=["i32-f32", "u16-f64", "i64-f16", "ivec4-f32"])
def test_buffer_write_float_into_integer_buffer_raises_type_error(context, rng, var_type, np_type):
    buffer = vd.Buffer((6,), var_type)
    data = random_array(rng, (6,) + var_type.true_numpy_shape, np_type)
    expect_error(rng, TypeError, lambda: buffer.write(data), np.dtype(np_type).name, var_type.name,
                 vk_class=errors.InvalidTypeError)


@pytest.mark.parametrize("data,fragments", [
    (np.array([1.5, "a", None, 3], dtype=object), ["object data", "float32 buffer"]),
    (np.array([1.0, 2.0, 3.0, 4.0], dtype=object), ["object data", "float32 buffer"]),
    (np.array(["a", "b", "c", "d"]), ["<U1 data", "float32 buffer"]),
    ([[1.0, 2.0], [3.0]], ["data: unsupported bytes-like object (list)"]),
], ids=["object-mixed", "object-floats", "strings", "ragged-list"])
def test_buffer_write_non_numeric_data_raises_type_error(context, rng, data, fragments):
    buffer = vd.Buffer((4,), vd.float32)
    expect_error(rng, TypeError, lambda: buffer.write(data), *fragments,
                 vk_class=errors.InvalidTypeError)


def test_buffer_write_non_contiguous_memoryview_writes_or_raises_vkdispatch_error(context, rng):
    data = random_array(rng, (8,), np.float32)
    buffer = vd.Buffer((4,), vd.float32)
    try:
        buffer.write(memoryview(data[::2]))
    except errors.VkDispatchError:
        pass
    else:
        np.testing.assert_array_equal(buffer.read(0), data[::2])
    assert_context_usable(rng)


# -- replica indices -----------------------------------------------------------------------


@pytest.mark.parametrize("operation", ["read", "write"])
@pytest.mark.parametrize("where", ["count", "count+5", "minus-one"])
def test_buffer_replica_index_out_of_range_raises_index_error(context, rng, operation, where):
    count = context.queue_count
    index = {"count": count, "count+5": count + 5, "minus-one": -1}[where]
    buffer = vd.Buffer((5,), vd.float32)
    data = random_array(rng, (5,), np.float32)

    def call():
        return buffer.read(index) if operation == "read" else buffer.write(data, index)

    error = expect_error(rng, IndexError, call, "index", str(index), str(context.queue_count - 1),
                         vk_class=errors.IndexOutOfRangeError)
    assert isinstance(error, ValueError)  # what vkdispatch 0.1.0 raised


@pytest.mark.parametrize("operation", ["read", "write"])
@pytest.mark.parametrize("index", [0.0, "0", True, [0]], ids=repr)
def test_buffer_non_integer_replica_index_raises_value_error(context, rng, operation, index):
    buffer = vd.Buffer((5,), vd.float32)
    data = random_array(rng, (5,), np.float32)

    def call():
        return buffer.read(index) if operation == "read" else buffer.write(data, index)

    expect_error(rng, ValueError, call, "index", "integer", vk_class=errors.InvalidArgumentError)


@pytest.mark.parametrize("index_type", [np.int64, np.int32, np.uint8])
def test_buffer_numpy_integer_replica_index_reads_and_writes(context, rng, index_type):
    """Indices computed with numpy (np.int64 from np.argmax, ...) used to be refused."""
    buffer = vd.Buffer((5,), vd.float32)
    last = context.queue_count - 1
    data = random_array(rng, (5,), np.float32)
    buffer.write(data, index_type(last))
    np.testing.assert_array_equal(buffer.read(index_type(last)), data)


# -- asbuffer ------------------------------------------------------------------------------

UNSUPPORTED = {"bool": np.array([True, False, True]), "int8": np.arange(-3, 3, dtype=np.int8),
               "uint8": np.arange(6, dtype=np.uint8), "str": np.array(["x", "y"]),
               "object": np.array([1.0, None], dtype=object)}


@pytest.mark.parametrize("name", UNSUPPORTED)
def test_asbuffer_unsupported_numpy_dtype_raises_value_error(context, rng, name):
    array = UNSUPPORTED[name]
    expect_error(rng, ValueError, lambda: vd.asbuffer(array), str(array.dtype), "float32",
                 vk_class=errors.InvalidArgumentError)


def test_asbuffer_more_than_three_dims_raises_value_error(context, rng):
    array = random_array(rng, (2, 2, 2, 2), np.float32)
    expect_error(rng, ValueError, lambda: vd.asbuffer(array), "1, 2, or 3", "4",
                 vk_class=errors.InvalidArgumentError)


@pytest.mark.parametrize("value", [3.5, None, {"a": 1}, object()], ids=lambda v: type(v).__name__)
def test_asbuffer_non_array_raises_type_error(context, rng, value):
    expect_error(rng, TypeError, lambda: vd.asbuffer(value), "array-like", type(value).__name__,
                 vk_class=errors.InvalidTypeError)


def test_asbuffer_ragged_list_raises_vkdispatch_error(context, rng):
    with pytest.raises((TypeError, ValueError),
                       match=r"^array: cannot convert to a numpy array \(") as caught:
        vd.asbuffer([[1.0, 2.0], [3.0]])
    assert isinstance(caught.value, errors.VkDispatchError)
    assert_context_usable(rng)


# -- RFFTBuffer ----------------------------------------------------------------------------


@pytest.mark.parametrize("fourier_type", [vd.float32, vd.vec2, np.complex64], ids=repr)
def test_rfftbuffer_non_complex_fourier_type_raises_value_error(context, rng, fourier_type):
    expect_error(rng, ValueError, lambda: vd.RFFTBuffer((8,), fourier_type), "fourier_type",
                 "complex", vk_class=errors.InvalidArgumentError)


def test_rfftbuffer_write_real_wrong_shape_or_complex_raises(context, rng):
    buffer = vd.RFFTBuffer((3, 5))
    wrong = random_array(rng, (3, 6), np.float32)
    expect_error(rng, ValueError, lambda: buffer.write_real(wrong), "(3, 6)", "(3, 5)",
                 vk_class=errors.InvalidArgumentError)
    complex_data = random_array(rng, (3, 5), np.complex64)
    expect_error(rng, TypeError, lambda: buffer.write_real(complex_data), "complex64",
                 vk_class=errors.InvalidTypeError)
    expect_error(rng, TypeError, lambda: vd.asrfftbuffer(complex_data), "complex64",
                 vk_class=errors.InvalidTypeError)


# -- destroyed buffers ---------------------------------------------------------------------

USES = {
    "read(0)": lambda b, d: b.read(0), "read()": lambda b, d: b.read(),
    "write": lambda b, d: b.write(d), "write(index=0)": lambda b, d: b.write(d, 0),
    "write(bytes)": lambda b, d: b.write(d.tobytes()),
}


@pytest.mark.parametrize("use", USES)
def test_buffer_use_after_destroy_raises_value_error(context, rng, use):
    data = random_array(rng, (7,), np.float32)
    buffer = vd.Buffer((7,), vd.float32)
    buffer.write(data)
    buffer.destroy()
    assert buffer.destroyed
    expect_error(rng, ValueError, lambda: USES[use](buffer, data), "destroyed",
                 vk_class=errors.InvalidArgumentError)


# -- the exception classes -----------------------------------------------------------------

HIERARCHY = [
    ("InvalidArgumentError", (ValueError,)), ("InvalidTypeError", (TypeError,)),
    ("InvalidStateError", (RuntimeError,)),
    ("IndexOutOfRangeError", (IndexError, ValueError)), ("NativeError", (RuntimeError,)),
    ("VulkanError", (errors.NativeError, RuntimeError)),
    ("OutOfDeviceMemoryError", (errors.VulkanError, MemoryError)),
    ("DeviceLostError", (errors.VulkanError,)), ("ValidationError", (errors.NativeError,)),
    ("DummyBackendError", (errors.NativeError, RuntimeError)),
    ("BackendUnavailableError", (ImportError,)), ("ShaderBuildError", (RuntimeError,)),
    ("VulkanUnavailableError", (errors.BackendUnavailableError, errors.NativeError, RuntimeError)),
]


@pytest.mark.parametrize("name,bases", HIERARCHY, ids=[h[0] for h in HIERARCHY])
def test_errors_class_subclasses_vkdispatch_error_and_builtin(name, bases):
    cls = getattr(errors, name)
    assert name in errors.__all__
    assert issubclass(cls, errors.VkDispatchError)
    for base in bases:
        assert issubclass(cls, base)


def test_errors_public_names_are_those_of_vkdispatch_errors():
    assert vd.BackendUnavailableError is errors.BackendUnavailableError
    assert vd.ShaderBuildError is errors.ShaderBuildError
    error = errors.BackendUnavailableError("cuda", "no driver")
    assert error.backend_name == "cuda" and "cuda" in str(error) and "no driver" in str(error)


@pytest.mark.parametrize("values", [[-1, 2, 3], [0, 1, 2**32]], ids=["negative", "too-large"])
def test_buffer_write_integers_outside_uint32_range_raise_value_error(context, rng, values):
    buffer = vd.Buffer((3,), vd.uint32)
    with pytest.raises(ValueError, match=r"outside the range of the uint32 buffer"):
        buffer.write(np.array(values, dtype=np.int64))
    assert_context_usable(rng)
