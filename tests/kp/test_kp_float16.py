"""Half precision (Kompute issue #416): shaders over float16_t buffers made from numpy float16
arrays, computing in float16_t or in float, against numpy on random data. (test_kp_tensor and
test_kp_image take float16 tensors and images through the device.)"""
from __future__ import annotations

import numpy as np
from kp_programs import run, shader

import kp

PUSH = "layout(push_constant) uniform P { float a; float b; };"
HALF_ARITHMETIC = "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n" + PUSH
HALF_STORAGE = "#extension GL_EXT_shader_16bit_storage : require\n" + PUSH
TINY = 2.0**-24  # float16's smallest subnormal


def half_inputs(rng, n: int) -> np.ndarray:
    """float16 values in +-[0.25, 8), never zero."""
    return (rng.uniform(0.25, 8, n) * rng.choice([-1, 1], n)).astype(np.float16)


def axpb(mgr, body: str, head: str, x: np.ndarray, a: float, b: float) -> np.ndarray:
    """y from ``body`` (y = a * x + b over float16_t buffers x and y)."""
    out = mgr.tensor_t(np.zeros_like(x))
    algorithm = mgr.algorithm([mgr.tensor_t(x), out],
                              shader(body, "float16_t x", "float16_t y", head=head),
                              push_consts=[a, b])
    run(mgr, algorithm, [out])
    assert out.data_type() is kp.float16 and out.data().dtype == np.float16
    return out.data().copy()


def test_float16_arithmetic_matches_numpy(mgr, rng):
    x = half_inputs(rng, 1000)
    a, b = 1.7, -2.3
    y = axpb(mgr, "y[i] = float16_t(a) * x[i] + float16_t(b);", HALF_ARITHMETIC, x, a, b)
    # Exact from the float16 operands; the device rounds the product and the sum (or once, fused)
    # to float16, each within half a unit in the last place (2^-11 relative).
    product = np.float64(np.float16(a)) * x.astype(np.float64)
    exact = product + np.float64(np.float16(b))
    bound = 2.0**-10 * np.abs(product) + 2.0**-11 * np.abs(exact) + TINY
    assert np.all(np.abs(y.astype(np.float64) - exact) <= bound), np.max(np.abs(y - exact) / bound)


def test_float_arithmetic_over_float16_storage_matches_numpy(mgr, rng):
    x = half_inputs(rng, 1000)
    a, b = -0.37, 5.1
    y = axpb(mgr, "y[i] = float16_t(a * float(x[i]) + b);", HALF_STORAGE, x, a, b)
    # numpy's float32 result rounded to float16; the device's conversion may round otherwise.
    expected = (np.float32(a) * x.astype(np.float32) + np.float32(b)).astype(np.float16)
    np.testing.assert_array_max_ulp(y, expected, maxulp=1)
