"""Radix-r sub-FFTs held in registers, and the twiddle factors between stages.

A radix is a product of primes; its DFT runs as a Stockham sequence of prime passes over the
registers, with the twiddles inside it known at trace time (multiples of pi/2 become swaps and
negations). Radix 2 is a butterfly; odd primes are direct DFTs that pair ``x[m]`` with
``x[p-m]`` so each coefficient multiplies a sum or a difference once.
"""
from __future__ import annotations

import math

from vkdispatch import dtypes as dt
import vkdispatch.codegen as vc
from vkdispatch.codegen.variables import ShaderVariable

__all__ = ["multiply_by_constant_twiddle", "runtime_twiddle", "radix_fft", "prime_dft"]


def _rotate_quarter(value: ShaderVariable, quarters: int) -> ShaderVariable:
    """``value * i**quarters``: swaps and negations only."""
    quarters %= 4
    if quarters == 0:
        return value
    if quarters == 2:
        return -value
    ct = value.var_type
    if quarters == 1:
        return vc.to_dtype(ct, -value.imag, value.real)
    return vc.to_dtype(ct, value.imag, -value.real)


def multiply_by_constant_twiddle(value: ShaderVariable, angle: float) -> ShaderVariable:
    """``value * exp(i angle)`` for an angle known while tracing."""
    quarters = angle / (math.pi / 2)
    if abs(quarters - round(quarters)) < 1e-12:
        return _rotate_quarter(value, int(round(quarters)))
    c, s = math.cos(angle), math.sin(angle)
    return vc.to_dtype(value.var_type, value.real * c - value.imag * s,
                       value.real * s + value.imag * c)


def runtime_twiddle(compute_type, index, numerator: int, denominator: int,
                    sign: int) -> ShaderVariable:
    """``exp(sign 2 pi i numerator index / denominator)`` for a uint ``index`` known only in
    the shader (``numerator * index < denominator``), as a register of ``compute_type``.

    Single and half precision use the device's float ``sin``/``cos``; double precision
    (which GLSL's trigonometry lacks) reduces the angle exactly in integers and evaluates
    Taylor polynomials in doubles."""
    if compute_type is dt.complex128:
        return _double_twiddle(index * numerator if numerator != 1 else index, denominator,
                               sign)
    angle = (vc.to_float(index) * (sign * 2 * math.pi * numerator / denominator)).to_register()
    if compute_type is dt.complex64:
        return vc.to_dtype(compute_type, vc.cos(angle), vc.sin(angle)).to_register()
    return vc.to_dtype(compute_type, vc.to_vec2(vc.cos(angle), vc.sin(angle))).to_register()


def _taylor(x2: ShaderVariable, coefficients: list[float]) -> ShaderVariable:
    """``sum c_k x2^k`` by Horner's rule."""
    result = None
    for coefficient in reversed(coefficients):
        result = (x2 * 0 + coefficient) if result is None else result * x2 + coefficient
    return result


def _double_twiddle(index, denominator: int, sign: int) -> ShaderVariable:
    """``exp(sign 2 pi i index / denominator)`` to double precision: the nearest quarter
    turn ``n`` is split off in integers, leaving ``|phi| <= pi/4`` for the polynomials."""
    quarter = ((index * 4 + denominator // 2) // denominator).to_register()
    remainder = (vc.to_int(index * 4) - vc.to_int(quarter * denominator)).to_register()
    phi = (vc.to_float64(remainder) * (math.pi / 2 / denominator)).to_register()
    phi2 = (phi * phi).to_register()
    terms = 10  # phi^20 / 20! < 1e-20 for |phi| <= pi/4
    sine = (phi * _taylor(phi2, [(-1) ** k / math.factorial(2 * k + 1)
                                 for k in range(terms)])).to_register()
    cosine = _taylor(phi2, [(-1) ** k / math.factorial(2 * k) for k in range(terms)])
    cosine = cosine.to_register()
    turn = (quarter % 4).to_register()
    c, s = cosine.name, sine.name
    choice = (f"({turn.name} == 0u) ? dvec2({c}, {s}) : ({turn.name} == 1u) ? "
              f"dvec2(-{s}, {c}) : ({turn.name} == 2u) ? dvec2(-{c}, -{s}) : dvec2({s}, -{c})")
    twiddle = vc.str_to_dtype(dt.complex128, choice).to_register()
    if sign < 0:
        twiddle = vc.to_dtype(dt.complex128, twiddle.real, -twiddle.imag).to_register()
    return twiddle


def prime_dft(values: list[ShaderVariable], sign: int) -> list[ShaderVariable]:
    """The DFT of ``len(values)`` (a prime) values with kernel ``exp(sign 2 pi i / p)``."""
    p = len(values)
    if p == 2:
        a, b = values
        return [(a + b).to_register(), (a - b).to_register()]
    half = (p - 1) // 2
    x0 = values[0]
    sums = [(values[m] + values[p - m]).to_register() for m in range(1, half + 1)]
    diffs = [(values[m] - values[p - m]).to_register() for m in range(1, half + 1)]
    total = x0
    for term in sums:
        total = total + term
    outputs: list[ShaderVariable | None] = [total.to_register()] + [None] * (p - 1)
    for q in range(1, half + 1):
        cosine, sine = x0, None
        for m in range(1, half + 1):
            angle = 2 * math.pi * q * m / p
            cosine = cosine + sums[m - 1] * math.cos(angle)
            term = diffs[m - 1] * (sign * math.sin(angle))
            sine = term if sine is None else sine + term
        ct = x0.var_type
        # Half-precision values times the float constants above are float32: back to ct.
        c, s = vc.cast_to(ct, cosine).to_register(), vc.cast_to(ct, sine).to_register()
        outputs[q] = vc.to_dtype(ct, c.real - s.imag, c.imag + s.real).to_register()
        outputs[p - q] = vc.to_dtype(ct, c.real + s.imag, c.imag - s.real).to_register()
    return outputs


def radix_fft(values: list[ShaderVariable], primes: tuple[int, ...],
              sign: int) -> list[ShaderVariable]:
    """The DFT of ``values`` (natural order in, natural order out) as Stockham passes over
    ``primes`` (whose product is ``len(values)``)."""
    r = len(values)
    current, stride = list(values), 1
    for p in primes:
        following: list[ShaderVariable | None] = [None] * r
        for j in range(r // p):
            k = j % stride
            inputs = [current[j + m * (r // p)] for m in range(p)]
            inputs = [inputs[0]] + [
                multiply_by_constant_twiddle(inputs[m], sign * 2 * math.pi * m * k / (stride * p))
                for m in range(1, p)]
            base = (j // stride) * stride * p + k
            for q, value in enumerate(prime_dft(inputs, sign)):
                following[base + q * stride] = value
        current, stride = following, stride * p
    return current
