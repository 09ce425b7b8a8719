"""Sampling vd images in hand-written GLSL (ComputePlan + DescriptorSet.bind_sampler) against a
numpy model: nearest and linear filters, every address mode, non-square images with x along the
last numpy axis."""
from __future__ import annotations

import image_model
import numpy as np
import pytest

import vkdispatch as vd
from vkdispatch.base import commands as cmd
from vkdispatch.base.command_list import CommandList
from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.base.descriptor_set import DescriptorSet

SAMPLE_2D = """#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) buffer Coords { vec2 coords[]; };
layout(set = 0, binding = 2) buffer Out { float o[]; };
void main() { uint i = gl_GlobalInvocationID.x; o[i] = texture(tex, coords[i]).r; }
"""
SAMPLER, STORAGE = 5, 1


def model(image: np.ndarray, uv: np.ndarray, filter_: vd.Filter, mode):
    """What texture() returns (red) at normalized ``uv`` (u along the last axis)."""
    rows, cols = image.shape
    return image_model.sample(image, uv * [cols, rows] - 0.5, filter_, mode)[:, 0]


@pytest.fixture(scope="module")
def plan(context):
    return ComputePlan(SAMPLE_2D, [SAMPLER, STORAGE, STORAGE], 0, "sample_2d")


def sample(plan, sampler, uv: np.ndarray) -> np.ndarray:
    coords, out = vd.asbuffer(uv.astype(np.float32)), vd.Buffer(len(uv), vd.float32)
    descriptor_set = DescriptorSet(plan)
    descriptor_set.bind_sampler(sampler, 0)
    descriptor_set.bind_buffer(coords, 1)
    descriptor_set.bind_buffer(out, 2)
    commands = CommandList()
    commands.record(cmd.Dispatch(plan, descriptor_set, (len(uv), 1, 1)))
    commands.submit(instance_count=1)
    return out.read(0)


@pytest.mark.parametrize("filter_", [vd.Filter.NEAREST, vd.Filter.LINEAR])
@pytest.mark.parametrize("mode", list(vd.AddressMode))
def test_sampling_matches_the_model(context, plan, rng, filter_, mode):
    values = rng.random((5, 11)).astype(np.float32)  # 11 texels wide, 5 high
    image = vd.Image2D((5, 11))
    image.write(values)
    uv = rng.uniform(-0.6, 1.6, (300, 2))
    if filter_ is vd.Filter.NEAREST:  # keep clear of texel edges, where rounding may differ
        texel = uv * [11, 5]
        uv = (np.floor(texel) + np.clip(texel % 1, 0.1, 0.9)) / [11, 5]
    sampler = image.sample(filter_, filter_, address_mode=mode,
                           border_color=vd.BorderColor.FLOAT_OPAQUE_WHITE)
    got = sample(plan, sampler, uv)
    tolerance = 0 if filter_ is vd.Filter.NEAREST else 1 / 16  # subtexel precision >= 4 bits
    np.testing.assert_allclose(got, model(values, uv, filter_, mode), atol=tolerance)


def test_min_and_mag_filters_are_both_honoured(context, plan, rng):
    values = rng.random((4, 4)).astype(np.float32)
    image = vd.Image2D((4, 4))
    image.write(values)
    uv = rng.uniform(0.1, 0.9, (64, 2))
    # Compute shaders sample level 0 with magnification, so mag_filter decides here; a sampler
    # whose min_filter differs must still be made with both (0.1.0 used mag for both).
    mixed = image.sample(vd.Filter.LINEAR, vd.Filter.NEAREST)
    assert (mixed.mag_filter, mixed.min_filter) == (vd.Filter.LINEAR, vd.Filter.NEAREST)
    np.testing.assert_allclose(sample(plan, mixed, uv),
                               model(values, uv, vd.Filter.LINEAR, vd.AddressMode.CLAMP_TO_EDGE),
                               atol=1 / 16)


def test_sampler_argument_errors(context, plan):
    image = vd.Image2D((4, 4))
    with pytest.raises(TypeError, match="address_mode must be a vd.AddressMode"):
        image.sample(address_mode=2)
    with pytest.raises(ValueError, match="min_lod"):
        image.sample(min_lod=2.0, max_lod=1.0)
    descriptor_set = DescriptorSet(plan)
    with pytest.raises(TypeError, match="sampler must be a vd.Sampler"):
        descriptor_set.bind_sampler(image, 0)
    with pytest.raises(ValueError, match="expects a storage buffer, got a sampler"):
        descriptor_set.bind_sampler(image.sample(), 1)
