"""vd.Image round trips against numpy: every dtype and channel count, 1-3-D shapes (square and
not), layered 2-D arrays, numpy's axis order, and the errors of bad shapes and data."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd

DTYPES = {vd.float32: np.float32, vd.int32: np.int32, vd.uint32: np.uint32}


def make(factory, *args, **kwargs):
    """The image, or a skip when the device cannot sample its format (3-channel ones may not)."""
    try:
        return factory(*args, **kwargs)
    except vd.errors.InvalidArgumentError as error:
        if "cannot make images of" in str(error):
            pytest.skip(str(error))
        raise


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("factory, shape", [
    (vd.Image1D, 37), (vd.Image2D, (8, 8)), (vd.Image2D, (5, 9)), (vd.Image3D, (3, 4, 6)),
])
def test_round_trip(context, rng, dtype, channels, factory, shape):
    image = make(factory, shape, dtype, channels)
    data = random_array(rng, image.array_shape, DTYPES[dtype])
    image.write(data)
    back = image.read(0)
    assert back.shape == image.array_shape and back.dtype == DTYPES[dtype]
    np.testing.assert_array_equal(back, data)


def test_layered_round_trip(context, rng):
    image = vd.Image2DArray((6, 10), 3, vd.float32, channels=2)
    assert image.shape == (3, 6, 10) and image.array_shape == (3, 6, 10, 2)
    data = random_array(rng, image.array_shape, np.float32)
    image.write(data)
    np.testing.assert_array_equal(image.read(), data)


def test_numpy_rows_are_the_height(context):
    image = vd.Image2D((5, 9))
    assert image.extent == (9, 5, 1)  # 9 texels wide (the last axis), 5 high
    assert image.array_shape == (5, 9) and image.mem_size == 5 * 9 * 4
    assert vd.Image3D((2, 3, 4)).extent == (4, 3, 2)
    assert vd.Image2D((4, 4), vd.uint32, 4).format is vd.image_format.R32G32B32A32_UINT


def test_write_takes_bytes_and_casts_arrays(context, rng):
    image = vd.Image2D((4, 6), vd.float32)
    values = rng.standard_normal((4, 6))  # float64: cast to the image's float32
    image.write(values)
    np.testing.assert_array_equal(image.read(), values.astype(np.float32))
    raw = values.astype(np.float32)[::-1].copy()
    image.write(raw.tobytes())
    np.testing.assert_array_equal(image.read(), raw)


def test_data_errors_name_both_shapes_or_sizes(context):
    image = vd.Image2D((4, 6))
    with pytest.raises(ValueError, match=r"array_shape \(4, 6\).*got shape \(6, 4, 2\)"):
        image.write(np.ones((6, 4, 2)))
    with pytest.raises(ValueError, match="data is 95 bytes; the image holds 96"):
        image.write(bytes(95))
    with pytest.raises(ValueError, match="takes an array of that shape"):
        image.write(np.array(["a"] * 24))


@pytest.mark.parametrize("make_image, message", [
    (lambda: vd.Image2D((4,)), "Shape must be 2D!"),
    (lambda: vd.Image3D((4, 4)), "Shape must be 3D!"),
    (lambda: vd.Image((1, 2, 3, 4), 1, vd.float32, 1, vd.image_view_type.VIEW_TYPE_3D),
     "Shape must be 1D, 2D or 3D!"),
    (lambda: vd.Image2D((4, 4.0)), "Shape must be a tuple of integers!"),
    (lambda: vd.Image2D((4, 4), vd.float64), r"Unsupported dtype"),
    (lambda: vd.Image2D((4, 4), np.float32), "Dtype must be a dtype!"),
    (lambda: vd.Image2D((4, 4), vd.float32, 5), "channels must be an int in 1..4"),
])
def test_bad_arguments(context, make_image, message):
    with pytest.raises(ValueError, match=message):
        make_image()


def test_too_large_for_the_device_names_the_format(context):
    with pytest.raises(ValueError, match="VK_FORMAT_R32_SFLOAT"):
        vd.Image1D(1 << 24, vd.float32)


def test_runtime_classes_cannot_be_subscripted():
    with pytest.raises(RuntimeError, match="Perhaps you meant to use vc.Image2D"):
        vd.Image2D[vd.float32]


def test_destroyed_images_refuse_use(context):
    image = vd.Image2D((2, 2))
    image.destroy()
    with pytest.raises(ValueError, match="this image was destroyed"):
        image.read()
