"""vd.copy with images: buffer -> image, image -> buffer and image -> image, immediately and
recorded in graphs between shaders that write the buffers and sample the images (the hazards
between them ordered without user barriers), against numpy; and the errors."""
# No `from __future__ import annotations`: the shaders below annotate with local names.
import numpy as np
import pytest
from image_model import sample

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Img2, Var, f32, iv2, v2, v4


@pytest.mark.parametrize("channels", [1, 2, 4])
def test_round_trip_through_buffers_and_images(context, rng, channels):
    image = vd.Image2D((6, 9), channels=channels)
    values = rng.standard_normal(image.array_shape).astype(np.float32)
    pad = 3 * channels  # whole texels of leading elements
    source = vd.asbuffer(np.concatenate([rng.standard_normal(pad).astype(np.float32),
                                         values.ravel()]))
    vd.copy(image, source, src_offset=pad)
    np.testing.assert_array_equal(image.read(0), values)
    other = vd.Image2D((6, 9), channels=channels)
    vd.copy(other, image)
    out = vd.asbuffer(np.full(values.size + 2 * channels, -1, np.float32))
    vd.copy(out, other, dst_offset=channels)
    got = out.read(0)
    np.testing.assert_array_equal(got[channels:channels + values.size], values.ravel())
    assert np.all(got[:channels] == -1) and np.all(got[channels + values.size:] == -1)


def test_vector_buffers_and_layered_and_3d_images(context, rng):
    layered = vd.Image2DArray((4, 5), 3, channels=4)
    values = rng.standard_normal(layered.array_shape).astype(np.float32)
    vectors = vd.Buffer((values.size // 4,), v4)
    vectors.write(values.reshape(-1, 4))
    vd.copy(layered, vectors)
    np.testing.assert_array_equal(layered.read(0), values)
    volume = vd.Image3D((3, 4, 5), vd.int32)
    ints = rng.integers(-2**31, 2**31 - 1, volume.array_shape).astype(np.int32)
    volume.write(ints)
    back = vd.Buffer((ints.size,), vd.int32)
    vd.copy(back, volume)
    np.testing.assert_array_equal(back.read(0), ints.ravel())


def test_graph_orders_shaders_and_image_copies(context, rng):
    """One recorded graph, replayed: a shader fills a buffer, the buffer becomes the image, a
    shader samples the image, the image goes back to a buffer. Replays with new values."""
    rows, cols, n = 8, 12, 500

    @vd.shader("texels.size")
    def fill(texels: Buff[f32], scale: Var[f32]):
        i = vc.global_invocation_id().x
        texels[i] = vc.sin(vc.to_float(i) * 0.37) * scale

    @vd.shader("out.size")
    def sample_points(out: Buff[v4], tex: Img2[f32], coords: Buff[v2]):
        i = vc.global_invocation_id().x
        out[i] = tex.sample(coords[i])

    image = vd.Image2D((rows, cols))
    image.write(rng.random((rows, cols)).astype(np.float32))  # overwritten by the graph
    texels, back = vd.Buffer((rows * cols,), vd.float32), vd.Buffer((rows * cols,), vd.float32)
    coords = np.stack([rng.uniform(-1, cols, n), rng.uniform(-1, rows, n)], axis=1)
    points, out = vd.Buffer((n,), v2), vd.Buffer((n,), v4)
    points.write(coords.astype(np.float32))
    graph = vd.CommandGraph()
    fill(texels, graph.bind_var("scale"), graph=graph)
    vd.copy(image, texels, graph=graph)
    sample_points(out, image.sample(), points, graph=graph)
    vd.copy(back, image, graph=graph)
    for scale in (1.0, -2.5, 0.75):
        graph.set_var("scale", scale)
        graph.submit()
        expected = (np.sin(np.arange(rows * cols, dtype=np.float32) * np.float32(0.37))
                    * np.float32(scale)).reshape(rows, cols)
        np.testing.assert_allclose(back.read(0).reshape(rows, cols), expected, atol=1e-5)
        np.testing.assert_allclose(out.read(0).reshape(n, 4),
                                   sample(expected, coords, vd.Filter.LINEAR),
                                   atol=abs(scale) / 16)
    graph.destroy()


def test_sampling_before_and_after_an_image_copy_in_one_graph(context, rng):
    """The shader before the copy sees the old texels, the one after sees the new (the copy
    waits for the first sampling, the second waits for the copy)."""
    old, new = rng.random((4, 6)).astype(np.float32), rng.random((4, 6)).astype(np.float32)

    @vd.shader("out.size")
    def texel_values(out: Buff[f32], tex: Img2[f32]):
        i = vc.global_invocation_id().x
        out[i] = tex.fetch(vc.new_register(iv2, i % 6, i // 6)).x

    image, source = vd.Image2D((4, 6)), vd.asbuffer(new.ravel())
    image.write(old)
    before, after = vd.Buffer((24,), vd.float32), vd.Buffer((24,), vd.float32)
    graph = vd.CommandGraph()
    sampler = image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST)
    texel_values(before, sampler, graph=graph)
    vd.copy(image, source, graph=graph)
    texel_values(after, sampler, graph=graph)
    graph.submit()
    np.testing.assert_array_equal(before.read(0), old.ravel())
    np.testing.assert_array_equal(after.read(0), new.ravel())
    graph.destroy()


def test_image_copy_errors_name_the_argument(context):
    image = vd.Image2D((4, 4), channels=2)
    with pytest.raises(TypeError, match="src holds int32 but the image holds float32"):
        vd.copy(image, vd.Buffer((32,), vd.int32))
    with pytest.raises(ValueError, match=r"takes 32 values.*src of 31 elements"):
        vd.copy(image, vd.Buffer((31,), vd.float32))
    with pytest.raises(ValueError, match="src_offset=1: the image's texels must start at a "
                                         "whole texel"):
        vd.copy(image, vd.Buffer((40,), vd.float32), src_offset=1)
    with pytest.raises(ValueError, match="count: an image copy moves the whole"):
        vd.copy(image, vd.Buffer((40,), vd.float32), count=8)
    with pytest.raises(ValueError, match="dst_offset=2: an image is copied whole"):
        vd.copy(image, vd.Buffer((32,), vd.float32), dst_offset=2)
    with pytest.raises(ValueError, match="needs the same kind, shape, layers and texel size"):
        vd.copy(image, vd.Image2D((4, 4)))
    with pytest.raises(ValueError, match="is the source image itself"):
        vd.copy(image, image)
    with pytest.raises(TypeError, match="src must be a vd.Buffer or a vd.Image"):
        vd.copy(image, np.zeros(32, np.float32))
    gone = vd.Image2D((4, 4), channels=2)
    gone.destroy()
    with pytest.raises(ValueError, match="src was destroyed"):
        vd.copy(image, gone)
    vd.copy(image, vd.asbuffer(np.ones(32, np.float32)))  # still usable
    np.testing.assert_array_equal(image.read(0), np.ones((4, 4, 2), np.float32))
