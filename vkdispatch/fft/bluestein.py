"""Lengths with a prime factor above 31 that Rader's algorithm (rader.py) does not take:
Bluestein's algorithm as one fused convolution (composites such as 74 = 2 x 37, primes such as
83 whose 82 = 2 x 41 has a factor without a butterfly, and primes whose p - 1 does not fit one
workgroup).

With the chirp ``w[n] = exp(s i pi n^2 / N)`` (``s = -1`` forward, ``+1`` inverse), ``n k =
(n^2 + k^2 - (k - n)^2) / 2`` turns the transform into ``X[k] = w[k] sum_n (x[n] w[n])
conj(w[k - n])``: a linear convolution of ``x w`` with ``conj(w)``, which a circular one of any
length ``M >= 2N - 1`` holds exactly once ``conj(w)`` is wrapped around (``b[m] = b[M - m] =
conj(w[m])`` for ``m < N``, zeros between). ``M`` is chosen with the generated butterflies'
primes only, so one shader loads ``x w`` (zeros past N), transforms, multiplies by
``B = FFT_M(b) / M``, transforms back as the adjoint of its forward stages (like
``vd.fft.convolve``), and stores ``w[k]`` times the first N values.

The chirp and ``B`` come from a table made once per context in float64 on the host (``n^2 mod
2N`` exactly: in float32 on the device ``n^2`` loses the phase for N above a few thousand).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Optional, Tuple

import numpy as np

from vkdispatch.base.buffer import Buffer
import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.caller_hooks import (CallerLines, caller_side, line_position, multiply,
                                         through_caller, where_below, zero)
from vkdispatch.fft.config import DeviceLimits
from vkdispatch.fft.context import FFTContext, fft_context
from vkdispatch.fft.fused_budget import fused_register_budget
from vkdispatch.fft.io_manager import IOManager
from vkdispatch.execution_pipeline.graphs import one_submission
from vkdispatch.fft.iterators import (global_reads_iterator, global_writes_iterator,
                                      register_reads_iterator)
from vkdispatch.fft.memory_ops import read_op, write_op
from vkdispatch.fft.multi_pass import FourStepFFT, check_extents, plain_extents
from vkdispatch.fft.prime_utils import SUPPORTED_PRIMES, pad_dim, prime_factors
from vkdispatch.fft.tables import upload_table
from vkdispatch.shader import dispatch_target
from vkdispatch.shader.mapping import map as make_map

__all__ = ["needs_bluestein", "bluestein_length", "BluesteinFFT"]

# Where the forward transform leaves the spectrum (see vd.fft.convolve).
_SPECTRUM_LAYOUT = (-1, True)


def needs_bluestein(n: int) -> bool:
    """Whether a length has a prime factor without a generated butterfly."""
    return any(p not in SUPPORTED_PRIMES for p in prime_factors(n))


def bluestein_length(n: int) -> int:
    """The convolution length M: the least length >= 2N - 1 of supported primes."""
    return pad_dim(2 * n - 1)


def chirp_table(n: int, m: int, inverse: bool, scale: float) -> np.ndarray:
    """``[w[0..N) | B[0..M)]`` in complex128, ``B`` already divided by ``M`` and ``scale``."""
    sign = 1.0 if inverse else -1.0
    positions = np.arange(n, dtype=np.int64)
    chirp = np.exp(sign * 1j * np.pi * ((positions * positions) % (2 * n)) / n)
    wrapped = np.zeros(m, dtype=np.complex128)
    wrapped[:n] = np.conj(chirp)
    wrapped[m - n + 1:] = np.conj(chirp[1:])[::-1]
    return np.concatenate([chirp, np.fft.fft(wrapped) / (m * scale)])


@dataclasses.dataclass(frozen=True)
class _Lines(CallerLines):
    """How the shader's lines of M map onto the caller's lines of N."""

    m: int

    def user_op(self, op, reading: bool):
        """``op`` (an element of a line of M) as the caller's element at the same position:
        its flat index in lines of N, or for real transforms in the RFFTBuffer layout (padded
        real rows of ``2 (N/2 + 1)`` scalars, half spectra of ``N/2 + 1`` bins)."""
        n, m = self.n, self.m
        if not self.r2c:
            index = op.io_index - (op.io_index // (m * self.inner)) * ((m - n) * self.inner)
            return dataclasses.replace(op, io_index=index, fft_size=n)
        return self.real_op(op, reading, op.io_index // m, op.fft_index)


def _chirped_load(side_map, variables, user, register, table, position, n: int) -> None:
    """``register = x[k] w[k]``, ``x[k]`` read through the caller's input side (its map, or
    its plain buffer ``variables[0]``) as the element ``user``; zero past N."""
    def load():
        through_caller(side_map, user, variables, "read_from_buffer")
        multiply(register, table[position])

    where_below(position, n, load, lambda: zero(register))


def _chirped_store(side_map, variables, user, table, position, n: int) -> None:
    """Stores ``w[k]`` times ``user``'s register through the caller's output side, for k < N."""
    def store():
        multiply(user.register, table[position])
        through_caller(side_map, user, variables, "write_to_buffer")

    where_below(position, n, store)


def _load(ctx: FFTContext, io: IOManager, table, lines: _Lines,
          signal_range: Tuple[int, int]) -> None:
    """Registers = ``x[k] w[k]`` through the input side for k < N, zeros past N."""
    proxy = io.input_proxy
    for op in global_reads_iterator(ctx.registers):
        user = dataclasses.replace(lines.user_op(op, True), signal_range=signal_range)
        _chirped_load(proxy.map_func, proxy.variables, user, op.register, table, op.fft_index,
                      lines.n)


def _apply_kernel(ctx: FFTContext, table, n: int) -> None:
    for op in register_reads_iterator(ctx.registers, layout=_SPECTRUM_LAYOUT):
        multiply(op.register, table[op.fft_index + n])


def _store(ctx: FFTContext, io: IOManager, table, lines: _Lines) -> None:
    """Stores ``w[k]`` times the first N values through the output side."""
    proxy = io.output_proxy
    for op in global_writes_iterator(ctx.registers, layout=(0, False)):
        _chirped_store(proxy.map_func, proxy.variables, lines.user_op(op, False), table,
                       op.fft_index, lines.n)


def _loader(lines: _Lines, input_map, input_type, signal_range, compute_type):
    """The first pass's input hook: ``x[n] w[n]`` from the caller's input side, zeros past N;
    its arguments are the caller's input side and the table."""
    side_map, types = caller_side(input_map, input_type)

    def load(*variables):
        op = read_op()
        position = line_position(op, lines.m, lines.inner)
        line_op = dataclasses.replace(op, fft_index=position, fft_size=lines.m)
        user = dataclasses.replace(lines.user_op(line_op, True), signal_range=signal_range)
        _chirped_load(side_map, variables[:-1], user, op.register, variables[-1], position,
                      lines.n)

    return make_map(load, input_types=types + [vc.Buffer[compute_type]])


def _kernel_reader(lines: _Lines, compute_type):
    """The second pass's input hook: the spectrum times ``B``."""
    def read(spectrum, table):
        op = read_op()
        op.read_from_buffer(spectrum)
        multiply(op.register, table[line_position(op, lines.m, lines.inner) + lines.n])

    return make_map(read, input_types=[vc.Buffer[compute_type], vc.Buffer[compute_type]])


def _storer(lines: _Lines, output_map, output_type, compute_type):
    """The second pass's output hook: ``w[k]`` times the first N values, through the caller's
    output side; its arguments are the caller's output side and the table."""
    side_map, types = caller_side(output_map, output_type)

    def store(*variables):
        op = write_op()
        position = line_position(op, lines.m, lines.inner)
        user = lines.user_op(dataclasses.replace(op, fft_index=position, fft_size=lines.m),
                             False)
        _chirped_store(side_map, variables[:-1], user, variables[-1], position, lines.n)

    return make_map(store, input_types=types + [vc.Buffer[compute_type]])


class BluesteinFFT:
    """The transform along one axis of a length with a prime factor above 31 that Rader's
    algorithm does not take (see the module text), called like a shader:
    ``plan(*output_side, *input_side, graph=g)``. One fused shader where the convolution of M
    fits one workgroup; otherwise a forward transform of M into a spectrum buffer and an
    inverse one out of it, each in two passes (four dispatches, the chirps and ``B`` applied
    by their hooks). The chirp table (and the spectrum buffer) are made once per context."""

    def __init__(self, buffer_shape: Tuple, axis: int, inverse: bool, normalize: bool,
                 r2c: bool, input_map, output_map, input_type, output_type, compute_type,
                 signal_range: Tuple[int, int], limits: DeviceLimits, name: Optional[str],
                 pass_factory):
        n = buffer_shape[axis]
        self.n, self.m = n, bluestein_length(n)
        self.inverse, self.compute_type = inverse, compute_type
        self.scale = n if inverse and normalize else 1
        self.shape = buffer_shape[:axis] + (self.m,) + buffer_shape[axis + 1:]
        lines = _Lines.along(buffer_shape, axis, r2c, inverse, m=self.m)
        name = name or f"bluestein_{buffer_shape}_{axis}_{inverse}_{normalize}_{r2c}"
        maps = (input_map, output_map, input_type, output_type)
        try:
            budget = fused_register_budget(self.shape, axis, compute_type, limits)
        except InvalidArgumentError:
            budget = None
        self.shader = self.passes = None
        if budget is not None:
            self.shader = self._fused(axis, budget, lines, *maps, signal_range, limits, name)
        else:
            self.passes = self._two_transforms(axis, lines, *maps, signal_range, limits, name,
                                               pass_factory)
            self.output_count = len(output_map.buffer_types) if output_map is not None else 1
            self.in_place = input_map is None and output_map is None
            self.extents = plain_extents(buffer_shape, input_map, output_map, input_type,
                                         output_type, r2c)

    def _fused(self, axis, budget, lines, input_map, output_map, input_type, output_type,
               signal_range, limits, name):
        with fft_context(self.shape, axis, budget, compute_type=self.compute_type, name=name,
                         limits=limits) as ctx:
            io = ctx.make_io_manager(output_map, output_type, input_type, input_map,
                                     kernel_map=self.compute_type)
            (table,) = io.kernel_proxy.variables
            buffer_shape = self.shape[:axis] + (self.n,) + self.shape[axis + 1:]
            io.record_extent(io.input_proxy, buffer_shape, lines.r2c)
            io.record_extent(io.output_proxy, buffer_shape, lines.r2c)
            _load(ctx, io, table, lines, signal_range)
            ctx.execute(inverse=False)
            _apply_kernel(ctx, table, self.n)
            ctx.execute_adjoint()  # M x the inverse transform: B carries the 1/M
            _store(ctx, io, table, lines)
        return ctx.get_callable()

    def _two_transforms(self, axis, lines, input_map, output_map, input_type, output_type,
                        signal_range, limits, name, pass_factory) -> tuple:
        ct = self.compute_type
        if input_map is None and output_map is None:
            input_type = output_type  # in place: the input side is the output buffer
        try:
            forward = FourStepFFT(pass_factory, self.shape, axis, False, False,
                                  _loader(lines, input_map, input_type, signal_range, ct), None,
                                  None, ct, ct, limits, f"{name}_forward")
            inverse = FourStepFFT(pass_factory, self.shape, axis, True, False,
                                  _kernel_reader(lines, ct),
                                  _storer(lines, output_map, output_type, ct), None, None, ct,
                                  limits, f"{name}_inverse")
        except InvalidArgumentError:
            raise InvalidArgumentError(
                f"FFT length {self.n} has the prime factor {max(prime_factors(self.n))}, "
                f"above 31: it is transformed by Bluestein's algorithm through transforms of "
                f"length {self.m}, which this device cannot split into two passes that each "
                f"fit one workgroup (such lengths: vd.vkfft)") from None
        return forward, inverse

    def _buffers(self, context) -> tuple:
        """``(table, spectrum)`` of ``context``, made on first use (no spectrum when fused)."""
        made = context.derived.get(self)
        if made is None:
            values = chirp_table(self.n, self.m, self.inverse, self.scale)
            with context:
                table = upload_table(values, self.compute_type)
                spectrum = None if self.passes is None else \
                    Buffer((math.prod(self.shape),), self.compute_type)
            made = context.derived[self] = (table, spectrum)
        return made

    def __call__(self, *args, graph=None) -> None:
        target = graph if graph is not None else dispatch_target.default_target()
        table, spectrum = self._buffers(target.context)
        if self.passes is None:
            self.shader(*args, table, graph=target)
            return
        check_extents(self.extents, args)
        outputs = args[:self.output_count]
        inputs = outputs if self.in_place else args[self.output_count:]
        forward, inverse = self.passes
        with one_submission(target):
            forward(spectrum, *inputs, table, graph=target)
            inverse(*outputs, table, spectrum, table, graph=target)

    def get_src(self, line_numbers: bool | None = None):
        if self.passes is None:
            return self.shader.get_src(line_numbers)
        return self.passes[0].get_src(line_numbers) + self.passes[1].get_src(line_numbers)

    def print_src(self, line_numbers: bool | None = None) -> None:
        for source in (self.get_src(line_numbers) if self.passes is not None
                       else (self.get_src(line_numbers),)):
            print(source)

    def __repr__(self) -> str:
        return "\n".join(repr(source) for source in (
            self.get_src() if self.passes is not None else (self.get_src(),)))
