"""vd.map: typed functions inlined into other shaders while they are traced."""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32

N = 1000


def soft_clip(x: Const[f32]) -> f32:
    return x / (vc.abs(x) + 1.0)


def test_map_with_return_type_inlines_into_shader_and_matches_numpy(context, rng):
    mapping = vd.map(soft_clip)

    @vd.shader("out.size", local_size=(64, 1, 1))
    def apply(out: Buff[f32], src: Buff[f32]):
        i = vc.global_invocation_id().x
        out[i] = mapping.callback(src[i]) * 2.0

    values = rng.uniform(-10, 10, N).astype(np.float32)
    out = vd.Buffer((N,), vd.float32)
    apply(out, vd.asbuffer(values))
    np.testing.assert_allclose(out.read(0), 2 * values / (np.abs(values) + 1), rtol=1e-6,
                               atol=1e-6)
    assert "{" in apply.get_src().code  # the mapping body sits in its own scope


def test_map_without_return_type_emits_its_statements(context, rng):
    @vd.map
    def negate_in_place(buf: Buff[f32]):
        i = vc.global_invocation_id().x
        buf[i] = -buf[i]

    @vd.shader("buf.size", local_size=(64, 1, 1))
    def apply(buf: Buff[f32]):
        assert negate_in_place.callback(buf) is None

    values = rng.standard_normal(N).astype(np.float32)
    buf = vd.asbuffer(values)
    apply(buf)
    np.testing.assert_array_equal(buf.read(0), -values)


def test_maps_of_the_same_function_are_equal_and_hash_equal():
    first, second = vd.map(soft_clip), vd.map(soft_clip)
    assert first == second and hash(first) == hash(second)
    assert first.return_type is f32 and len(first.buffer_types) == 1
    assert vd.map(soft_clip, return_type=vd.float64) != first


def test_map_rejects_unannotated_and_bare_annotations():
    def unannotated(x):
        return x

    def bare(x: f32):
        return x

    with pytest.raises(ValueError, match="annotated"):
        vd.map(unannotated)
    with pytest.raises(TypeError, match="subscripted"):
        vd.map(bare)
