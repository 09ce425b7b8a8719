"""Device tests of traced arithmetic: scalar chains on float32/int32/uint32/float64 buffers,
mixed Python literals, casts, vector components and swizzles, and complex products — every
result is compared with numpy on random data.

Tolerances: integer results must match exactly (GLSL integer arithmetic wraps like numpy's
fixed-width types). float32 chains of + - * / are correctly rounded per operation, so the
accumulated error is a few ulp: rtol=1e-5 with an absolute floor scaled to the operands.
float64 arithmetic (+ - * / sqrt are exact in Vulkan) uses rtol=1e-12.
"""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import (Buff, Const, c64, c128, f16, f32, f64, i32, i64,
                                              iv2, u32, u64, v2, v3, v4)

N = 3000  # not a multiple of the default workgroup size: the bounds guard is exercised too


def _require(context, feature: str) -> None:
    if not all(getattr(info, feature) for info in context.device_infos):
        pytest.skip(f"the device lacks {feature}")


def _buffer(array: np.ndarray, var_type=None) -> vd.Buffer:
    if var_type is None:
        return vd.asbuffer(np.ascontiguousarray(array))
    buffer = vd.Buffer((array.shape[0],), var_type)
    buffer.write(np.ascontiguousarray(array))
    return buffer


def test_float32_chain_with_literals_matches_numpy(context, rng):
    @vd.shader("out.size")
    def chain(out: Buff[f32], a: Buff[f32], b: Buff[f32]):
        i = vc.global_invocation_id().x
        x = a[i].to_register("x")
        y = b[i].to_register("y")
        out[i] = (x + y) * 1.5 - x / (y * y + 2) + (-x) * y - 0.25 + 3 / (x * x + 1) + x ** 2

    a = rng.uniform(-10, 10, N).astype(np.float32)
    b = rng.uniform(-10, 10, N).astype(np.float32)
    out = vd.Buffer((N,), vd.float32)
    chain(out, _buffer(a), _buffer(b))
    x, y = a.astype(np.float64), b.astype(np.float64)
    expected = (x + y) * 1.5 - x / (y * y + 2) + (-x) * y - 0.25 + 3 / (x * x + 1) + x ** 2
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-5, atol=1e-4)


def test_float32_true_division_of_ints_gives_float(context, rng):
    @vd.shader("out.size")
    def divide(out: Buff[f32], a: Buff[i32], b: Buff[i32]):
        i = vc.global_invocation_id().x
        out[i] = a[i] / b[i] + 7 / b[i]

    a = rng.integers(-1000, 1000, N, dtype=np.int32)
    b = rng.integers(1, 50, N, dtype=np.int32) * rng.choice(np.array([-1, 1], np.int32), N)
    out = vd.Buffer((N,), vd.float32)
    divide(out, _buffer(a), _buffer(b))
    expected = a.astype(np.float64) / b + 7.0 / b
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-6, atol=1e-6)


def test_int32_chain_wraps_like_numpy(context, rng):
    @vd.shader("out.size")
    def chain(out: Buff[i32], a: Buff[i32], b: Buff[i32]):
        i = vc.global_invocation_id().x
        x = a[i].to_register("x")
        y = b[i].to_register("y")
        out[i] = (x + y) * 3 - x * y + (-y) - 17 + x ** 3 + (x << 2) - (y & 255) + (x ^ y)

    a = rng.integers(-(2 ** 31), 2 ** 31 - 1, N, dtype=np.int32)  # products overflow and wrap
    b = rng.integers(-(2 ** 31), 2 ** 31 - 1, N, dtype=np.int32)
    out = vd.Buffer((N,), vd.int32)
    chain(out, _buffer(a), _buffer(b))
    with np.errstate(over="ignore"):
        expected = ((a + b) * np.int32(3) - a * b + (-b) - np.int32(17) + a * a * a
                    + (a << 2) - (b & 255) + (a ^ b))
    np.testing.assert_array_equal(out.read(0), expected)


@pytest.mark.parametrize("signs", ["non-negative", "any"])
def test_int32_floor_division_and_modulus_match_numpy(context, rng, signs):
    """Python's rule (numpy's too) for // and %, whatever the signs, with the divisor a runtime
    value, a power of two, another literal or a negative literal."""
    @vd.shader("out.size")
    def divmod_kernel(out: Buff[i32], a: Buff[i32], b: Buff[i32]):
        i = vc.global_invocation_id().x
        out[i] = (a[i] // b[i] * 100 + a[i] % b[i] + a[i] // 8 + a[i] % 7 - a[i] // 3
                  + a[i] % 16 + a[i] // -5 + a[i] % -6 + 1000 // b[i] + 1000 % b[i])

    low = 0 if signs == "non-negative" else -2 ** 31 + 1
    a = rng.integers(low, 2 ** 31 - 1, N, dtype=np.int32)
    b = rng.integers(1, 100, N, dtype=np.int32)
    if signs == "any":
        b *= rng.choice(np.array([-1, 1], np.int32), N)
        a[:8] = [-7, 7, -8, 8, 0, -1, -100, 100]  # exact multiples and small remainders
    out = vd.Buffer((N,), vd.int32)
    divmod_kernel(out, _buffer(a), _buffer(b))
    with np.errstate(over="ignore"):
        expected = (a // b * np.int32(100) + a % b + a // 8 + a % 7 - a // 3 + a % 16
                    + a // np.int32(-5) + a % np.int32(-6) + np.int32(1000) // b
                    + np.int32(1000) % b).astype(np.int32)
    np.testing.assert_array_equal(out.read(0), expected)


def test_ivec2_floor_division_and_modulus_match_numpy(context, rng):
    @vd.shader("out.size")
    def divmod_vectors(out: Buff[iv2], a: Buff[iv2], b: Buff[iv2]):
        i = vc.global_invocation_id().x
        out[i] = a[i] // b[i] * 1000 + a[i] % b[i] + a[i] // 3 + a[i] % -7

    a = rng.integers(-10 ** 5, 10 ** 5, (N, 2), dtype=np.int32)
    b = rng.integers(1, 50, (N, 2), dtype=np.int32) * rng.choice(np.array([-1, 1], np.int32),
                                                                   (N, 2))
    out = vd.Buffer((N,), vd.ivec2)
    divmod_vectors(out, _buffer(a, vd.ivec2), _buffer(b, vd.ivec2))
    expected = a // b * 1000 + a % b + a // 3 + a % np.int32(-7)
    np.testing.assert_array_equal(out.read(0).reshape(N, 2), expected)


def test_in_place_floor_division_and_modulus_of_negative_int32_match_numpy(context, rng):
    @vd.shader("a.size")
    def in_place(a: Buff[i32], b: Buff[i32]):
        i = vc.global_invocation_id().x
        r = a[i].to_register()
        r //= b[i]
        r %= 7
        q = a[i].to_register()
        q %= b[i]
        a[i] = r * 1000 + q

    a = rng.integers(-10 ** 6, 10 ** 6, N, dtype=np.int32)
    b = rng.integers(1, 50, N, dtype=np.int32) * rng.choice(np.array([-1, 1], np.int32), N)
    buffer = _buffer(a)
    in_place(buffer, _buffer(b))
    np.testing.assert_array_equal(buffer.read(0), (a // b % 7) * 1000 + a % b)


def test_uint32_chain_wraps_like_numpy(context, rng):
    @vd.shader("out.size")
    def chain(out: Buff[u32], a: Buff[u32], b: Buff[u32]):
        i = vc.global_invocation_id().x
        x = a[i].to_register("x")
        y = b[i].to_register("y")
        out[i] = (x * 7 + y) // 4 + x % (y + 1) + x * 8 - 3 + (x >> 3) + (y | 1) + x ** 2

    a = rng.integers(0, 2 ** 32 - 1, N, dtype=np.uint32)
    b = rng.integers(0, 2 ** 31, N, dtype=np.uint32)
    out = vd.Buffer((N,), vd.uint32)
    chain(out, _buffer(a), _buffer(b))
    with np.errstate(over="ignore"):
        u = np.uint32
        expected = ((a * u(7) + b) // u(4) + a % (b + u(1)) + a * u(8) - u(3) + (a >> u(3))
                    + (b | u(1)) + a * a)
    np.testing.assert_array_equal(out.read(0), expected)


def test_float64_chain_keeps_double_precision(context, rng):
    _require(context, "float_64_support")
    @vd.shader("out.size")
    def chain(out: Buff[f64], a: Buff[f64], b: Buff[f64]):
        i = vc.global_invocation_id().x
        x = a[i].to_register("x")
        y = b[i].to_register("y")
        out[i] = (x * y + 0.1) / (y * y + 1.0) - x ** 2 + (-x) * 3 + vc.sqrt(y * y + 2)

    a = rng.standard_normal(N) * 1e3
    b = rng.standard_normal(N)
    out = vd.Buffer((N,), vd.float64)
    chain(out, _buffer(a), _buffer(b))
    expected = (a * b + 0.1) / (b * b + 1.0) - a ** 2 + (-a) * 3 + np.sqrt(b * b + 2)
    # float32 evaluation would be off by ~1e-7 relative: this proves doubles stay doubles.
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-12)


def test_casts_between_int_uint_and_float_match_numpy(context, rng):
    @vd.shader("f.size")
    def casts(f: Buff[f32], i: Buff[i32], u: Buff[u32], src: Buff[f32]):
        t = vc.global_invocation_id().x
        x = src[t].to_register("x")
        i[t] = vc.to_int(x) + x.to_dtype(vd.int32) * 2     # truncation toward zero
        u[t] = vc.to_uint(vc.abs(x)) + vc.to_uint(t)
        f[t] = vc.to_float(vc.to_int(x * 10)) / 10 + vc.to_float(t)

    src = rng.uniform(-1000, 1000, N).astype(np.float32)
    f = vd.Buffer((N,), vd.float32)
    i = vd.Buffer((N,), vd.int32)
    u = vd.Buffer((N,), vd.uint32)
    casts(f, i, u, _buffer(src))
    index = np.arange(N)
    np.testing.assert_array_equal(i.read(0), np.trunc(src).astype(np.int32) * 3)
    np.testing.assert_array_equal(u.read(0), np.trunc(np.abs(src)).astype(np.uint32) + index)
    tenths = np.trunc(src * np.float32(10)).astype(np.int32).astype(np.float32)
    expected = tenths / np.float32(10) + index.astype(np.float32)   # float32 arithmetic
    # Vulkan allows 2.5 ulp for float division (GPUs multiply by the reciprocal).
    np.testing.assert_allclose(f.read(0), expected, rtol=1e-6, atol=3e-4)


def test_int_literal_assigned_to_float_target_is_converted(context, rng):
    @vd.shader("out.size")
    def fill(out: Buff[f32], src: Buff[f32]):
        i = vc.global_invocation_id().x
        r = vc.new_float_register(var_name="r")
        r[:] = 3                      # int literal into a float register
        with vc.if_block(src[i] > 0):
            r[:] = src[i] * 2
        out[i] = r

    src = rng.standard_normal(N).astype(np.float32)
    out = vd.Buffer((N,), vd.float32)
    fill(out, _buffer(src))
    np.testing.assert_allclose(out.read(0), np.where(src > 0, src * 2, 3.0), rtol=1e-7)


def test_in_place_operators_update_buffer_elements(context, rng):
    @vd.shader("a.size")
    def update(a: Buff[f32], b: Buff[i32], s: Const[f32]):
        i = vc.global_invocation_id().x
        a[i] += s
        a[i] *= 2.0
        a[i] -= 1
        b[i] += 5
        b[i] *= 3
        b[i] //= 2

    a = rng.uniform(-100, 100, N).astype(np.float32)
    b = rng.integers(0, 10 ** 6, N, dtype=np.int32)
    abuf, bbuf = _buffer(a), _buffer(b)
    update(abuf, bbuf, 0.75)
    np.testing.assert_allclose(abuf.read(0), (a + np.float32(0.75)) * 2 - 1, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(bbuf.read(0), (b + 5) * 3 // 2)


def test_vec4_components_and_swizzles_match_numpy(context, rng):
    @vd.shader("out.size")
    def swizzles(out: Buff[v4], a: Buff[v4], b: Buff[v2], s: Const[f32], c: Const[v4]):
        i = vc.global_invocation_id().x
        p = a[i].to_register("p")
        q = b[i].to_register("q")
        r = (p.swizzle("wzyx") * s + c).to_register("r")
        r.x = r.x + q.y
        r.y = p.w * q.x
        r[2] = -p[2]
        out[i] = r + vc.to_vec4(q.swizzle("xy"), q.swizzle("yx")) * 2

    a = rng.standard_normal((N, 4)).astype(np.float32)
    b = rng.standard_normal((N, 2)).astype(np.float32)
    c = rng.standard_normal(4).astype(np.float32)
    out = vd.Buffer((N,), vd.vec4)
    swizzles(out, _buffer(a, vd.vec4), _buffer(b, vd.vec2), 1.5, c)
    expected = a[:, ::-1] * np.float32(1.5) + c
    expected[:, 0] += b[:, 1]
    expected[:, 1] = a[:, 3] * b[:, 0]
    expected[:, 2] = -a[:, 2]
    expected += 2 * np.concatenate([b, b[:, ::-1]], axis=1)
    result = out.read(0)
    assert result.shape == (N, 4)
    np.testing.assert_allclose(result, expected, rtol=1e-6, atol=1e-6)


def test_vec2_arithmetic_with_scalars_broadcasts(context, rng):
    @vd.shader("out.size")
    def vec_ops(out: Buff[v2], a: Buff[v2], b: Buff[v2], k: Buff[f32]):
        i = vc.global_invocation_id().x
        out[i] = (a[i] + b[i]) * k[i] - a[i] / 2 + 1.0

    a, b = (rng.standard_normal((N, 2)).astype(np.float32) for _ in range(2))
    k = rng.standard_normal(N).astype(np.float32)
    out = vd.Buffer((N,), vd.vec2)
    vec_ops(out, _buffer(a, vd.vec2), _buffer(b, vd.vec2), _buffer(k))
    expected = (a + b) * k[:, None] - a / 2 + 1.0
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-5, atol=1e-6)


def test_ivec2_and_vec3_buffers_round_trip_through_registers(context, rng):
    @vd.shader("iv.size")
    def shuffle(iv: Buff[iv2], v: Buff[v3]):
        i = vc.global_invocation_id().x
        x = iv[i].to_register("x")
        y = v[i].to_register("y")
        iv[i] = vc.to_ivec2(x.y * 2, x.x - x.y)
        v[i] = vc.to_vec3(y.z, y.x + y.y, vc.to_float(x.x))

    ints = rng.integers(-10 ** 6, 10 ** 6, (N, 2), dtype=np.int32)
    floats = rng.standard_normal((N, 3)).astype(np.float32)
    ibuf, vbuf = _buffer(ints, vd.ivec2), _buffer(floats, vd.vec3)
    shuffle(ibuf, vbuf)
    np.testing.assert_array_equal(ibuf.read(0), np.stack([ints[:, 1] * 2,
                                                          ints[:, 0] - ints[:, 1]], 1))
    expected = np.stack([floats[:, 2], floats[:, 0] + floats[:, 1],
                         ints[:, 0].astype(np.float32)], 1)
    np.testing.assert_allclose(vbuf.read(0), expected, rtol=1e-6, atol=1e-6)


def test_mult_complex_matches_numpy_products(context, rng):
    @vd.shader("out.size")
    def cmul(out: Buff[c64], a: Buff[c64], b: Buff[c64], k: Const[f32]):
        i = vc.global_invocation_id().x
        x = a[i].to_register("x")
        prod = vc.mult_complex(x, b[i]).to_register("prod")
        prod.real = prod.real + vc.mult_complex(x, 2.0).real
        out[i] = prod + vc.mult_complex(x, 1j * 0.5) + vc.mult_complex(k, x.conjugate())

    def complex_values():
        return (rng.standard_normal(N) + 1j * rng.standard_normal(N)).astype(np.complex64)

    a, b = complex_values(), complex_values()
    out = vd.Buffer((N,), vd.complex64)
    cmul(out, _buffer(a), _buffer(b), 1.25)
    a64, b64 = a.astype(np.complex128), b.astype(np.complex128)
    expected = a64 * b64 + 2 * a64.real + a64 * 0.5j + 1.25 * np.conj(a64)
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-5, atol=1e-5)


def test_int64_and_uint64_chain_matches_numpy(context, rng):
    _require(context, "int_64_support")

    @vd.shader("out.size")
    def wide(out: Buff[i64], a: Buff[i64], b: Buff[u64], c: Const[i64]):
        i = vc.global_invocation_id().x
        out[i] = a[i] * 3 + vc.to_int64(b[i] >> 7) - c + a[i] // 5 - a[i] % 1000

    a = rng.integers(0, 2 ** 60, N, dtype=np.int64)
    b = rng.integers(0, 2 ** 63, N, dtype=np.uint64)
    c = -(2 ** 40) + int(rng.integers(1, 1000))   # needs more than 32 bits
    out = vd.Buffer((N,), vd.int64)
    wide(out, _buffer(a), _buffer(b), c)
    with np.errstate(over="ignore"):
        expected = a * 3 + (b >> np.uint64(7)).astype(np.int64) - c + a // 5 - a % 1000
    np.testing.assert_array_equal(out.read(0), expected)


def test_float16_chain_matches_numpy_within_half_precision(context, rng):
    _require(context, "float_16_support")
    _require(context, "storage_buffer_16_bit_access")

    @vd.shader("out.size")
    def half(out: Buff[f16], a: Buff[f16], b: Buff[f32]):
        i = vc.global_invocation_id().x
        out[i] = a[i] * 2 + vc.to_float16(b[i]) - vc.to_float16(1.5)

    a = rng.uniform(-4, 4, N).astype(np.float16)
    b = rng.uniform(-4, 4, N).astype(np.float32)
    out = vd.Buffer((N,), vd.float16)
    half(out, _buffer(a), _buffer(b))
    expected = a.astype(np.float64) * 2 + b.astype(np.float16) - 1.5
    # each of the three roundings costs at most half an ulp of float16 (2**-11 relative)
    np.testing.assert_allclose(out.read(0).astype(np.float64), expected, rtol=2e-3, atol=2e-3)


def test_complex128_product_and_conjugate_keep_double_precision(context, rng):
    _require(context, "float_64_support")

    @vd.shader("out.size")
    def cmul(out: Buff[c128], a: Buff[c128], b: Buff[c128]):
        i = vc.global_invocation_id().x
        out[i] = vc.mult_complex(a[i], b[i]) + a[i].conjugate()

    a = rng.standard_normal(N) + 1j * rng.standard_normal(N)
    b = rng.standard_normal(N) + 1j * rng.standard_normal(N)
    out = vd.Buffer((N,), vd.complex128)
    cmul(out, _buffer(a), _buffer(b))
    np.testing.assert_allclose(out.read(0), a * b + np.conj(a), rtol=1e-12, atol=1e-12)


def test_conjugate_view_assigned_whole_stays_conjugated(context, rng):
    @vd.shader("out.size")
    def conj(out: Buff[c64], parts: Buff[v2], a: Buff[c64]):
        i = vc.global_invocation_id().x
        view = a[i].conjugate()
        out[i] = view                          # vkdispatch 0.1.0 dropped the conjugation
        parts[i] = vc.to_vec2(view.real, view.imag)

    a = (rng.standard_normal(N) + 1j * rng.standard_normal(N)).astype(np.complex64)
    out, parts = vd.Buffer((N,), vd.complex64), vd.Buffer((N,), vd.vec2)
    conj(out, parts, _buffer(a))
    np.testing.assert_array_equal(out.read(0), np.conj(a))
    np.testing.assert_array_equal(parts.read(0), np.stack([a.real, -a.imag], axis=1))


def test_integer_and_float_powers_with_small_exponents_match_numpy(context, rng):
    @vd.shader("out.size")
    def powers(out: Buff[i32], f: Buff[f32], a: Buff[i32]):
        i = vc.global_invocation_id().x
        out[i] = a[i] ** 0 + a[i] ** 2 + a[i] ** 1      # integer multiplications, exact
        f[i] = f[i] ** 0 + f[i] ** 3 + f[i] ** -2 + f[i] ** 0.5

    a = rng.integers(-40000, 40000, N, dtype=np.int32)
    x = rng.uniform(0.5, 2, N).astype(np.float32)
    out, fbuf = vd.Buffer((N,), vd.int32), _buffer(x)
    powers(out, fbuf, _buffer(a))
    np.testing.assert_array_equal(out.read(0), 1 + a * a + a)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(fbuf.read(0), 1 + x64 ** 3 + x64 ** -2 + np.sqrt(x64),
                               rtol=1e-5)


def test_folded_integer_index_arithmetic_matches_numpy(context, rng):
    """Strength-reduced and folded forms (x * 0, x + 0, u % 2^k as a mask, u // 2^k as a
    shift) compute what numpy does on random unsigned and signed values."""
    @vd.shader("out.size")
    def folded(out: Buff[u32], u: Buff[u32], s: Buff[i32], zero_stride: Const[u32]):
        i = vc.global_invocation_id().x
        j = i * 1 + zero_stride * 0 + 0
        out[i] = u[j] % 16 + (u[j] // 8) * 3 + vc.to_dtype(vd.uint32, s[j] * 0 + s[j] % 5)

    u = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    s = rng.integers(0, 2**31, N).astype(np.int32)  # non-negative: GLSL % of negatives differs
    out = vd.Buffer((N,), vd.uint32)
    folded(out, _buffer(u), _buffer(s), 7)
    expected = u % 16 + (u // 8) * np.uint32(3) + (s % 5).astype(np.uint32)
    np.testing.assert_array_equal(out.read(0), expected)
