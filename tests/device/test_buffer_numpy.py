"""numpy's protocols on buffers: ``np.asarray(buffer)`` and ``np.array(buffer, dtype=...)`` give
``read(0)``'s contents (they gave a 0-d object array holding the buffer), ``copy=False`` is
refused (device memory cannot be shared with numpy), and ``len(buffer)`` is the first axis."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd

pytestmark = pytest.mark.usefixtures("context")


@pytest.mark.parametrize("np_dtype, shape", [(np.float32, (7,)), (np.int32, (5, 3)),
                                             (np.complex64, (2, 3, 4)), (np.uint32, (9,))])
def test_asarray_and_array_give_the_contents(rng, np_dtype, shape):
    data = random_array(rng, shape, np_dtype)
    buffer = vd.asbuffer(data)
    for array in (np.asarray(buffer), np.array(buffer)):
        assert array.dtype == data.dtype and array.shape == data.shape
        np.testing.assert_array_equal(array, data)
    wide = np.asarray(buffer, dtype=np.complex128)
    assert wide.dtype == np.complex128
    np.testing.assert_array_equal(wide, data.astype(np.complex128))
    assert len(buffer) == shape[0]


def test_vector_buffers_have_their_components_as_trailing_axes(rng):
    data = random_array(rng, (6, 3), np.float32)
    buffer = vd.Buffer((6,), vd.vec3)
    buffer.write(data)
    np.testing.assert_array_equal(np.asarray(buffer), data)
    assert len(buffer) == 6


def test_the_contents_follow_work_on_the_device(rng):
    data = random_array(rng, (64,), np.complex64)
    buffer = vd.asbuffer(data)
    vd.fft.fft(buffer)
    np.testing.assert_allclose(np.asarray(buffer), np.fft.fft(data), rtol=1e-4, atol=1e-2)


def test_copy_false_is_refused_and_a_destroyed_buffer_named(rng):
    buffer = vd.asbuffer(random_array(rng, (4,), np.float32))
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(buffer, copy=False)
    assert np.array(buffer, copy=True).shape == (4,)
    buffer.destroy()
    with pytest.raises(ValueError, match="destroyed"):
        np.asarray(buffer)
