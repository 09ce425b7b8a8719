"""Device tests of ``Const`` (uniform) and ``Var`` (push-constant) parameters of the wider
types: complex64/complex128, mat2/mat3/mat4, float16 and int64/uint64, passed by an immediate
call, by calls recorded in a CommandGraph, and through ``bind_var``/``set_var`` with one value per
instance; plus float64 literals and constants whose double precision shows in the result.

Every shader computes a function of the received value that tells its parts apart (a complex
product, ``matrix @ vector`` with the documented column-major layout, ``x ^ value`` over all 64
bits) and writes it to the slot ``slot * N + i`` of an output buffer, so each instance or call
is checked on its own against numpy. Types the device lacks are skipped using the context's
device info.
"""
# No `from __future__ import annotations`: the shaders' annotations name closure variables.

import dataclasses
from typing import Callable

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import (Buff, Const, Var, c64, c128, dv4, f16, f32, f64,
                                              i64, m2, m3, m4, u32, u64, v2, v3, v4)

N = 700       # elements per slot; not a multiple of the default workgroup size
SLOTS = 3     # instances (or recorded calls) per graph test


@dataclasses.dataclass(frozen=True)
class Kind:
    """One parameter type: how to draw host values, what the shader computes from a value
    and a source element, and the numpy model of that."""

    var_type: type
    src_type: type
    out_type: type
    features: tuple[str, ...]
    draw: Callable        # (rng, count) -> array of `count` values
    draw_src: Callable    # rng -> N source elements
    shader: Callable      # (value, source element) -> shader expression
    model: Callable       # (one value, source array) -> expected output
    tolerance: dict

    @property
    def name(self) -> str:
        return self.var_type.name


def _complex(rng, shape, np_dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np_dtype)


def _matrix_kind(matrix, vector, size: int) -> Kind:
    # Column-major: the host array's first axis picks the column, so `M @ v` is `H.T @ v`.
    return Kind(matrix, vector, vector, (),
                lambda rng, k: rng.standard_normal((k, size, size)).astype(np.float32),
                lambda rng: rng.standard_normal((N, size)).astype(np.float32),
                lambda m, v: m @ v,
                lambda h, v: v.astype(np.float64) @ h.astype(np.float64),
                {"rtol": 1e-5, "atol": 1e-5})


KINDS = [
    Kind(c64, c64, c64, (),
         lambda rng, k: _complex(rng, k, np.complex64),
         lambda rng: _complex(rng, N, np.complex64),
         lambda z, a: vc.mult_complex(a, z),
         lambda z, a: a.astype(np.complex128) * complex(z),
         {"rtol": 1e-5, "atol": 1e-5}),
    # complex128 parts must stay doubles: float32 rounding would be off by ~1e-8
    Kind(c128, c128, c128, ("float_64_support",),
         lambda rng, k: _complex(rng, k, np.complex128) / 3,
         lambda rng: _complex(rng, N, np.complex128),
         lambda z, a: vc.mult_complex(a, z),
         lambda z, a: a * z,
         {"rtol": 1e-13, "atol": 1e-13}),
    _matrix_kind(m2, v2, 2), _matrix_kind(m3, v3, 3), _matrix_kind(m4, v4, 4),
    Kind(f16, f32, f32, ("float_16_support",),
         lambda rng, k: rng.uniform(-8, 8, k).astype(np.float16),
         lambda rng: rng.standard_normal(N).astype(np.float32),
         # h + h is exact in float16 (a driver may run half arithmetic in float32: h * h then
         # differs by less than a half ulp, which NVIDIA's did)
         lambda h, x: x * vc.to_float(h) - vc.to_float(h + h),
         lambda h, x: x.astype(np.float64) * float(h) - 2.0 * float(h),
         {"rtol": 1e-6, "atol": 1e-6}),
    # values beyond 32 bits; the sign / top bit must survive
    Kind(i64, i64, i64, ("int_64_support",),
         lambda rng, k: rng.integers(2 ** 40, 2 ** 62, k) * rng.choice([-1, 1], k),
         lambda rng: rng.integers(-(2 ** 60), 2 ** 60, N),
         lambda k, x: x - k,
         lambda k, x: x - np.int64(k),
         {}),
    Kind(u64, u64, u64, ("int_64_support",),
         lambda rng, k: rng.integers(2 ** 63, 2 ** 64 - 1, k, dtype=np.uint64, endpoint=True),
         lambda rng: rng.integers(0, 2 ** 64 - 1, N, dtype=np.uint64, endpoint=True),
         lambda u, x: x ^ u,
         lambda u, x: x ^ np.uint64(u),
         {}),
]

# 16-bit members of a uniform block / push-constant block need their own features.
_BLOCK_16_BIT = {Const: "uniform_and_storage_buffer_16_bit_access",
                 Var: "storage_push_constant_16"}


def _require(context, features) -> None:
    missing = [f for f in features if not all(getattr(i, f) for i in context.device_infos)]
    if missing:
        pytest.skip(f"the device lacks {', '.join(missing)}")


def _writer(context, kind: Kind, annotation):
    """A shader writing ``kind.shader(value, src[i])`` to ``out[slot * N + i]``."""
    features = kind.features
    if kind.var_type is f16:
        features += (_BLOCK_16_BIT[annotation],)
    _require(context, features)

    @vd.shader("src.size")
    def write(out: Buff[kind.out_type], src: Buff[kind.src_type], slot: Var[u32],
              value: annotation[kind.var_type]):
        i = vc.global_invocation_id().x
        out[slot * N + i] = kind.shader(value, src[i])

    return write


def _single(kind: Kind, values: np.ndarray, k: int):
    """Value ``k`` as a user passes one: a Python scalar, or an array for a matrix."""
    value = values[k]
    return value if value.ndim else value.item()


def _buffers(kind: Kind, rng):
    source = kind.draw_src(rng)
    src = vd.Buffer((N,), kind.src_type)
    src.write(source)
    return source, src, vd.Buffer((SLOTS * N,), kind.out_type)


def _check_slots(kind: Kind, out: vd.Buffer, source, values, slots: int) -> None:
    result = out.read(0)
    for k in range(slots):
        expected = kind.model(values[k], source)
        actual = result[k * N:(k + 1) * N]
        assert actual.shape == expected.shape
        if kind.tolerance:
            np.testing.assert_allclose(actual, expected, err_msg=f"slot {k}", **kind.tolerance)
        else:
            np.testing.assert_array_equal(actual, expected, err_msg=f"slot {k}")


IDS = [kind.name for kind in KINDS]


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_const_of_wide_type_reaches_the_shader(context, rng, kind):
    write = _writer(context, kind, Const)
    source, src, out = _buffers(kind, rng)
    values = kind.draw(rng, 1)
    write(out, src, 0, _single(kind, values, 0))
    _check_slots(kind, out, source, values, 1)


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_const_of_wide_type_is_frozen_per_recorded_call(context, rng, kind):
    write = _writer(context, kind, Const)
    source, src, out = _buffers(kind, rng)
    values = kind.draw(rng, SLOTS)
    graph = vd.CommandGraph()
    try:
        for k in range(SLOTS):
            write(out, src, k, _single(kind, values, k), graph=graph)
        graph.submit()
    finally:
        graph.destroy()
    _check_slots(kind, out, source, values, SLOTS)


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_var_of_wide_type_reaches_the_shader(context, rng, kind):
    write = _writer(context, kind, Var)
    source, src, out = _buffers(kind, rng)
    values = kind.draw(rng, 2)
    write(out, src, 0, _single(kind, values, 0))
    write(out, src, 1, _single(kind, values, 1))   # a new value per call
    _check_slots(kind, out, source, values, 2)


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_bound_var_of_wide_type_takes_one_value_per_instance(context, rng, kind):
    write = _writer(context, kind, Var)
    source, src, out = _buffers(kind, rng)
    values = kind.draw(rng, SLOTS)
    graph = vd.CommandGraph()
    try:
        write(out, src, graph.bind_var("slot"), graph.bind_var("value"), graph=graph)
        graph.set_var("slot", np.arange(SLOTS, dtype=np.uint32))
        graph.set_var("value", values)
        graph.submit(instance_count=SLOTS)
    finally:
        graph.destroy()
    _check_slots(kind, out, source, values, SLOTS)


def test_float64_literals_and_constants_keep_double_precision(context, rng):
    _require(context, ("float_64_support",))
    near_one = 1 + 1e-12            # 1.0 in float32

    @vd.shader("src.size")
    def shifted(out: Buff[dv4], src: Buff[f64], c: Const[f64], v: Var[f64]):
        i = vc.global_invocation_id().x
        x = src[i].to_register("x")
        out[i] = vc.to_dvec4(x + near_one, near_one - x, x * c, x + v)

    x = rng.uniform(1, 2, N)
    c = 1 + float(rng.uniform(1, 9)) * 1e-12
    v = -1 - float(rng.uniform(1, 9)) * 1e-13
    src, out = vd.asbuffer(x), vd.Buffer((N,), vd.dvec4)
    shifted(out, src, c, v)
    expected = np.stack([x + near_one, near_one - x, x * c, x + v], axis=1)
    # A value rounded to float32 anywhere (literal text, uniform, push constant, arithmetic) is
    # off by more than 1e-13. (glslang keeps a literal's double value even when the text has
    # an `f` suffix, so it is the digits that must be right.)
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-15, atol=0)
