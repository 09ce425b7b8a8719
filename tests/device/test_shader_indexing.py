"""Device tests of the index helpers (``vc.ravel_index``: flat -> multi-index,
``vc.unravel_index``: multi-index -> flat) and of ``buf.shape`` inside shaders, over random
2-D and 3-D shapes, against ``np.unravel_index``/``np.ravel_multi_index``."""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, f32, i32, iv4, u32, uv2, uv3

SHAPE_COUNT = 3


def _random_shape(rng, dims: int) -> tuple[int, ...]:
    if dims == 2:
        return tuple(int(v) for v in rng.integers(3, 70, 2))
    return tuple(int(v) for v in rng.integers(2, 17, 3))


def test_ravel_index_static_2d_shapes_match_numpy(context, rng):
    for _ in range(SHAPE_COUNT):
        shape = _random_shape(rng, 2)

        @vd.shader("out.size")
        def ravel(out: Buff[uv2], flat: Buff[u32]):
            i = vc.global_invocation_id().x
            out[i] = vc.ravel_index(i, shape)
            flat[i] = vc.unravel_index(vc.ravel_index(i, shape), shape)

        n = shape[0] * shape[1]
        out, flat = vd.Buffer((n,), vd.uvec2), vd.Buffer((n,), vd.uint32)
        flat.write(rng.integers(1, 100, n, dtype=np.uint32))
        ravel(out, flat)
        expected = np.stack(np.unravel_index(np.arange(n), shape), axis=1)
        np.testing.assert_array_equal(out.read(0), expected, err_msg=f"shape {shape}")
        np.testing.assert_array_equal(flat.read(0), np.arange(n), err_msg=f"shape {shape}")


def test_ravel_index_static_3d_shapes_match_numpy(context, rng):
    for _ in range(SHAPE_COUNT):
        shape = _random_shape(rng, 3)

        @vd.shader("out.size")
        def ravel(out: Buff[uv3], flat: Buff[u32]):
            i = vc.global_invocation_id().x
            multi = vc.ravel_index(i, shape).to_register("multi")
            out[i] = multi
            flat[i] = vc.unravel_index(multi, shape)

        n = int(np.prod(shape))
        out, flat = vd.Buffer((n,), vd.uvec3), vd.Buffer((n,), vd.uint32)
        ravel(out, flat)
        expected = np.stack(np.unravel_index(np.arange(n), shape), axis=1)
        np.testing.assert_array_equal(out.read(0), expected, err_msg=f"shape {shape}")
        np.testing.assert_array_equal(flat.read(0), np.arange(n), err_msg=f"shape {shape}")


def test_ravel_index_with_buffer_shape_uses_runtime_dimensions(context, rng):
    # One compiled shader serves every shape: buf.shape is a uniform, set per call.
    @vd.shader("grid.size")
    def ravel(multi: Buff[uv3], grid: Buff[f32]):
        i = vc.global_invocation_id().x
        multi[i] = vc.ravel_index(i, grid.shape)

    for dims in (2, 3, 3):
        shape = _random_shape(rng, dims)
        grid = vd.Buffer(shape, vd.float32)
        n = grid.size
        multi = vd.Buffer((n,), vd.uvec3)
        ravel(multi, grid)
        padded = shape + (1,) * (3 - dims)
        expected = np.stack(np.unravel_index(np.arange(n), padded), axis=1)
        np.testing.assert_array_equal(multi.read(0), expected, err_msg=f"shape {shape}")


def test_unravel_index_of_2d_invocation_ids_fills_row_major_grid(context, rng):
    @vd.shader("(grid.shape[0], grid.shape[1])", local_size=(8, 8, 1))
    def fill(grid: Buff[f32], src: Buff[f32]):
        gid = vc.global_invocation_id()
        flat = vc.unravel_index((gid.x, gid.y), grid.shape).to_register("idx")
        grid[flat] = src[flat] * 2 + vc.to_float(gid.x) * 1000 + vc.to_float(gid.y)

    shape = (37, 29)
    src = rng.standard_normal(shape).astype(np.float32)
    grid = vd.Buffer(shape, vd.float32)
    fill(grid, vd.asbuffer(src))
    rows, cols = np.indices(shape)
    np.testing.assert_allclose(grid.read(0), src * 2 + rows * 1000 + cols, rtol=1e-6, atol=1e-6)


def test_unravel_index_of_3d_invocation_ids_fills_volume(context, rng):
    shape = (11, 6, 13)

    @vd.shader("vol.shape", local_size=(4, 4, 4))
    def fill(vol: Buff[i32], src: Buff[i32]):
        gid = vc.global_invocation_id()
        flat = vc.unravel_index(gid, vol.shape).to_register("idx")
        vol[flat] = src[flat] + vc.to_int(gid.x * 10000 + gid.y * 100 + gid.z)

    src = rng.integers(-1000, 1000, shape, dtype=np.int32)
    vol = vd.Buffer(shape, vd.int32)
    fill(vol, vd.asbuffer(src))
    i, j, k = np.indices(shape)
    np.testing.assert_array_equal(vol.read(0), src + i * 10000 + j * 100 + k)


@pytest.mark.parametrize("shape", [(257,), (19, 23), (5, 7, 9)])
def test_buffer_shape_inside_shader_reports_dimensions_and_size(context, rng, shape):
    @vd.shader(1)
    def report(out: Buff[iv4], data: Buff[f32]):
        out[0] = data.shape

    data = vd.Buffer(shape, vd.float32)
    data.write(rng.standard_normal(shape).astype(np.float32))
    out = vd.Buffer((1,), vd.ivec4)
    out.write(rng.integers(1, 9, (1, 4), dtype=np.int32))
    report(out, data)
    padded = shape + (1,) * (3 - len(shape))
    np.testing.assert_array_equal(out.read(0)[0], [*padded, int(np.prod(shape))])
