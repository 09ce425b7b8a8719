"""kp.Tensor against numpy: conversions, data types, memory types, host views and lifetime."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import random_array
from kp_programs import shader

import kp

# Tensor types of tensor_t: numpy dtype -> kp data type.
TENSOR_T_TYPES = {np.float32: kp.float, np.int32: kp.int, np.uint32: kp.uint,
                  np.float64: kp.double, np.bool_: kp.bool, np.float16: kp.float16}


def device_round_trip(mgr, tensor):
    """Uploads the host view, clobbers it, and downloads it again from the device."""
    mgr.sequence().eval(kp.OpSyncDevice([tensor]))
    view = tensor.data()
    view[:] = np.zeros_like(view)
    mgr.sequence().eval(kp.OpSyncLocal([tensor]))
    return tensor.data()


@pytest.mark.parametrize("data", [
    [1, 2, 3], 5.0, [[1.5, 2], [3, 4]], np.arange(6, dtype=np.int64).reshape(2, 3),
    np.asfortranarray(np.arange(6.0).reshape(2, 3)), np.array([True, False]),
])
def test_tensor_converts_anything_numeric_to_float32_in_c_order(mgr, data):
    tensor = mgr.tensor(data)
    expected = np.ravel(np.asarray(data, dtype=np.float32), order="C")
    assert tensor.data_type() is kp.float and tensor.data().dtype == np.float32
    np.testing.assert_array_equal(tensor.data(), expected)
    assert tensor.size() == len(tensor) == expected.size


def test_tensor_copies_the_callers_array(mgr, rng):
    data = random_array(rng, 16, np.float32)
    tensor = mgr.tensor(data)
    data[:] = 0
    assert np.any(tensor.data() != 0)


@pytest.mark.parametrize("np_type", list(TENSOR_T_TYPES))
def test_tensor_t_keeps_the_dtype_through_the_device(mgr, rng, np_type):
    data = (rng.integers(0, 2, 257).astype(bool) if np_type is np.bool_
            else random_array(rng, 257, np_type))
    tensor = mgr.tensor_t(data)
    assert tensor.data_type() is TENSOR_T_TYPES[np_type]
    np.testing.assert_array_equal(device_round_trip(mgr, tensor), data)
    assert tensor.data().dtype == np.dtype(np_type)


def test_tensor_t_flattens_non_contiguous_input(mgr):
    data = np.arange(20, dtype=np.int32).reshape(4, 5)[:, ::2]
    np.testing.assert_array_equal(mgr.tensor_t(data).data(), data.ravel())


@pytest.mark.parametrize("np_type", [np.int64, np.uint16, np.int16, np.uint8, np.complex64])
def test_tensor_t_refuses_other_dtypes(mgr, np_type):
    with pytest.raises(RuntimeError, match="Kompute Python no valid dtype supported.*"
                       + np.dtype(np_type).name):
        mgr.tensor_t(np.ones(3, np_type))


def test_tensor_t_takes_only_arrays_and_tensor_only_numbers(mgr):
    with pytest.raises(TypeError, match=r"data must be a numpy.ndarray .*got list"):
        mgr.tensor_t([1, 2, 3])
    with pytest.raises(TypeError, match="data must be numbers"):
        mgr.tensor([object()])


@pytest.mark.parametrize("make", [lambda m: m.tensor([]), lambda m: m.tensor_t(np.ones(0, "f4"))])
def test_zero_sized_tensors_are_refused(mgr, make):
    with pytest.raises(RuntimeError, match="zero-sized memory object"):
        make(mgr)


def test_data_is_a_writable_view_owned_by_the_tensor(mgr, rng):
    tensor = mgr.tensor(random_array(rng, 8, np.float32))
    first, second = tensor.data(), tensor.data()
    assert first.base is tensor and not first.flags.owndata and first.flags.writeable
    assert first is not second
    assert first.__array_interface__["data"][0] == second.__array_interface__["data"][0]
    first[3] = 42.0
    assert second[3] == 42.0


def test_a_view_keeps_its_tensor_alive(mgr, rng):
    values = random_array(rng, 8, np.float32)
    tensor = mgr.tensor(values)
    view = tensor.data()
    del tensor
    assert view.base.is_init()
    np.testing.assert_array_equal(view, values)


def test_a_view_stays_readable_after_destroy(mgr, rng):
    values = random_array(rng, 64, np.float32)
    tensor = mgr.tensor(values)
    view = tensor.data()
    tensor.destroy()
    assert not tensor.is_init() and tensor.size() == 0
    np.testing.assert_array_equal(view, values)  # Kompute reads unmapped memory here
    with pytest.raises(RuntimeError, match="destroyed"):
        tensor.data()
    tensor.destroy()  # a second destroy does nothing


ADD_ONE = "b[i] = a[i] + 1.0;"


@pytest.mark.parametrize("memory_type", [kp.host, kp.deviceAndHost])
def test_host_visible_tensors_need_no_sync(mgr, rng, memory_type):
    values = random_array(rng, 100, np.float32)
    a = mgr.tensor(values, memory_type=memory_type)
    b = mgr.tensor(np.zeros(100), memory_type)
    assert a.memory_type() is memory_type
    mgr.sequence().eval(kp.OpAlgoDispatch(mgr.algorithm([a, b], shader(ADD_ONE, "float a",
                                                                        "float b"))))
    np.testing.assert_allclose(b.data(), values + 1)


def test_device_tensors_move_only_with_the_sync_operations(mgr, rng):
    values = random_array(rng, 100, np.float32)
    a, b = mgr.tensor(values), mgr.tensor(np.zeros(100))
    algorithm = mgr.algorithm([a, b], shader(ADD_ONE, "float a", "float b"))
    mgr.sequence().eval(kp.OpSyncDevice([a]))
    a.data()[:] = -1.0  # a host write after the upload is not seen by the GPU
    mgr.sequence().eval(kp.OpAlgoDispatch(algorithm))
    np.testing.assert_array_equal(b.data(), 0)  # and the result is not seen on the host...
    mgr.sequence().eval(kp.OpSyncLocal([b]))
    np.testing.assert_allclose(b.data(), values + 1)  # ...until it is synced


def test_storage_tensors_have_no_host_view_but_hold_data(mgr, rng):
    values = random_array(rng, 50, np.float32)
    a, s, b = mgr.tensor(values), mgr.tensor(np.zeros(50), kp.storage), mgr.tensor(np.zeros(50))
    with pytest.raises(RuntimeError, match="eStorage has no host view"):
        s.data()
    sequence = mgr.sequence().record(kp.OpSyncDevice([a, s])).record(kp.OpCopy([a, s]))
    sequence.record(kp.OpCopy([s, b])).record(kp.OpSyncLocal([b])).eval()
    np.testing.assert_array_equal(b.data(), values)


def test_old_tensor_type_names(mgr):
    tensor = mgr.tensor([1, 2], tensor_type=kp.TensorTypes.host)
    assert tensor.tensor_type() is kp.host
    assert mgr.tensor_t(np.ones(2, np.int32), tensor_type=kp.storage).memory_type() is kp.storage
    with pytest.raises(TypeError, match="not both"):
        mgr.tensor([1], memory_type=kp.host, tensor_type=kp.host)


def test_memory_type_must_be_a_member(mgr):
    with pytest.raises(TypeError, match="memory_type must be a kp.MemoryTypes member.*int 1"):
        mgr.tensor([1, 2], 1)


def test_a_temporary_managers_tensor_is_destroyed_with_it():
    try:
        tensor = kp.Manager().tensor([1, 2, 3])
    except RuntimeError as error:
        pytest.skip(f"no Vulkan device: {error}")
    assert not tensor.is_init() and tensor.size() == 0
