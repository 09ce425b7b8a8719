"""Device tests of shader parameters that carry values: ``Const`` scalars and vectors (uniform
members), dataclass constants, immediate ``Var`` values (push constants), parameter defaults,
and Const values frozen per recorded call."""
from __future__ import annotations

import dataclasses

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import (Buff, Const, Var, f32, f64, i32, iv2, iv3, u32,
                                              uv4, v2, v3, v4)

N = 1500


@dataclasses.dataclass
class Params:
    gain: f32
    offsets: iv3
    center: v2
    count: u32


def test_scalar_constants_of_each_type_reach_the_shader(context, rng):
    @vd.shader("out.size")
    def scalars(out: Buff[f64], x: Buff[f32], a: Const[f32], b: Const[i32], c: Const[u32],
                d: Const[f64]):
        i = vc.global_invocation_id().x
        out[i] = vc.to_float64(x[i] * a + vc.to_float(b)) + vc.to_float64(c) * d

    x = rng.standard_normal(N).astype(np.float32)
    a = float(rng.uniform(-3, 3))
    b = int(rng.integers(-(10 ** 6), 10 ** 6))
    c = int(rng.integers(2 ** 31, 2 ** 32))       # above int32: must stay unsigned
    d = float(rng.uniform(1, 2)) / 3 * 1e-3        # needs double precision
    out = vd.Buffer((N,), vd.float64)
    scalars(out, vd.asbuffer(x), a, b, c, d)
    partial = (x * np.float32(a) + np.float32(b)).astype(np.float64)
    np.testing.assert_allclose(out.read(0), partial + c * d, rtol=1e-12)


def test_vector_constants_reach_the_shader_component_wise(context, rng):
    @vd.shader("out.size")
    def vectors(out: Buff[v4], x: Buff[v4], p: Const[v2], q: Const[v3], r: Const[v4],
                s: Const[iv2], t: Const[uv4]):
        i = vc.global_invocation_id().x
        extra = vc.to_vec4(p, vc.to_float(s.x), vc.to_float(s.y)) + vc.to_vec4(q, 0) \
            + vc.to_vec4(t)
        out[i] = x[i] * r + extra

    x = rng.standard_normal((N, 4)).astype(np.float32)
    p, q, r = (rng.standard_normal(k).astype(np.float32) for k in (2, 3, 4))
    s = rng.integers(-100, 100, 2, dtype=np.int32)
    t = rng.integers(0, 1000, 4, dtype=np.uint32)
    xbuf, out = vd.Buffer((N,), vd.vec4), vd.Buffer((N,), vd.vec4)
    xbuf.write(x)
    vectors(out, xbuf, p, list(q), tuple(r), s, t)   # arrays, lists and tuples are accepted
    extra = np.concatenate([p, s.astype(np.float32)]) + np.append(q, 0) + t
    np.testing.assert_allclose(out.read(0), x * r + extra, rtol=1e-6, atol=1e-5)


def test_dataclass_constant_fields_reach_the_shader(context, rng):
    @vd.shader("out.size")
    def with_params(out: Buff[f32], x: Buff[v2], p: Params):
        i = vc.global_invocation_id().x
        d = (x[i] - p.center).to_register("d")
        out[i] = vc.length(d) * p.gain + vc.to_float(p.offsets.x - p.offsets.z) \
            + vc.to_float(p.count)

    x = rng.standard_normal((N, 2)).astype(np.float32)
    params = Params(gain=float(rng.uniform(1, 2)),
                    offsets=tuple(int(v) for v in rng.integers(-50, 50, 3)),
                    center=tuple(float(v) for v in rng.standard_normal(2)),
                    count=int(rng.integers(1, 1000)))
    xbuf, out = vd.Buffer((N,), vd.vec2), vd.Buffer((N,), vd.float32)
    xbuf.write(x)
    with_params(out, xbuf, params)
    distance = np.linalg.norm(x.astype(np.float64) - np.array(params.center), axis=1)
    expected = (distance * params.gain + params.offsets[0] - params.offsets[2]
                + params.count)
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-5, atol=1e-4)


def test_immediate_var_values_act_like_constants(context, rng):
    @vd.shader("out.size")
    def push(out: Buff[f32], x: Buff[f32], k: Var[f32], shift: Var[i32], v: Var[v2]):
        i = vc.global_invocation_id().x
        out[i] = x[i] * k + vc.to_float(shift) + v.x * v.y

    x = rng.standard_normal(N).astype(np.float32)
    out = vd.Buffer((N,), vd.float32)
    xbuf = vd.asbuffer(x)
    for k, shift in ((1.5, -7), (-0.25, 3)):
        v = rng.standard_normal(2).astype(np.float32)
        push(out, xbuf, k, shift, v)
        np.testing.assert_allclose(out.read(0), x * np.float32(k) + shift + v[0] * v[1],
                                   rtol=1e-6, atol=1e-6)


def test_numpy_scalars_bools_and_0d_arrays_are_accepted_as_scalar_values(context, rng):
    @vd.shader("out.size")
    def affine(out: Buff[f32], x: Buff[f32], a: Const[f32], b: Const[i32], c: Var[f32],
               d: Var[u32]):
        i = vc.global_invocation_id().x
        out[i] = x[i] * a + vc.to_float(b) + c * vc.to_float(d)

    x = rng.standard_normal(N).astype(np.float32)
    xbuf, out = vd.asbuffer(x), vd.Buffer((N,), vd.float32)
    a, c = (float(v) for v in rng.uniform(-2, 2, 2))
    b, d = int(rng.integers(-50, 50)), int(rng.integers(0, 50))
    for values in ((a, b, c, d),
                   (np.float64(a), np.int64(b), np.float32(c), np.uint8(d)),
                   (np.array(a), np.array(b, np.int32), np.array([c]), True),
                   (a, b, c, False)):
        affine(out, xbuf, *values)
        ea, eb, ec, ed = (np.asarray(v).item() for v in values)
        expected = x * np.float32(ea) + np.float32(eb) + np.float32(ec) * np.float32(ed)
        np.testing.assert_allclose(out.read(0), expected, rtol=1e-6, atol=1e-5)


def test_parameter_defaults_apply_and_keywords_override(context, rng):
    @vd.shader("out.size")
    def affine(out: Buff[f32], x: Buff[f32], scale: Const[f32] = 2.0, bias: Var[f32] = -1.0):
        i = vc.global_invocation_id().x
        out[i] = x[i] * scale + bias

    x = rng.standard_normal(N).astype(np.float32)
    out = vd.Buffer((N,), vd.float32)
    xbuf = vd.asbuffer(x)
    affine(out, xbuf)
    np.testing.assert_allclose(out.read(0), x * 2 - 1, rtol=1e-6, atol=1e-6)
    affine(out, xbuf, bias=0.5)
    np.testing.assert_allclose(out.read(0), x * 2 + 0.5, rtol=1e-6, atol=1e-6)
    affine(x=xbuf, out=out, scale=-3.0)
    np.testing.assert_allclose(out.read(0), x * -3 - 1, rtol=1e-6, atol=1e-6)


def test_omitted_parameters_with_none_default_read_zero(context, rng):
    @vd.shader("out.size")
    def optional(out: Buff[f32], iout: Buff[i32], x: Buff[f32], a: Const[f32] = None,
                 b: Const[i32] = None, c: Var[v2] = None, d: Const[v4] = None):
        i = vc.global_invocation_id().x
        out[i] = x[i] * 3 + a + c.x + c.y + d.w
        iout[i] = vc.to_int(x[i] * 100) + b

    x = rng.standard_normal(N).astype(np.float32)
    out, iout = vd.Buffer((N,), vd.float32), vd.Buffer((N,), vd.int32)
    optional(out, iout, vd.asbuffer(x))
    np.testing.assert_allclose(out.read(0), x * 3, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(iout.read(0), np.trunc(x * np.float32(100)).astype(np.int32))
    optional(out, iout, vd.asbuffer(x), 1.5, -4, (0.25, 0.5), (0, 0, 0, 2))  # given: used
    np.testing.assert_allclose(out.read(0), x * 3 + 1.5 + 0.75 + 2, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(iout.read(0),
                                  np.trunc(x * np.float32(100)).astype(np.int32) - 4)


def test_const_values_are_frozen_per_recorded_call(context, rng):
    @vd.shader("x.size")
    def affine(x: Buff[f32], a: Const[f32], b: Const[f32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] * a + b

    start = rng.standard_normal(N).astype(np.float32)
    x = vd.asbuffer(start)
    graph = vd.CommandGraph()
    coefficients = [(float(a), float(b)) for a, b in rng.uniform(-2, 2, (4, 2))]
    for a, b in coefficients:         # each call keeps its own uniform slice
        affine(x, a, b, graph=graph)
    graph.submit()
    expected = start.astype(np.float64)
    for a, b in coefficients:
        expected = expected * a + b
    np.testing.assert_allclose(x.read(0), expected, rtol=1e-5, atol=1e-5)
    graph.submit()                    # a replay reuses the uploaded constants
    for a, b in coefficients:
        expected = expected * a + b
    np.testing.assert_allclose(x.read(0), expected, rtol=1e-5, atol=1e-5)
    graph.destroy()
