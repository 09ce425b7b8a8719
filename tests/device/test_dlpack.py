"""DLPack: buffers whose memory the host can map (lavapipe, integrated GPUs) export CPU views of
replica 0 that numpy (and torch, where installed) consume without a copy, after the work
submitted on them; views keep the memory alive past ``destroy()``; ``vd.from_dlpack`` and
``vd.asbuffer`` import any DLPack producer of host memory; refusals name the reason. On an
NVIDIA GPU with torch: CUDA views, ordered both ways with the consumer's stream on the GPU.
"""
from __future__ import annotations

import gc
import os

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd
from vkdispatch.base import dlpack
from vkdispatch.base.context import get_context

pytestmark = pytest.mark.usefixtures("context")


def live_buffers() -> int:
    gc.collect()
    return get_context()._module.live_buffer_count()


def host_visible(buffer) -> vd.Buffer:
    if buffer.__dlpack_device__() != (dlpack.KDL_CPU, 0):
        pytest.skip("this device keeps buffers in device-local memory (no CPU view)")
    return buffer


@pytest.mark.parametrize("np_dtype, shape", [(np.float32, (7,)), (np.int32, (5, 3)),
                                             (np.complex64, (2, 3, 4)), (np.uint32, (9,))])
def test_numpy_views_the_contents(rng, np_dtype, shape):
    data = random_array(rng, shape, np_dtype)
    buffer = host_visible(vd.asbuffer(data))
    view = np.from_dlpack(buffer)
    assert view.dtype == data.dtype and view.shape == data.shape and view.flags.writeable
    np.testing.assert_array_equal(view, data)


def test_vector_elements_are_trailing_axes(rng):
    data = random_array(rng, (6, 4), np.float32)
    buffer = host_visible(vd.Buffer((6,), vd.vec4))
    buffer.write(data)
    np.testing.assert_array_equal(np.from_dlpack(buffer), data)


def test_the_view_is_the_buffers_memory_both_ways(rng, affine):
    data = random_array(rng, (256,), np.float32)
    buffer = host_visible(vd.asbuffer(data))
    affine(buffer, 3.0, 1.0)  # submitted, not waited for: the export waits for it
    view = np.from_dlpack(buffer)
    np.testing.assert_allclose(view, data * 3 + 1, rtol=1e-6)
    view[:] = data  # host writes are seen by later GPU work, with no copy in between
    affine(buffer, 2.0, -1.0)
    np.testing.assert_allclose(buffer.read(0), data * 2 - 1, rtol=1e-6)


def test_a_view_keeps_the_memory_after_destroy(rng):
    data = random_array(rng, (1000,), np.float32)
    before = live_buffers()
    buffer = host_visible(vd.asbuffer(data))
    view = np.from_dlpack(buffer)
    buffer.destroy()
    with pytest.raises(ValueError, match="this buffer was destroyed"):
        np.from_dlpack(buffer)
    again = vd.asbuffer(random_array(rng, (1000,), np.float32))  # may not reuse the memory
    np.testing.assert_array_equal(view, data)
    assert live_buffers() == before + 2
    del view
    assert live_buffers() == before + 1
    again.destroy()
    assert live_buffers() == before


def test_a_capsule_nobody_consumed_releases_the_buffer(rng):
    before = live_buffers()
    buffer = host_visible(vd.asbuffer(random_array(rng, (64,), np.float32)))
    unversioned, versioned = buffer.__dlpack__(), buffer.__dlpack__(max_version=(1, 0))
    assert '"dltensor"' in repr(unversioned) and '"dltensor_versioned"' in repr(versioned)
    buffer.destroy()
    assert live_buffers() == before + 1
    del unversioned, versioned
    assert live_buffers() == before


def test_copy_true_exports_a_copy(rng):
    data = random_array(rng, (32,), np.float32)
    buffer = vd.asbuffer(data)
    copied = np.from_dlpack(buffer, copy=True)
    copied[:] = 0
    np.testing.assert_array_equal(buffer.read(0), data)


def test_refusals_name_the_argument(rng):
    buffer = host_visible(vd.asbuffer(random_array(rng, (8,), np.float32)))
    with pytest.raises(BufferError, match="stream: a CPU view takes no stream.*got 5"):
        buffer.__dlpack__(stream=5)
    with pytest.raises(BufferError, match=r"dl_device: .* on CPU 0, got CUDA 1"):
        buffer.__dlpack__(dl_device=(dlpack.KDL_CUDA, 1), copy=False)


def test_device_local_memory_is_refused_with_the_reason(rng, monkeypatch):
    buffer = vd.asbuffer(random_array(rng, (8,), np.float32))
    monkeypatch.setattr(dlpack, "dlpack_device", lambda b: (dlpack.KDL_VULKAN, 0))
    with pytest.raises(BufferError, match="needs host-visible memory.*copy=True"):
        buffer.__dlpack__()
    np.testing.assert_array_equal(np.from_dlpack(buffer, copy=True), buffer.read(0))


def test_torch_views_the_contents_where_installed(rng):
    torch = pytest.importorskip("torch")
    data = random_array(rng, (3, 5), np.float32)
    buffer = host_visible(vd.asbuffer(data))
    tensor = torch.from_dlpack(buffer)
    assert tensor.device.type == "cpu"
    tensor.mul_(2)
    np.testing.assert_array_equal(buffer.read(0), data * 2)


# -- import -----------------------------------------------------------------------------------

class Producer:
    """A DLPack producer and nothing else (no __array__)."""

    def __init__(self, array, device=(dlpack.KDL_CPU, 0)):
        self.array, self.device = array, device
        self.shape, self.dtype = array.shape, array.dtype

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.device


def test_from_dlpack_and_asbuffer_import_host_producers(rng):
    data = random_array(rng, (4, 6), np.int32)
    for made in (vd.from_dlpack(data), vd.from_dlpack(Producer(data)),
                 vd.asbuffer(Producer(data))):
        assert made.var_type is vd.int32 and made.shape == data.shape
        np.testing.assert_array_equal(made.read(0), data)


def test_from_dlpack_of_a_buffer(rng):
    buffer = vd.asbuffer(random_array(rng, (16,), np.float32))
    assert vd.from_dlpack(buffer) is buffer
    copied = vd.from_dlpack(buffer, copy=True)
    assert copied is not buffer
    np.testing.assert_array_equal(copied.read(0), buffer.read(0))


def test_from_dlpack_of_an_exported_view_is_the_buffer_itself(rng):
    data = random_array(rng, (6, 5), np.float32)
    buffer = host_visible(vd.asbuffer(data))
    view = np.from_dlpack(buffer)
    assert vd.from_dlpack(view) is buffer  # the same memory: no copy
    part = vd.from_dlpack(view[1:])  # other memory or shape: a copy
    np.testing.assert_array_equal(part.read(0), data[1:])
    flat = vd.from_dlpack(view.reshape(-1))
    assert flat is not buffer and flat.shape == (30,)
    np.testing.assert_array_equal(flat.read(0), data.reshape(-1))
    copied = vd.from_dlpack(view, copy=True)
    assert copied is not buffer
    np.testing.assert_array_equal(copied.read(0), data)
    buffer.destroy()  # its memory lives on in the view, but the buffer is gone: a copy
    again = vd.from_dlpack(view)
    assert again is not buffer
    np.testing.assert_array_equal(again.read(0), data)


def test_asbuffer_of_cuda_arrays(rng):
    """CUDA arrays that speak DLPack take vd.from_dlpack's device copy; others (only
    __cuda_array_interface__) are refused as before, naming the host copy to make."""
    class CudaArray:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0, False),
                                    "version": 3}

    with pytest.raises(vd.errors.InvalidStateError, match="array.get"):
        vd.asbuffer(CudaArray())
    cuda = Producer(random_array(rng, (4,), np.float32), device=(dlpack.KDL_CUDA, 99))
    cuda.__cuda_array_interface__ = CudaArray.__cuda_array_interface__
    with pytest.raises(BufferError, match="x lives on CUDA 99"):
        vd.asbuffer(cuda)


def test_from_dlpack_refusals(rng):
    with pytest.raises(TypeError, match="x: expected an object with __dlpack__"):
        vd.from_dlpack([1, 2, 3])
    cuda = Producer(random_array(rng, (4,), np.float32), device=(dlpack.KDL_CUDA, 99))
    before = live_buffers()
    with pytest.raises(BufferError, match=r"x lives on CUDA 99, and this context's GPU is .*"
                                          r"x.cpu\(\)"):
        vd.from_dlpack(cuda)
    assert live_buffers() == before  # the buffer made for the copy is gone


# -- CUDA views (an NVIDIA GPU with torch's CUDA build) ---------------------------------------

def cuda_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device here")
    return torch


def cuda_buffer(rng, shape, np_dtype=np.float32):
    data = random_array(rng, shape, np_dtype)
    buffer = vd.asbuffer(data)
    if buffer.__dlpack_device__()[0] != dlpack.KDL_CUDA:
        pytest.skip(f"no CUDA view of this device's buffers: {dlpack._cuda_device(buffer)[1]}")
    return buffer, data


@pytest.mark.parametrize("np_dtype", [np.float32, np.complex64, np.int32])
def test_torch_cuda_views_the_buffer_both_ways(rng, affine, np_dtype):
    torch = cuda_torch()
    buffer, data = cuda_buffer(rng, (64, 33), np_dtype)
    tensor = torch.from_dlpack(buffer)
    assert tensor.is_cuda and tuple(tensor.shape) == data.shape
    np.testing.assert_array_equal(tensor.cpu().numpy(), data)
    tensor.mul_(3)
    torch.cuda.synchronize()  # CUDA work on the view completes before vkdispatch uses it
    np.testing.assert_array_equal(buffer.read(0), data * 3)


def test_a_cuda_view_sees_earlier_vkdispatch_work_and_outlives_destroy(rng, affine):
    torch = cuda_torch()
    buffer, data = cuda_buffer(rng, (1 << 16,))
    affine(buffer, 2.0, 1.0)  # not waited for: the export waits
    tensor = torch.from_dlpack(buffer)
    expected = data * 2 + 1
    np.testing.assert_allclose(tensor.cpu().numpy(), expected, rtol=1e-6)
    before = live_buffers()
    buffer.destroy()
    assert live_buffers() == before
    np.testing.assert_allclose(tensor.cpu().numpy(), expected, rtol=1e-6)
    del tensor
    assert live_buffers() == before - 1


def stream_ordered_torch():
    """torch, where CUDA views are ordered with streams on the GPU: not in debug mode, where
    the validation layer, blind to CUDA's signals, would report every ordered submission."""
    torch = cuda_torch()
    if os.environ.get("VKDISPATCH_DEBUG", "") not in ("", "0"):
        pytest.skip("in debug mode CUDA views wait on the host and are not ordered after CUDA")
    return torch


def test_cuda_stream_work_on_a_view_comes_before_later_vkdispatch_work(rng):
    """No synchronize: the read waits on the GPU for the stream's work (a 25 ms spin, then the
    multiply), which the stream was given when the view was made."""
    torch = stream_ordered_torch()
    buffer, data = cuda_buffer(rng, (1 << 20,))
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # torch.from_dlpack passes the current stream
        tensor = torch.from_dlpack(buffer)
        torch.cuda._sleep(50_000_000)
        tensor.mul_(3)
    np.testing.assert_array_equal(buffer.read(0), data * 3)
    with torch.cuda.stream(side):  # the same once the view is gone: its last hand-over
        tensor.mul_(2)
        torch.cuda._sleep(50_000_000)
        tensor.add_(1)
    del tensor
    np.testing.assert_array_equal(buffer.read(0), data * 6 + 1)


def test_a_cuda_view_waits_for_vkdispatch_work_on_the_gpu_not_the_host(rng, affine):
    torch = stream_ordered_torch()
    buffer, data = cuda_buffer(rng, (1 << 24,))
    for _ in range(300):  # milliseconds of GPU work, queued in less host time
        affine(buffer, 1.0, 1.0)
    tensor = torch.from_dlpack(buffer)
    still_running = not get_context().finishes_within(0)
    np.testing.assert_allclose(tensor.cpu().numpy(), data + 300, rtol=1e-6)
    assert still_running, "the export waited on the host for vkdispatch's work"


def test_vkdispatch_and_a_cuda_stream_take_turns_without_synchronizing(rng, affine):
    torch = stream_ordered_torch()
    buffer, data = cuda_buffer(rng, (1 << 20,))
    expected = data.astype(np.float64)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        for _ in range(10):
            affine(buffer, 1.0, 1.0)
            view = torch.from_dlpack(buffer)  # CUDA's turn: after the affine, on the GPU
            torch.cuda._sleep(2_000_000)
            view.mul_(0.5)  # the next affine waits for this on the GPU
            expected = (expected + 1) * 0.5
    np.testing.assert_allclose(buffer.read(0), expected, rtol=1e-6)


def test_stream_minus_one_asks_for_no_ordering_and_bad_streams_are_refused(rng):
    cuda_torch()
    buffer, data = cuda_buffer(rng, (100,))
    with pytest.raises(BufferError, match="stream"):
        buffer.__dlpack__(stream="default")
    cupy = pytest.importorskip("cupy")
    view = cupy.from_dlpack(buffer.__dlpack__(stream=-1))
    np.testing.assert_array_equal(cupy.asnumpy(view), data)


def test_cupy_views_the_buffer(rng):
    cuda_torch()
    cupy = pytest.importorskip("cupy")
    buffer, data = cuda_buffer(rng, (100,))
    np.testing.assert_array_equal(cupy.asnumpy(cupy.from_dlpack(buffer)), data)


@pytest.mark.parametrize("np_dtype", [np.float32, np.complex64])
def test_from_dlpack_copies_cuda_tensors_on_the_device(rng, np_dtype):
    torch = cuda_torch()
    cuda_buffer(rng, (1,))  # skips where the context's buffers have no CUDA view
    data = random_array(rng, (37, 129), np_dtype)
    tensor = torch.from_numpy(data).cuda()
    made = vd.from_dlpack(tensor)
    assert made.shape == data.shape
    np.testing.assert_array_equal(made.read(0), data)
    np.testing.assert_array_equal(vd.asbuffer(tensor).read(0), data)  # the same device copy
    with pytest.raises(BufferError, match="not contiguous"):
        vd.from_dlpack(tensor.t())
    assert vd.from_dlpack(torch.from_dlpack(made)) is made  # its own view: no copy


# -- One CUDA import per memory block, shared by the views of every buffer in it ---------------

def test_small_buffers_of_one_block_each_view_their_own_range(rng):
    torch = cuda_torch()
    cuda_buffer(rng, (1,))  # skips where the context's buffers have no CUDA view
    sizes = [257 + 61 * i for i in range(48)]  # float32s: all placed in shared blocks
    datas = [random_array(rng, (n,), np.float32) for n in sizes]
    buffers = [vd.asbuffer(d) for d in datas]
    views = [torch.from_dlpack(b) for b in buffers]
    for i, (view, data) in enumerate(zip(views, datas)):
        np.testing.assert_array_equal(view.cpu().numpy(), data, err_msg=f"buffer {i}")
        view.mul_(i + 2)  # through CUDA: a view mapped at another buffer's offset shows here
    torch.cuda.synchronize()
    for i, (buffer, data) in enumerate(zip(buffers, datas)):
        np.testing.assert_array_equal(buffer.read(0), data * (i + 2), err_msg=f"buffer {i}")
    for i in range(0, len(buffers), 2):  # holes in the blocks, filled by new buffers
        views[i] = None
        buffers[i].destroy()
    for i in range(0, len(buffers), 2):
        datas[i] = random_array(rng, (sizes[i],), np.float32)
        buffers[i] = vd.asbuffer(datas[i])
    for i in range(len(buffers)):
        view = torch.from_dlpack(buffers[i])
        expected = datas[i] if i % 2 == 0 else datas[i] * (i + 2)
        np.testing.assert_array_equal(view.cpu().numpy(), expected, err_msg=f"buffer {i}")


def test_a_kept_allocation_viewed_again_shows_its_new_buffer(rng):
    torch = cuda_torch()
    cuda_buffer(rng, (1,))
    n = 1 << 19  # 2 MiB: an allocation of its own, kept when dropped
    first = vd.asbuffer(random_array(rng, (n,), np.float32))
    torch.from_dlpack(first).add_(1)  # imports the allocation into CUDA
    torch.cuda.synchronize()
    first.destroy()
    _, reuses = get_context().kept_memory(0)
    data = random_array(rng, (n,), np.float32)
    second = vd.asbuffer(data)
    assert get_context().kept_memory(0)[1] > reuses, "the dropped allocation was not reused"
    view = torch.from_dlpack(second)
    np.testing.assert_array_equal(view.cpu().numpy(), data)
    view.mul_(-3)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(second.read(0), data * -3)


@pytest.mark.parametrize("n", [1024, 1 << 21])  # 4 KiB in a block; 8 MiB of its own
def test_repeated_imports_of_cuda_tensors_stay_right(rng, n):
    torch = cuda_torch()
    cuda_buffer(rng, (1,))
    for round_ in range(5):
        data = random_array(rng, (n,), np.float32)
        made = vd.from_dlpack(torch.from_numpy(data).cuda())
        np.testing.assert_array_equal(made.read(0), data, err_msg=f"round {round_}")
        made.destroy()
    vd.empty_cache()
    assert get_context().kept_memory(0)[0] == 0
