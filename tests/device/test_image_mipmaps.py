"""Mip chains (enable_mipmaps): level i holds level i-1 halved by a linear blit, made on each
write and image copy; shaders read levels with fetch(coord, lod) and blend them with
sample(coord, lod) when the sampler's max_lod allows. Checked against a numpy model of the
blits (sampling the finer level at the coarser level's texel centres)."""
# No `from __future__ import annotations`: the shaders below annotate with local names.
import numpy as np
import pytest
from image_model import sample

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import (Buff, Const, Img2, Img3, Var, f32, i32, iv2, iv3,
                                              v2, v4)


def halve(level: np.ndarray, dims: int) -> np.ndarray:
    """The next level of a linear blit: the finer level sampled at the coarser level's texel
    centres (for even extents, the average of each 2 x 2 (x 2) block)."""
    fine = level.shape[:dims]
    coarse = [max(e // 2, 1) for e in fine]
    axes = [(np.arange(c) + 0.5) * f / c - 0.5 for c, f in zip(coarse, fine)]
    grid = np.meshgrid(*axes, indexing="ij")
    coords = np.stack([g.ravel() for g in reversed(grid)], axis=1)  # x first
    values = sample(level, coords, vd.Filter.LINEAR)[:, :level.shape[dims] if
                                                       level.ndim > dims else 1]
    return values.reshape(*coarse, *level.shape[dims:])


def chain(values: np.ndarray, dims: int, levels: int) -> list[np.ndarray]:
    out = [values.astype(np.float64)]
    for _ in range(levels - 1):
        out.append(halve(out[-1], dims))
    return out


@vd.shader("out.size")
def fetch_2d(out: Buff[v4], tex: Img2[f32], width: Const[i32], lod: Const[i32]):
    i = vc.global_invocation_id().x
    out[i] = tex.fetch(vc.new_register(iv2, i % width, i // width), lod)


@vd.shader("out.size")
def fetch_3d(out: Buff[v4], tex: Img3[f32], width: Const[i32], height: Const[i32],
             lod: Const[i32]):
    i = vc.global_invocation_id().x
    out[i] = tex.fetch(vc.new_register(iv3, i % width, (i // width) % height,
                                       i // (width * height)), lod)


def read_level(image: vd.Image, level: int) -> np.ndarray:
    extent = [max(e >> level, 1) for e in image.extent]
    count = int(np.prod(extent))
    out = vd.Buffer((count,), v4)
    sampler = image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST)
    if isinstance(image, vd.Image3D):
        fetch_3d(out, sampler, extent[0], extent[1], level)
        shape = extent[::-1]
    else:
        fetch_2d(out, sampler, extent[0], level)
        shape = extent[1::-1]
    return out.read(0).reshape(*shape, 4)[..., :image.channels]


@pytest.mark.parametrize("make, dims", [
    (lambda: vd.Image2D((8, 16), channels=4, enable_mipmaps=True), 2),
    (lambda: vd.Image2D((5, 12), channels=2, enable_mipmaps=True), 2),
    (lambda: vd.Image3D((2, 4, 8), channels=1, enable_mipmaps=True), 3)])
def test_each_level_is_the_blit_of_the_one_above(context, rng, make, dims):
    image = make()
    assert image.mip_levels == max(image.extent).bit_length()
    values = rng.random(image.array_shape).astype(np.float32)
    image.write(values)
    np.testing.assert_array_equal(image.read(0), values)  # read returns level 0
    expected = chain(values.reshape(*image.shape, image.channels), dims, image.mip_levels)
    for level in range(image.mip_levels):
        np.testing.assert_allclose(read_level(image, level), expected[level], atol=1e-3,
                                   err_msg=f"level {level}")


def graphics_queues(context) -> bool:
    """Whether every queue of the context is of a family with graphics support (blits)."""
    return all(info.queue_properties[family][1] & 1
               for info, families in zip(context.device_infos, context.queue_families)
               for family in families)


def test_copies_into_an_image_remake_its_chain(context, rng):
    """Copies remake the levels by blits where the queues can run them (lavapipe's can);
    compute-only queues (NVIDIA's) refuse the copy and say what to do instead."""
    image = vd.Image2D((8, 8), enable_mipmaps=True)
    image.write(np.zeros((8, 8), np.float32))
    values = rng.random((8, 8)).astype(np.float32)
    if not graphics_queues(context):
        with pytest.raises(ValueError, match=r"by blits, but queue 0 has no graphics.*write\(\)"):
            vd.copy(image, vd.asbuffer(values))
        np.testing.assert_array_equal(image.read(0), 0)  # untouched
        return
    vd.copy(image, vd.asbuffer(values))
    expected = chain(values[..., None], 2, image.mip_levels)
    for level in range(image.mip_levels):
        np.testing.assert_allclose(read_level(image, level), expected[level], atol=1e-5)


def test_sampling_between_levels_blends_them(context, rng):
    image = vd.Image2D((16, 32), enable_mipmaps=True)
    values = rng.random((16, 32)).astype(np.float32)
    image.write(values)
    levels = chain(values, 2, image.mip_levels)

    @vd.shader("out.size")
    def at_lod(out: Buff[f32], tex: Img2[f32], coords: Buff[v2], lod: Var[f32]):
        i = vc.global_invocation_id().x
        out[i] = tex.sample(coords[i], lod).x

    n = 300
    coords = np.stack([rng.uniform(0, 31, n), rng.uniform(0, 15, n)], axis=1)
    points, out = vd.Buffer((n,), v2), vd.Buffer((n,), vd.float32)
    points.write(coords.astype(np.float32))
    uv = (coords + 0.5) / [32, 16]

    def at_level(k: int) -> np.ndarray:
        extent = np.array([levels[k].shape[1], levels[k].shape[0]])
        return sample(levels[k], uv * extent - 0.5, vd.Filter.LINEAR)[:, 0]

    blending = image.sample(max_lod=float(image.mip_levels - 1))
    at_lod(out, blending, points, 1.5)
    np.testing.assert_allclose(out.read(0), 0.5 * at_level(1) + 0.5 * at_level(2), atol=1 / 16)
    at_lod(out, image.sample(), points, 1.5)  # max_lod 0 (the default): level 0 only
    np.testing.assert_allclose(out.read(0), at_level(0), atol=1 / 16)


def test_integer_images_with_mips_need_nearest_mip_filtering(context, rng):
    image = vd.Image2D((4, 8), vd.int32, enable_mipmaps=True)
    if image._native.filters_linearly:
        pytest.skip("this device filters int32 images linearly")
    with pytest.raises(ValueError, match="mip_filter=vd.Filter.NEAREST"):
        image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST)
    image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST, vd.Filter.NEAREST)
    values = rng.integers(-1000, 1000, (4, 8)).astype(np.int32)
    image.write(values)
    np.testing.assert_array_equal(image.read(0), values)
