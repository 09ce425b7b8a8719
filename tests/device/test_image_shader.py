"""Images as @vd.shader arguments (Img1/Img2/Img3/Img2Array) against the numpy model of
tests/image_model.py: sampling with both filters, every address mode and border colour, texel
fetches of integer images, images beside buffers, many images in one graph, images freed while
work that samples them is in flight, and the errors of wrong arguments."""
# No `from __future__ import annotations`: the shaders below annotate with local names.
import gc

import numpy as np
import pytest
from image_model import away_from_texel_edges, sample

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import (Buff, Const, Img1, Img2, Img2Array, Img3, f32,
                                              i32, iv4, u32, uv4, v2, v3, v4)

# kind: (make image of numpy shape, annotation, coordinate type, coordinate count, layered)
KINDS = {
    "1d": (lambda shape, **kw: vd.Image1D(shape[0], vd.float32, **kw), Img1[f32], f32, 1,
           False),
    "2d": (lambda shape, **kw: vd.Image2D(shape, **kw), Img2[f32], v2, 2, False),
    "3d": (lambda shape, **kw: vd.Image3D(shape, **kw), Img3[f32], v3, 3, False),
    "2d_array": (lambda shape, **kw: vd.Image2DArray(shape[1:], shape[0], **kw),
                 Img2Array[f32], v3, 3, True),
}
SHAPES = {"1d": (13,), "2d": (5, 11), "3d": (3, 4, 7), "2d_array": (4, 5, 6)}


def sampling_shader(annotation, coord_type):
    @vd.shader("out.size")
    def sample_image(out: Buff[v4], image: annotation, coords: Buff[coord_type]):
        i = vc.global_invocation_id().x
        out[i] = image.sample(coords[i])

    return sample_image


def random_coords(rng, kind: str, count: int, margin: float = 1.5) -> np.ndarray:
    """Texel coordinates (x first) reaching ``margin`` texels past every edge; layers stay
    inside and clear of the halfway points where rounding may go either way."""
    shape = SHAPES[kind]
    layered = KINDS[kind][4]
    extents = list(reversed(shape[1:] if layered else shape))
    coords = [rng.uniform(-margin, e - 1 + margin, count) for e in extents]
    if layered:
        coords.append(rng.integers(0, shape[0], count) + rng.uniform(-0.3, 0.3, count))
    return np.stack(coords, axis=1)


def run_sampling(kind: str, sampler, coords: np.ndarray) -> np.ndarray:
    _make, annotation, coord_type, count, _layered = KINDS[kind]
    points = vd.Buffer((len(coords),), coord_type)
    points.write(coords.astype(np.float32).reshape(len(coords), *([count] if count > 1 else [])))
    out = vd.Buffer((len(coords),), v4)
    sampling_shader(annotation, coord_type)(out, sampler, points)
    return out.read(0).reshape(len(coords), 4)


def tolerance(filter_: vd.Filter) -> float:
    return 0 if filter_ is vd.Filter.NEAREST else 1 / 16  # subtexel precision is >= 4 bits


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("filter_", [vd.Filter.NEAREST, vd.Filter.LINEAR])
def test_sampling_each_kind_of_image_matches_the_model(context, rng, kind, filter_):
    channels = int(rng.integers(1, 5)) if kind != "3d" else 4
    make = KINDS[kind][0]
    try:
        image = make(SHAPES[kind], channels=channels)
    except ValueError as error:  # a format the device does not make (3 channels on NVIDIA)
        pytest.skip(str(error))
    values = rng.standard_normal(image.array_shape).astype(np.float32)
    image.write(values)
    coords = random_coords(rng, kind, 400)
    if filter_ is vd.Filter.NEAREST:
        layered = KINDS[kind][4]
        coords[:, :coords.shape[1] - layered] = away_from_texel_edges(
            coords[:, :coords.shape[1] - layered])
    got = run_sampling(kind, image.sample(filter_, filter_), coords)
    expected = sample(values, coords, filter_, layered=KINDS[kind][4])
    np.testing.assert_allclose(got, expected, atol=tolerance(filter_) * np.abs(values).max())


@pytest.mark.parametrize("mode, border", [
    *((mode, vd.BorderColor.FLOAT_OPAQUE_WHITE) for mode in vd.AddressMode),
    # The border colour only shows with CLAMP_TO_BORDER.
    (vd.AddressMode.CLAMP_TO_BORDER, vd.BorderColor.FLOAT_TRANSPARENT_BLACK),
    (vd.AddressMode.CLAMP_TO_BORDER, vd.BorderColor.FLOAT_OPAQUE_BLACK)])
def test_trilinear_sampling_with_each_address_mode_and_border(context, rng, mode, border):
    image = vd.Image3D(SHAPES["3d"], channels=4)
    values = rng.random(image.array_shape).astype(np.float32)
    image.write(values)
    coords = random_coords(rng, "3d", 500, margin=4.0)
    sampler = image.sample(vd.Filter.LINEAR, vd.Filter.LINEAR, address_mode=mode,
                           border_color=border)
    np.testing.assert_allclose(run_sampling("3d", sampler, coords),
                               sample(values, coords, vd.Filter.LINEAR, mode, border),
                               atol=1 / 16)


def test_non_square_image_is_addressed_with_x_along_the_last_axis(context, rng):
    values = rng.random((3, 8)).astype(np.float32)  # 8 wide, 3 high
    image = vd.Image2D((3, 8))
    image.write(values)
    x, y = np.meshgrid(np.arange(8), np.arange(3))
    coords = np.stack([x.ravel(), y.ravel()], axis=1).astype(np.float64)
    got = run_sampling("2d", image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST), coords)
    np.testing.assert_array_equal(got[:, 0], values.ravel())


@pytest.mark.parametrize("dtype, annotation, result, vector", [
    (vd.int32, Img2[i32], Buff[iv4], np.int32), (vd.uint32, Img2[u32], Buff[uv4], np.uint32)])
def test_integer_images_fetch_and_sample_exact_values(context, rng, dtype, annotation, result,
                                                      vector):
    values = rng.integers(0, 2**31 - 1, (6, 9, 2)).astype(vector)  # 9 wide, 6 high, 2 channels
    image = vd.Image2D((6, 9), dtype, channels=2)
    image.write(values)

    @vd.shader("fetched.size")
    def read_texels(fetched: result, sampled: result, size: Buff[i32], tex: annotation,
                    coords: Buff[v2]):
        i = vc.global_invocation_id().x
        fetched[i] = tex.fetch(coords[i])
        sampled[i] = tex.sample(coords[i])
        size[0] = tex.size().x
        size[1] = tex.size().y

    coords = np.stack([rng.integers(0, 9, 50), rng.integers(0, 6, 50)], axis=1)
    points = vd.Buffer((50,), v2)
    points.write(coords.astype(np.float32))
    fetched, sampled = vd.Buffer((50,), result.__args__[0]), vd.Buffer((50,), result.__args__[0])
    size = vd.Buffer((2,), vd.int32)
    read_texels(fetched, sampled, size,
                image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST), points)
    expected = np.zeros((50, 4), vector)
    expected[:, :2] = values[coords[:, 1], coords[:, 0]]
    expected[:, 3] = 1
    np.testing.assert_array_equal(fetched.read(0).reshape(50, 4), expected)
    np.testing.assert_array_equal(sampled.read(0).reshape(50, 4), expected)
    np.testing.assert_array_equal(size.read(0), [9, 6])


@pytest.mark.parametrize("border", [vd.BorderColor.INT_TRANSPARENT_BLACK,
                                    vd.BorderColor.INT_OPAQUE_BLACK,
                                    vd.BorderColor.INT_OPAQUE_WHITE])
def test_integer_images_outside_read_the_integer_border_colour(context, rng, border):
    values = rng.integers(2, 10**6, (5, 7, 4)).astype(np.uint32)
    image = vd.Image2D((5, 7), vd.uint32, channels=4)
    image.write(values)

    @vd.shader("out.size")
    def sample_uint(out: Buff[uv4], tex: Img2[u32], coords: Buff[v2]):
        i = vc.global_invocation_id().x
        out[i] = tex.sample(coords[i])

    coords = away_from_texel_edges(random_coords(rng, "2d", 300, margin=3.0))
    points, out = vd.Buffer((300,), v2), vd.Buffer((300,), uv4)
    points.write(coords.astype(np.float32))
    sample_uint(out, image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST,
                                  address_mode=vd.AddressMode.CLAMP_TO_BORDER,
                                  border_color=border), points)
    expected = sample(values, coords, vd.Filter.NEAREST, vd.AddressMode.CLAMP_TO_BORDER, border)
    outside = (coords < -0.5).any(axis=1) | (coords > [6.5, 4.5]).any(axis=1)
    assert outside.sum() > 30 and (~outside).sum() > 30  # both kinds of points are checked
    np.testing.assert_array_equal(out.read(0).reshape(300, 4), expected.astype(np.uint32))


def test_images_and_buffers_in_one_shader(context, rng):
    """out[i] = gain * image(x_i) + offset[i]: an image between buffers and a constant."""
    values = rng.random((7, 10)).astype(np.float32)
    image = vd.Image2D((7, 10))
    image.write(values)

    @vd.shader("out.size")
    def shade(out: Buff[f32], coords: Buff[v2], tex: Img2[f32], offset: Buff[f32],
              gain: Const[f32]):
        i = vc.global_invocation_id().x
        out[i] = gain * tex.sample(coords[i]).x + offset[i]

    coords = random_coords(rng, "2d", 300)
    offsets = rng.standard_normal(300).astype(np.float32)
    out, points, offset = vd.Buffer((300,), vd.float32), vd.Buffer((300,), v2), \
        vd.asbuffer(offsets)
    points.write(coords.astype(np.float32))
    shade(out, points, image.sample(), offset, 2.5)
    expected = 2.5 * sample(values, coords, vd.Filter.LINEAR)[:, 0] + offsets
    np.testing.assert_allclose(out.read(0), expected, atol=2.5 / 16)


def test_many_images_in_one_graph(context, rng):
    """Twelve images summed call by call into one buffer by a recorded graph, replayed."""
    count, n = 12, 256

    @vd.shader("acc.size")
    def accumulate(acc: Buff[f32], tex: Img2[f32], coords: Buff[v2]):
        i = vc.global_invocation_id().x
        acc[i] = acc[i] + tex.sample(coords[i]).x

    coords = random_coords(rng, "2d", n)
    points = vd.Buffer((n,), v2)
    points.write(coords.astype(np.float32))
    acc = vd.asbuffer(np.zeros(n, np.float32))
    graph = vd.CommandGraph()
    expected = np.zeros(n)
    images = []
    for _ in range(count):
        values = rng.random((5, 11)).astype(np.float32)
        image = vd.Image2D((5, 11))
        image.write(values)
        images.append(image)
        accumulate(acc, image.sample(), points, graph=graph)
        expected += sample(values, coords, vd.Filter.LINEAR)[:, 0]
    graph.submit()
    graph.submit()
    np.testing.assert_allclose(acc.read(0), 2 * expected, atol=2 * count / 16)
    graph.destroy()


def test_images_freed_while_work_samples_them(context, rng):
    """Every Python reference to the image and sampler goes right after the submit: the
    sampling still reads the written texels."""
    n = 1 << 14
    values = rng.random((32, 32)).astype(np.float32)

    @vd.shader("out.size")
    def copy_out(out: Buff[f32], tex: Img2[f32], coords: Buff[v2]):
        i = vc.global_invocation_id().x
        out[i] = tex.sample(coords[i]).x

    coords = away_from_texel_edges(random_coords(rng, "2d", n, margin=0.0) * 32 / 11)
    points = vd.Buffer((n,), v2)
    points.write(coords.astype(np.float32))
    outs = []
    graph = vd.CommandGraph()
    for _ in range(3):
        image = vd.Image2D((32, 32))
        image.write(values)
        out = vd.Buffer((n,), vd.float32)
        copy_out(out, image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST), points, graph=graph)
        graph.submit()
        graph.reset()
        image.destroy()  # explicit destroy too: the GPU may still be sampling it
        del image
        gc.collect()
        outs.append(out)
    expected = sample(values, coords, vd.Filter.NEAREST)[:, 0]
    for out in outs:
        np.testing.assert_array_equal(out.read(0), expected)
    graph.destroy()


def test_replay_after_the_image_is_destroyed_is_refused(context):
    image = vd.Image2D((4, 4))
    image.write(np.ones((4, 4), np.float32))
    out, points = vd.Buffer((4,), vd.float32), vd.Buffer((4,), v2)

    @vd.shader("out.size")
    def first_texel(out: Buff[f32], tex: Img2[f32], coords: Buff[v2]):
        out[vc.global_invocation_id().x] = tex.sample(coords[0]).x

    graph = vd.CommandGraph()
    first_texel(out, image.sample(), points, graph=graph)
    image.destroy()
    with pytest.raises(ValueError, match="binds a destroyed image"):
        graph.submit()
    graph.destroy()


def test_record_shader_binds_image_bind_infos(context, rng, image_shader):
    """The graph's lower-level entry (what 0.1.0's ShaderFunction called): buffers and samplers
    given as BufferBindInfo / ImageBindInfo with their binding slots."""
    values = rng.random((6, 10)).astype(np.float32)
    image = vd.Image2D((6, 10))
    image.write(values)
    coords = random_coords(rng, "2d", 64)
    out, points = vd.Buffer((64,), v4), vd.Buffer((64,), v2)
    points.write(coords.astype(np.float32))
    image_shader.build()
    description = image_shader.shader_description
    slots = {info.name: info.binding for info in description.shader_arg_infos}
    graph = vd.CommandGraph()
    graph.record_shader(
        image_shader.plan, description, (64, 1, 1), (1, 1, 1),
        [vd.BufferBindInfo(out, slots["out"], "buf0_shape", False, True),
         vd.BufferBindInfo(points, slots["coords"], "buf2_shape", True, False)],
        [vd.ImageBindInfo(image.sample(), slots["tex"], True, False)])
    graph.submit()
    np.testing.assert_allclose(out.read(0).reshape(64, 4),
                               sample(values, coords, vd.Filter.LINEAR), atol=1 / 16)
    with pytest.raises(ValueError, match="bound_samplers: binding 2 needs a live vd.Sampler"):
        graph.record_shader(image_shader.plan, description, (64, 1, 1), (1, 1, 1), [],
                            [vd.ImageBindInfo(image, slots["tex"], True, False)])
    graph.destroy()


@pytest.fixture
def image_shader(context):
    @vd.shader("out.size")
    def sample_2d(out: Buff[v4], tex: Img2[f32], coords: Buff[v2]):
        i = vc.global_invocation_id().x
        out[i] = tex.sample(coords[i])

    return sample_2d


def test_wrong_image_arguments_name_the_parameter(context, image_shader):
    out, points = vd.Buffer((4,), v4), vd.Buffer((4,), v2)
    image = vd.Image2D((4, 4))
    with pytest.raises(ValueError, match=r"Expected an image for argument 'tex'.*image.sample"):
        image_shader(out, image, points)
    with pytest.raises(ValueError, match=r"declared Image2D\[float32\].*Image3D of shape"):
        image_shader(out, vd.Image3D((2, 4, 4)).sample(), points)
    with pytest.raises(ValueError, match=r"holds int32 texels; annotate Image2D\[ivec4\]"):
        image_shader(out, vd.Image2D((4, 4), vd.int32).sample(vd.Filter.NEAREST,
                                                                vd.Filter.NEAREST), points)
    layered = vd.Image2DArray((4, 4), 3)
    with pytest.raises(ValueError, match=r"samples a vd.Image2D.*Image2DArray"):
        image_shader(out, layered.sample(), points)
    destroyed = vd.Image2D((4, 4))
    sampler = destroyed.sample()
    destroyed.destroy()
    with pytest.raises(ValueError, match="'tex'.*destroyed"):
        image_shader(out, sampler, points)
    image_shader(out, image.sample(), points)  # the context is still usable


def test_linear_filtering_of_integer_images_is_refused(context):  # a validation error else
    @vd.shader("out.size")
    def sample_int(out: Buff[iv4], tex: Img2[i32], coords: Buff[v2]):
        out[vc.global_invocation_id().x] = tex.sample(coords[0])

    image = vd.Image2D((4, 4), vd.int32)
    out, points = vd.Buffer((4,), iv4), vd.Buffer((4,), v2)
    if image._native.filters_linearly:
        pytest.skip("this device filters int32 images linearly")
    with pytest.raises(ValueError, match=r"cannot filter R32_SINT images linearly.*NEAREST"):
        image.sample()
    with pytest.raises(ValueError, match=r"cannot filter R32_SINT images linearly"):
        image.sample(vd.Filter.NEAREST, vd.Filter.LINEAR)
    # The default mip filter (LINEAR) is fine: one mip level, sampled as nearest.
    sample_int(out, image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST), points)


def test_annotations_of_unsupported_texel_types_are_refused(context):
    with pytest.raises(TypeError, match=r"'tex'.*images hold f32, i32 or u32"):
        @vd.shader("out.size")
        def bad(out: Buff[f32], tex: Img2[vd.float64]):
            out[0] = tex.sample(1.0).x

        bad.build()  # tracing may be lazy
