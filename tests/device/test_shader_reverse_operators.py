"""Device tests of Python operators with the literal on the LEFT (``1 - x``, ``2.5 / x``,
``7 // x``, ``7 % x``, ``3 ** x``) and of unary minus, on int32/uint32/int64/uint64/float32/
float64 scalars and a float32 vector, including the mixed int/float promotions.

Each case is one lambda applied twice: to the shader value (where Python calls ``__rsub__``,
``__rtruediv__``, ...) and to an independent host model: Python ints wrapped to the result's
width for integer results (GLSL integer arithmetic wraps modulo 2**bits), float64 for float
results. GLSL's ``/`` truncates and its ``%`` is undefined for negative operands, and the
codegen promises nothing more (``vkdispatch/codegen/operators.py`` emits ``/`` and ``%``), so
``//`` and ``%`` are checked on positive operands, where Python and GLSL agree.
"""
# No `from __future__ import annotations`: the shaders' annotations name closure variables.

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import Buff, f32, f64, i32, i64, u32, u64, v3

N = 1000  # not a multiple of the default workgroup size

NUMPY = {f32: np.float32, f64: np.float64, i32: np.int32, u32: np.uint32, i64: np.int64,
         u64: np.uint64, v3: np.float32}


def _full_range(rng, var_type):
    info = np.iinfo(NUMPY[var_type])
    return rng.integers(info.min, info.max, N, dtype=NUMPY[var_type], endpoint=True)


# Inputs, by name: every entry draws N values of the operand type.
DOMAINS = {
    "full": _full_range,
    "nonzero": lambda rng, t: rng.uniform(0.5, 8, N) * rng.choice([-1.0, 1.0], N),
    "exponent": lambda rng, t: rng.uniform(-3, 3, N),
    "divisor": lambda rng, t: rng.integers(1, 1000, N),       # positive: // and % agree
    "small": lambda rng, t: rng.integers(1, 12, N),           # 7 // x takes several values
    "int_exponent": lambda rng, t: rng.integers(-4, 7, N),
    "million": lambda rng, t: rng.integers(-10 ** 6, 10 ** 6, N),  # exact in float32
    "vector": lambda rng, t: rng.uniform(0.5, 8, (N, 3)) * rng.choice([-1.0, 1.0], (N, 3)),
}

#: (operand type, domain, expression, result type)
CASES = [
    # float32: the literal's value and side both matter
    (f32, "nonzero", "1 - x", f32), (f32, "nonzero", "5 - x", f32),
    (f32, "nonzero", "0.25 - x", f32), (f32, "nonzero", "2.5 / x", f32),
    (f32, "nonzero", "7 / x", f32), (f32, "nonzero", "7 - x", f32),
    (f32, "exponent", "3 ** x", f32), (f32, "exponent", "0.5 ** x", f32),
    (f32, "nonzero", "-x", f32), (f32, "nonzero", "1 - -x", f32),
    # int32: wrapping subtraction and negation over the full range
    (i32, "full", "1 - x", i32), (i32, "full", "5 - x", i32), (i32, "full", "-3 - x", i32),
    (i32, "full", "-x", i32),
    (i32, "small", "7 // x", i32), (i32, "small", "7 % x", i32),
    (i32, "divisor", "100003 // x", i32), (i32, "divisor", "100003 % x", i32),
    (i32, "divisor", "64 // x", i32),  # a power of two on the left must not become a shift
    # int32 with float literals, and true division: float32 results
    (i32, "million", "1.5 - x", f32), (i32, "divisor", "2.5 / x", f32),
    (i32, "divisor", "7 / x", f32), (i32, "int_exponent", "3 ** x", f32),
    # uint32: wrapping modulo 2**32; a negative literal makes the result int32
    (u32, "full", "5 - x", u32), (u32, "full", "3000000000 - x", u32), (u32, "full", "-x", u32),
    (u32, "full", "-3 - x", i32),
    (u32, "small", "7 // x", u32), (u32, "small", "7 % x", u32),
    (u32, "divisor", "100003 % x", u32), (u32, "divisor", "64 // x", u32),
    (u32, "full", "1.5 - x", f32), (u32, "divisor", "7 / x", f32),
    # float64: literals are spelled as doubles (0.1 is not a float32 value)
    (f64, "nonzero", "0.1 - x", f64), (f64, "nonzero", "1 - x", f64),
    (f64, "nonzero", "2.5 / x", f64), (f64, "nonzero", "0.1 / x", f64),
    (f64, "nonzero", "-x", f64), (f64, "nonzero", "7 - x", f64),
    # 64-bit integers
    (i64, "full", "5 - x", i64), (i64, "full", "-3 - x", i64), (i64, "full", "-x", i64),
    (i64, "small", "7 // x", i64), (i64, "divisor", "100003 % x", i64),
    (u64, "full", "5 - x", u64), (u64, "full", "-x", u64),
    # a float32 vector: the scalar literal broadcasts on the left
    (v3, "vector", "1 - x", v3), (v3, "vector", "2.5 / x", v3), (v3, "vector", "-x", v3),
]

REQUIRES = {f64: "float_64_support", i64: "int_64_support", u64: "int_64_support"}


def _wrap(values, var_type) -> np.ndarray:
    """Python ints reduced to the two's-complement range of ``var_type``."""
    bits = 8 * var_type.item_size
    signed = np.iinfo(NUMPY[var_type]).min < 0
    offset = 2 ** (bits - 1) if signed else 0
    return np.array([(int(v) + offset) % 2 ** bits - offset for v in values], NUMPY[var_type])


def _reference(expression: str, x: np.ndarray, result_type) -> np.ndarray:
    function = eval(f"lambda x: {expression}", {})  # the same text the shader traced
    if dt.is_integer_dtype(result_type):
        return _wrap(function(x.astype(object)), result_type)
    return np.asarray(function(x.astype(np.float64)), np.float64)


def _float_tolerance(expression: str, result_type) -> dict:
    if result_type is f64:
        return {"rtol": 1e-15, "atol": 0}   # + - * / are correctly rounded (2.5 ulp for /)
    if "**" in expression:
        return {"rtol": 1e-5, "atol": 0}    # pow is exp2(y * log2(x)): a few ulp per step
    return {"rtol": 1e-6, "atol": 1e-6}     # float32 conversions and / (2.5 ulp)


@pytest.mark.parametrize("operand_type, domain, expression, result_type", CASES,
                         ids=[f"{t.name}: {e}" for t, _d, e, _r in CASES])
def test_operator_with_literal_on_the_left_matches_numpy(context, rng, operand_type, domain,
                                                         expression, result_type):
    feature = REQUIRES.get(operand_type)
    if feature and not all(getattr(info, feature) for info in context.device_infos):
        pytest.skip(f"the device lacks {feature}")
    function = eval(f"lambda x: {expression}", {})

    @vd.shader("out.size")
    def apply(out: Buff[result_type], src: Buff[operand_type]):
        i = vc.global_invocation_id().x
        value = function(src[i].to_register("x"))
        assert value.var_type is result_type, f"{expression} traced as {value.var_type.name}"
        out[i] = value

    x = np.asarray(DOMAINS[domain](rng, operand_type)).astype(NUMPY[operand_type])
    src = vd.Buffer((N,), operand_type)
    src.write(x)
    out = vd.Buffer((N,), result_type)
    apply(out, src)
    expected = _reference(expression, x, result_type)
    actual = out.read(0)
    assert actual.shape == expected.shape
    if dt.is_integer_dtype(result_type):
        np.testing.assert_array_equal(actual, expected, err_msg=expression)
    else:
        np.testing.assert_allclose(actual, expected, err_msg=expression,
                                   **_float_tolerance(expression, result_type))


def test_reverse_operator_model_wraps_and_promotes_like_glsl():
    x = np.array([0, 6, 2 ** 31 - 1], np.int64)
    np.testing.assert_array_equal(_reference("5 - x", x.astype(np.uint32), u32),
                                  np.array([5, 2 ** 32 - 1, 2 ** 31 + 6], np.uint32))
    np.testing.assert_array_equal(_reference("-3 - x", x.astype(np.int32), i32),
                                  np.array([-3, -9, 2 ** 31 - 2], np.int32))
    np.testing.assert_array_equal(_reference("7 // x", np.array([1, 2, 8]), i32), [7, 3, 0])
    np.testing.assert_allclose(_reference("3 ** x", np.array([-1, 2]), f32), [1 / 3, 9])
