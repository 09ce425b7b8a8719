"""kp.Image against numpy: dtypes and channels through the device, shaders reading and writing
storage images (non-square, x along the last numpy axis), copies to and from tensors, memory
types, and Kompute's constructor errors."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import random_array
from kp_programs import spirv

import kp

IMAGE_T_TYPES = {np.float32: kp.float, np.int32: kp.int, np.uint32: kp.uint,
                 np.int16: kp.short, np.uint16: kp.ushort, np.int8: kp.char, np.uint8: kp.uchar,
                 np.float16: kp.float16}

# out[x + y * width] = 2 * image(x, y) + 1
READ = spirv("""#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D source;
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
    ivec2 p = ivec2(gl_WorkGroupID.xy);
    o[p.x + p.y * gl_NumWorkGroups.x] = 2.0 * imageLoad(source, p).r + 1.0;
}
""")

# image(x, y) = (x, y, x * y + k, 7) with k a push constant
WRITE = spirv("""#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, rgba32i) uniform writeonly iimage2D target;
layout(push_constant) uniform Push { int k; };
void main() {
    ivec2 p = ivec2(gl_WorkGroupID.xy);
    imageStore(target, p, ivec4(p.x, p.y, p.x * p.y + k, 7));
}
""")


def written_texels(width, height, k):
    y, x = np.mgrid[0:height, 0:width]
    return np.stack([x, y, x * y + k, np.full_like(x, 7)], axis=-1).astype(np.int32)


@pytest.mark.parametrize("np_type", list(IMAGE_T_TYPES))
@pytest.mark.parametrize("channels", [1, 2, 4])
def test_image_t_round_trips_through_the_device(mgr, rng, np_type, channels):
    data = random_array(rng, (3, 5, channels), np_type)  # height 3, width 5
    image = mgr.image_t(data, 5, 3, channels)
    assert image.data_type() is IMAGE_T_TYPES[np_type] and len(image) == data.size
    mgr.sequence().eval(kp.OpSyncDevice([image]))
    image.data()[:] = 0
    mgr.sequence().eval(kp.OpSyncLocal([image]))
    np.testing.assert_array_equal(image.data(), data.ravel())
    assert image.data().dtype == np.dtype(np_type) and image.data().base is image


def test_image_converts_to_float32_and_ignores_extra_data(mgr):
    image = mgr.image(np.arange(12), 2, 2, 1)
    np.testing.assert_array_equal(image.data(), [0, 1, 2, 3])
    assert image.data().dtype == np.float32 and image.memory_type() is kp.device


@pytest.mark.parametrize("np_type", [np.float64, np.bool_, np.int64])
def test_image_t_refuses_other_dtypes(mgr, np_type):
    with pytest.raises(RuntimeError, match="Kompute Python no valid dtype supported"):
        mgr.image_t(np.ones(4, np_type), 2, 2, 1)


@pytest.mark.parametrize("shape, data_size, message", [
    ((0, 3, 1), 9, "zero-sized memory object"),
    ((3, 3, 0), 9, "an image with no channels"),
    ((3, 3, 3), 9, "data is smaller than the requested image size"),
    ((3, 3, 3), 27, "can only have up to 1, 2 or 4 channels"),
    ((2, 2, 5), 40, "can only have up to 1, 2 or 4 channels"),
])
def test_constructor_errors_in_kompute_order(mgr, shape, data_size, message):
    with pytest.raises(RuntimeError, match=message):
        mgr.image(np.ones(data_size), *shape)


def test_a_shader_reads_a_non_square_image_with_x_along_the_last_axis(mgr, rng):
    height, width = 5, 9
    values = random_array(rng, (height, width), np.float32)
    image, out = mgr.image(values, width, height, 1), mgr.tensor(np.zeros(height * width))
    algorithm = mgr.algorithm([image, out], READ, (width, height, 1))
    sequence = mgr.sequence().record(kp.OpSyncDevice([image]))
    sequence.record(kp.OpAlgoDispatch(algorithm)).record(kp.OpSyncLocal([out]))
    for _ in range(2):  # again with new host data: the recorded sequence stays valid
        sequence.eval()
        np.testing.assert_allclose(out.data().reshape(height, width), 2 * values + 1)
        values = -values
        image.data()[:] = values.ravel()


@pytest.mark.parametrize("memory_type", [kp.device, kp.host, kp.deviceAndHost])
def test_a_shader_writes_an_image(mgr, memory_type):
    height, width = 3, 8  # rows of 128 bytes: linear (host) images are unpadded on lavapipe
    try:
        image = mgr.image_t(np.zeros((height, width, 4), np.int32), width, height, 4,
                            memory_type)
    except RuntimeError as error:
        if "pads the rows" not in str(error):
            raise
        pytest.skip(str(error))
    algorithm = mgr.algorithm([image], WRITE, (width, height, 1), push_consts=np.array(
        [0], np.int32), spec_consts=np.array([], np.int32))
    sequence = mgr.sequence().record(kp.OpAlgoDispatch(algorithm, np.array([11], np.int32)))
    sequence.record(kp.OpSyncLocal([image])).eval()  # the sync does nothing for host memory
    np.testing.assert_array_equal(image.data().reshape(height, width, 4),
                                  written_texels(width, height, 11))


def test_copies_between_images_and_tensors(mgr, rng):
    values = random_array(rng, (4, 6, 2), np.uint32)
    source = mgr.image_t(values, 6, 4, 2)
    storage = mgr.image_t(np.zeros_like(values), 6, 4, 2, kp.storage)
    tensor = mgr.tensor_t(np.zeros(values.size, np.uint32))
    back = mgr.image_t(np.zeros_like(values), 6, 4, 2)
    sequence = mgr.sequence().record(kp.OpSyncDevice([source]))
    for op in (kp.OpCopy([source, storage]), kp.OpCopy([storage, tensor]),
               kp.OpCopy([tensor, back])):
        sequence.record(op)
    sequence.eval()
    back.data()[:] = 0
    mgr.sequence().eval(kp.OpSyncLocal([back, tensor]))
    np.testing.assert_array_equal(back.data(), values.ravel())
    np.testing.assert_array_equal(tensor.data(), values.ravel())
    with pytest.raises(RuntimeError, match="eStorage has no host view"):
        storage.data()


def test_copy_errors(mgr):
    image = mgr.image_t(np.ones(12, np.uint32), 6, 2, 1)
    with pytest.raises(RuntimeError, match="image sizes do not match"):
        mgr.sequence().eval(kp.OpCopy([image, mgr.image_t(np.ones(12, np.uint32), 4, 3, 1)]))
    with pytest.raises(RuntimeError, match="different types from eUnsignedInt to eFloat"):
        mgr.sequence().eval(kp.OpCopy([image, mgr.image(np.ones(12), 6, 2, 1)]))


def test_destroyed_with_the_manager(mgr):
    image = mgr.image([1.0, 2.0, 3.0, 4.0], 2, 2, 1)
    view = image.data()
    mgr.destroy()
    assert not image.is_init() and image.size() == 0
    np.testing.assert_array_equal(view, [1, 2, 3, 4])
    with pytest.raises(TypeError, match="width must be an int"):
        kp.Manager().image([1.0], "1", 1, 1)


def test_host_images_with_padded_rows_are_refused(mgr):
    # lavapipe aligns the rows of linear images to 128 bytes: 6 texels of 16 bytes get padded.
    if "llvmpipe" not in mgr.get_device_properties()["device_name"]:
        pytest.skip("the row alignment checked is lavapipe's")
    with pytest.raises(RuntimeError, match="pads the rows of linear images"):
        mgr.image_t(np.zeros((3, 6, 4), np.int32), 6, 3, 4, kp.host)
