"""Rader's algorithm without a device: which lengths it takes, its primitive roots, and its
table, whose kernel and permutations, run through the algorithm in numpy, give the DFT.

The shader itself is checked against numpy in tests/device/test_fft_rader.py.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from test_fft_planner import LAVAPIPE, SCARCE

from vkdispatch import dtypes as dt
from vkdispatch.fft.prime_utils import SUPPORTED_PRIMES
from vkdispatch.fft.rader import primitive_root, rader_budget, rader_prime, rader_table

def _is_prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, math.isqrt(n) + 1))


def _smooth(n: int) -> bool:
    for p in SUPPORTED_PRIMES:
        while n % p == 0:
            n //= p
    return n == 1


def test_rader_prime_takes_the_primes_above_31_whose_predecessor_is_smooth():
    for n in range(1, 3000):
        assert rader_prime(n) == (n > 31 and _is_prime(n) and _smooth(n - 1)), n
    assert [n for n in (37, 41, 47, 83, 107, 127, 149, 1009, 2017) if rader_prime(n)] == \
        [37, 41, 47, 127, 1009, 2017]


@pytest.mark.parametrize("p", [37, 41, 47, 53, 97, 127, 257, 1009, 2017, 4093])
def test_primitive_root_generates_every_nonzero_residue(p):
    g = primitive_root(p)
    assert sorted(pow(g, m, p) for m in range(p - 1)) == list(range(1, p))
    assert all(sorted(pow(h, m, p) for m in range(p - 1)) != list(range(1, p))
               for h in range(2, g))


def _rader_in_numpy(x: np.ndarray, inverse: bool, scale: float) -> np.ndarray:
    """The shader's steps on the table: gather, transform, multiply (bin 0 also gets x[0]),
    the adjoint transform, scatter; X[0] from bin 0 before the product."""
    p = len(x)
    table = rader_table(p, primitive_root(p), inverse, scale)
    kernel, powers = table[:p - 1], table[p - 1:]
    gathered, scattered = powers.real.astype(int), powers.imag.astype(int)
    spectrum = np.fft.fft(x[gathered])
    out = np.empty(p, dtype=np.complex128)
    out[0] = (x[0] + spectrum[0]) / scale
    product = spectrum * kernel
    product[0] += x[0] / scale
    out[scattered] = np.fft.ifft(product) * (p - 1)
    return out


@pytest.mark.parametrize("p", [37, 47, 127, 1009])
def test_the_table_computes_the_dft_in_numpy(p):
    rng = np.random.default_rng(p)
    x = rng.standard_normal(p) + 1j * rng.standard_normal(p)
    np.testing.assert_allclose(_rader_in_numpy(x, False, 1), np.fft.fft(x), rtol=0,
                               atol=1e-10 * np.abs(x).sum())
    np.testing.assert_allclose(_rader_in_numpy(x, True, p), np.fft.ifft(x), rtol=0,
                               atol=1e-12 * np.abs(x).sum())


def test_rader_budget_where_p_minus_1_fits_one_workgroup_else_none():
    for shape, axis in [((4, 37), 1), ((37, 5), 0), ((2, 1009), 1), ((3, 4093, 2), 1)]:
        assert rader_budget(shape, axis, dt.complex64, LAVAPIPE) is not None, shape
    for shape in [(4, 83), (4, 74), (4, 31), (4, 36)]:  # not Rader primes
        assert rader_budget(shape, 1, dt.complex64, LAVAPIPE) is None, shape
    assert rader_budget((2, 37), 1, dt.complex64, SCARCE) is not None
    assert rader_budget((2, 2017), 1, dt.complex32, LAVAPIPE) is not None
    assert rader_budget((2, 4093), 1, dt.complex32, LAVAPIPE) is None  # 4092 > 2048 in float16
    assert rader_budget((2, 1009), 1, dt.complex64, SCARCE) is None  # 2 KiB: Bluestein's
