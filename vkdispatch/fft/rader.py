"""Prime lengths above 31 whose ``p - 1`` has only the generated butterflies' primes: Rader's
algorithm as one fused cyclic convolution of length ``p - 1``.

A primitive root ``g`` of ``p`` lists the nonzero positions as ``g^m`` (``m = 0 .. p-2``).
With ``w = exp(s 2 pi i / p)`` (``s = -1`` forward, ``+1`` inverse) the transform at ``g^-q``
is ``X[g^-q] = x[0] + sum_m x[g^m] w^(g^(m - q)) = x[0] + (a * b)[q]``: a cyclic convolution
of length ``p - 1`` of ``a[m] = x[g^m]`` with ``b[m] = w^(g^-m)``, and ``X[0] = x[0] +
sum_m a[m]``. One shader gathers ``a``, transforms it with the generated stages, multiplies by
``B = FFT_{p-1}(b) / (p - 1)``, transforms back as the adjoint of its forward stages (like
``vd.fft.convolve`` and bluestein.py) and scatters the result to ``g^-q``: two transforms of
``p - 1`` where Bluestein's algorithm runs two of ``M >= 2p - 1``.

The spectrum's bin 0 is ``sum_m a[m]``, so the thread that holds it alone reads ``x[0]``,
stores ``X[0]``, and adds ``x[0]`` to that bin after the product: the adjoint turns a
constant in bin 0 into the same constant at every output, so no thread needs ``x[0]``
broadcast. ``B`` and the powers of ``g`` (for positions only known in the shader) come from
a table made once per context in float64 on the host.

Composite lengths with a prime factor above 31, primes whose ``p - 1`` has one (83 = 2 x 41 +
1: that would need Rader's algorithm nested inside a butterfly stage), and ``p - 1`` beyond
one workgroup run Bluestein's algorithm.
"""
from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

import numpy as np

from vkdispatch import dtypes as dt
import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.caller_hooks import CallerLines, multiply, through_caller, where_below
from vkdispatch.fft.config import DeviceLimits
from vkdispatch.fft.context import FFTContext, fft_context
from vkdispatch.fft.fused_budget import fused_register_budget
from vkdispatch.fft.io_manager import IOManager
from vkdispatch.fft.iterators import (global_reads_iterator, global_writes_iterator,
                                      register_reads_iterator)
from vkdispatch.fft.memory_ops import GlobalWriteOp, MemoryOp
from vkdispatch.fft.prime_utils import SUPPORTED_PRIMES, prime_factors
from vkdispatch.fft.tables import upload_table
from vkdispatch.shader import dispatch_target

__all__ = ["rader_prime", "primitive_root", "rader_budget", "rader_table", "RaderFFT"]

# Where the forward transform leaves the spectrum (see vd.fft.convolve).
_SPECTRUM_LAYOUT = (-1, True)
# The largest power of g (below p) a table of the compute type holds exactly: float16 has an
# 11-bit significand (float32's 24 bits hold every p - 1 that fits a workgroup).
_EXACT_POWERS = {dt.complex32: 2048}


def rader_prime(n: int) -> bool:
    """Whether ``n`` is a prime without a butterfly whose ``n - 1`` has only butterflies'
    primes (37, 41, 43, 47, 53, ...; not 83, whose 82 = 2 x 41)."""
    return n > SUPPORTED_PRIMES[-1] and prime_factors(n) == [n] and \
        all(q in SUPPORTED_PRIMES for q in prime_factors(n - 1))


def primitive_root(p: int) -> int:
    """The least generator of the nonzero residues modulo the prime ``p``: the ``g`` with
    ``g^((p - 1) / q) != 1`` for every prime ``q`` dividing ``p - 1``."""
    divisors = set(prime_factors(p - 1))
    return next(g for g in range(2, p) if all(pow(g, (p - 1) // q, p) != 1 for q in divisors))


def rader_budget(buffer_shape: Tuple, axis: int, compute_type,
                 limits: DeviceLimits) -> Optional[int]:
    """The register budget of Rader's fused shader for the lines along ``axis`` (the same
    check as Bluestein's and the convolution's fused shaders, at ``p - 1``), or None where
    Rader's algorithm does not apply and Bluestein's runs instead."""
    p = buffer_shape[axis]
    if not rader_prime(p) or p - 1 > _EXACT_POWERS.get(compute_type, p):
        return None
    shape = buffer_shape[:axis] + (p - 1,) + buffer_shape[axis + 1:]
    try:
        return fused_register_budget(shape, axis, compute_type, limits)
    except InvalidArgumentError:
        return None


def rader_table(p: int, g: int, inverse: bool, scale: float) -> np.ndarray:
    """``[B[0 .. p-1) | g^m + i g^-m (mod p) for m < p - 1]`` in complex128, ``B`` already
    divided by ``p - 1`` and ``scale`` (the powers are exact in the compute type: see
    :func:`rader_budget`). Angles are ``2 pi k / p`` of exact integers ``k < p``, so ``b`` is
    accurate in float64."""
    sign = 1.0 if inverse else -1.0
    powers = np.array([pow(g, m, p) for m in range(p - 1)], dtype=np.int64)
    inverse_powers = np.array([pow(g, -m, p) for m in range(p - 1)], dtype=np.int64)
    b = np.exp(sign * 2j * np.pi * inverse_powers / p)
    spectrum = np.fft.fft(b) / ((p - 1) * scale)
    return np.concatenate([spectrum, powers + 1j * inverse_powers])


@dataclasses.dataclass(frozen=True)
class _Lines(CallerLines):
    """How the shader's lines of ``p - 1`` (the convolution) map onto the caller's of
    ``p = n``."""

    root: int

    def power(self, table, m, sign: int):
        """``g^(sign m) mod p`` for the position ``m`` of a line of ``p - 1``: a constant
        where ``m`` is known while tracing, else the table's."""
        if isinstance(m, int):
            return pow(self.root, sign * m, self.n)
        entry = table[self.n - 1 + m]
        return vc.to_dtype(dt.uint32, entry.real if sign > 0 else entry.imag).to_register()

    def user_op(self, op, position, reading: bool):
        """``op`` (an element of a line of ``p - 1``) as the caller's element at
        ``position`` of the same line: its flat index in lines of ``p``, or for real
        transforms in the RFFTBuffer layout."""
        p, inner = self.n, self.inner
        if self.r2c:
            return self.real_op(op, reading, op.io_index // (p - 1), position)
        outer = op.io_index // ((p - 1) * inner)
        start = op.io_index - op.fft_index * inner  # the line's first element, in lines of p-1
        index = (start + (outer + position) * inner).to_register()
        return dataclasses.replace(op, io_index=index, fft_index=position, fft_size=p)


def _gather(ctx: FFTContext, io: IOManager, table, lines: _Lines,
            signal_range: Tuple[int, int]) -> None:
    """Registers = ``a[m] = x[g^m]`` through the input side."""
    proxy = io.input_proxy
    for op in global_reads_iterator(ctx.registers):
        user = lines.user_op(op, lines.power(table, op.fft_index, 1), True)
        through_caller(proxy.map_func, dataclasses.replace(user, signal_range=signal_range),
                       proxy.variables, "read_from_buffer")


def _as_write(op, register) -> GlobalWriteOp:
    fields = {field.name: getattr(op, field.name) for field in dataclasses.fields(MemoryOp)}
    return GlobalWriteOp(**fields, register=register, io_index=op.io_index)


def _times(value, factor: float):
    """``value * factor`` in ``value``'s type (half precision multiplies in float32)."""
    if factor == 1:
        return value
    product = value * factor
    return vc.cast_to(value.var_type, product)


def _first_bin(io: IOManager, table, lines: _Lines, op, signal_range, factor: float) -> None:
    """Bin 0 holds ``sum_m a[m]``: reads ``x[0]``, stores ``X[0] = x[0] + sum_m a[m]`` and
    leaves ``B[0] sum_m a[m] + x[0]`` in the bin, whose adjoint adds ``x[0]`` to every output
    (``x[0]`` and ``X[0]`` times ``factor``: the inverse's 1/p, or 1; ``B`` has it already).
    Safe in place: no other thread reads or writes position 0, and the others' reads of the
    line are behind the transform's exchanges."""
    register = op.register
    first = vc.new_register(register.var_type)
    reading = dataclasses.replace(lines.user_op(op, 0, True), register=first,
                                  signal_range=signal_range)
    through_caller(io.input_proxy.map_func, reading, io.input_proxy.variables,
                   "read_from_buffer")
    first[:] = _times(first, factor)
    total = _times(register, factor) + first
    writing = lines.user_op(_as_write(op, total.to_register()), 0, False)
    through_caller(io.output_proxy.map_func, writing, io.output_proxy.variables,
                   "write_to_buffer")
    multiply(register, table[0])
    register[:] = register + first


def _apply_kernel(ctx: FFTContext, io: IOManager, table, lines: _Lines, signal_range,
                  factor: float) -> None:
    """The spectrum times ``B``; bin 0 as :func:`_first_bin` says. Only register 0 can hold
    bin 0 (the last stage writes output ``q`` of butterfly ``j`` to ``j + q L``: ``j = q =
    0``), so the others need no test."""
    for op in register_reads_iterator(ctx.registers, layout=_SPECTRUM_LAYOUT):
        def rest(op=op):
            multiply(op.register, table[op.fft_index])
        if op.register_id != 0:
            rest()
            continue
        where_below(op.fft_index, 1,
                    lambda op=op: _first_bin(io, table, lines, op, signal_range, factor), rest)


def _scatter(ctx: FFTContext, io: IOManager, table, lines: _Lines) -> None:
    """Stores the convolution's ``c[q]`` (``x[0]`` already added) at ``g^-q``."""
    proxy = io.output_proxy
    for op in global_writes_iterator(ctx.registers, layout=(0, False)):
        user = lines.user_op(op, lines.power(table, op.fft_index, -1), False)
        through_caller(proxy.map_func, user, proxy.variables, "write_to_buffer")


class RaderFFT:
    """The transform along one axis of a prime length for which :func:`rader_budget` gives a
    budget (see the module text): one fused shader, called like a shader,
    ``plan(*output_side, *input_side, graph=g)``; its table is made once per context."""

    def __init__(self, buffer_shape: Tuple, axis: int, inverse: bool, normalize: bool,
                 r2c: bool, input_map, output_map, input_type, output_type, compute_type,
                 signal_range: Tuple[int, int], limits: DeviceLimits, name: Optional[str],
                 budget: int):
        p = buffer_shape[axis]
        scale = p if inverse and normalize else 1
        lines = _Lines.along(buffer_shape, axis, r2c, inverse, root=primitive_root(p))
        name = name or f"rader_{buffer_shape}_{axis}_{inverse}_{normalize}_{r2c}"
        shape = buffer_shape[:axis] + (p - 1,) + buffer_shape[axis + 1:]
        with fft_context(shape, axis, budget, compute_type=compute_type, name=name,
                         limits=limits) as ctx:
            io = ctx.make_io_manager(output_map, output_type, input_type, input_map,
                                     kernel_map=compute_type)
            (table,) = io.kernel_proxy.variables
            io.record_extent(io.input_proxy, buffer_shape, r2c)
            io.record_extent(io.output_proxy, buffer_shape, r2c)
            _gather(ctx, io, table, lines, signal_range)
            ctx.execute(inverse=False)
            _apply_kernel(ctx, io, table, lines, signal_range, 1.0 / scale)
            ctx.execute_adjoint()  # (p - 1) x the inverse transform: B carries the 1/(p - 1)
            _scatter(ctx, io, table, lines)
        self.shader = ctx.get_callable()
        self.p, self.root, self.inverse, self.scale = p, lines.root, inverse, scale
        self.compute_type = compute_type

    def _table(self, context):
        """The table of ``context``, made on first use."""
        table = context.derived.get(self)
        if table is None:
            values = rader_table(self.p, self.root, self.inverse, self.scale)
            with context:
                table = context.derived[self] = upload_table(values, self.compute_type)
        return table

    def __call__(self, *args, graph=None) -> None:
        target = graph if graph is not None else dispatch_target.default_target()
        self.shader(*args, self._table(target.context), graph=target)

    def get_src(self, line_numbers: bool | None = None):
        return self.shader.get_src(line_numbers)

    def print_src(self, line_numbers: bool | None = None) -> None:
        print(self.get_src(line_numbers))

    def __repr__(self) -> str:
        return repr(self.get_src())
