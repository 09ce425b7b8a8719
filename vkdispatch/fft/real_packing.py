"""Real transforms of even length N as complex transforms of length M = N/2.

The padded real row of an ``RFFTBuffer`` read as complex values is ``z[n] = x[2n] +
i x[2n+1]``: the even samples in the real parts, the odd ones in the imaginary parts. With
``Z = FFT_M(z)``, the even and odd spectra are ``E[k] = (Z[k] + conj Z[M-k]) / 2`` and
``O[k] = (Z[k] - conj Z[M-k]) / 2i``, and ``X[k] = E[k] + W_N^k O[k]`` for k = 0..M. The
inverse runs the same relations backwards (``E = (X[k] + conj X[M-k]) / 2``,
``O = (X[k] - conj X[M-k]) W_N^-k / 2``, ``Z = E + i O``) before an inverse FFT of length M.
Both halve the arithmetic and registers of the full-length complex transform, and the pairing
of ``k`` with ``M - k`` goes through shared memory, where the whole row is anyway.
"""
from __future__ import annotations

from typing import Optional, Tuple

import vkdispatch.codegen as vc
from vkdispatch.codegen.variables import ShaderVariable
from vkdispatch.fft.butterflies import runtime_twiddle
from vkdispatch.fft.config import DeviceLimits, FFTConfig
from vkdispatch.fft.context import FFTContext, fft_context
from vkdispatch.fft.io_manager import plain_extent
from vkdispatch.fft.multi_pass import fits_one_pass
from vkdispatch.fft.iterators import global_reads_iterator, global_writes_iterator, \
    staged_elements
from vkdispatch.shader.shader_function import ShaderFunction

__all__ = ["packed_real_shader", "can_pack"]


def can_pack(real_shape: Tuple, axis: int, input_map, output_map,
             signal_range: Tuple[int, int], compute_type, limits: DeviceLimits) -> bool:
    """Whether the packed algorithm applies: an even last axis (at least 4) whose half fits
    one workgroup as complex values, no hooks and no signal range (they address the real
    samples one by one)."""
    n = real_shape[-1]
    if not (axis == len(real_shape) - 1 and n % 2 == 0 and n >= 4 and input_map is None
            and output_map is None and signal_range == (0, n)):
        return False
    return (fits_one_pass(n // 2, compute_type, limits)
            and not FFTConfig((n // 2,), 0, compute_type=compute_type,
                              limits=limits).exchange_split)


def _conj(value: ShaderVariable) -> ShaderVariable:
    return vc.to_dtype(value.var_type, value.real, -value.imag)


def _times_i(value: ShaderVariable, sign: int = 1) -> ShaderVariable:
    """``value * (sign i)``."""
    return vc.to_dtype(value.var_type, -sign * value.imag, sign * value.real)


def _forward_output(ctx: FFTContext, buffer, half: int) -> None:
    """``X[k]`` for k = 0..M from the spectrum Z held in shared memory, stored in order.

    The loop runs over k < M; the invocation of k = 0 also stores ``X[M] = E[0] - O[0]``
    (``W_N^M = -1``). Looping over M + 1 positions cost a round of the whole loop for one
    element a line, and a division by M + 1 per element: rfft at 0.80-0.84 of cuFFT on an
    H200 where this runs at 0.96."""
    resources, grid, sdata = ctx.resources, ctx.grid, ctx.sdata
    ct, m = ctx.config.compute_type, ctx.config.N
    sdata.write_to_sdata(ctx.registers, -1)
    sdata.sync("read")
    for line, slot, k in staged_elements(resources, m):
        here = sdata.sdata[grid.sdata_index(k, slot)].to_register()
        mirror = _conj(sdata.sdata[grid.sdata_index((m - k) % m, slot)]).to_register()
        even = ((here + mirror) * 0.5).to_register()
        odd = _times_i((here - mirror) * 0.5, -1).to_register()
        twiddle = runtime_twiddle(ct, k, 1, 2 * m, -1)
        buffer[line * half + k] = vc.cast_to(buffer.var_type, even + vc.mult_complex(odd, twiddle))
        with vc.if_block(k == 0):
            buffer[line * half + m] = vc.cast_to(buffer.var_type, even - odd)


def _inverse_input(ctx: FFTContext, buffer, half: int, normalize: bool) -> None:
    """``Z[k]`` for k = 0..M-1 from the half spectrum X, into shared memory, then into the
    registers. The imaginary parts of X[0] and X[M] are ignored (numpy's irfft does too)."""
    resources, grid, sdata = ctx.resources, ctx.grid, ctx.sdata
    ct, m = ctx.config.compute_type, ctx.config.N
    scale = 0.5 if normalize else 1.0  # unnormalized: N z = 2 (M z)
    sdata.sync("write")
    for line, slot, k in staged_elements(resources, m, clamp_lines=True):
        here = vc.cast_to(ct, buffer[line * half + k]).to_register()
        mirror = vc.cast_to(ct, buffer[line * half + (m - k)]).to_register()
        with vc.if_block(k == 0):
            here.imag = 0
            mirror.imag = 0
        mirror = _conj(mirror).to_register()
        even = ((here + mirror) * scale).to_register()
        twiddle = runtime_twiddle(ct, k, 1, 2 * m, 1)
        odd = vc.mult_complex((here - mirror) * scale, twiddle).to_register()
        # (a float scale makes complex32 terms complex64: back to the compute type)
        sdata.sdata[grid.sdata_index(k, slot)] = vc.cast_to(ct, even + _times_i(odd))
    sdata.read_from_sdata(ctx.registers, 0)


def packed_real_shader(real_shape: Tuple, inverse: bool, normalize: bool, buffer_type,
                       compute_type, limits: DeviceLimits,
                       name: Optional[str]) -> ShaderFunction:
    """The in-place rfft (or irfft) of every row of an RFFTBuffer of ``real_shape``."""
    m = real_shape[-1] // 2
    shape = tuple(real_shape[:-1]) + (m,)
    name = name or f"rfft_packed_{tuple(real_shape)}_{inverse}_{normalize}"
    with fft_context(shape, len(shape) - 1, compute_type=compute_type, name=name,
                     limits=limits, force_sdata=True) as ctx:
        ctx.resources.row_pitch = m + 1
        (buffer,) = ctx.declare_shader_args([vc.Buffer[buffer_type]])
        if inverse:
            _inverse_input(ctx, buffer, m + 1, normalize)
        else:
            for op in global_reads_iterator(ctx.registers):
                op.read_from_buffer(buffer)
        ctx.execute(inverse)
        if inverse:
            if normalize:
                ctx.registers.normalize()
            for op in global_writes_iterator(ctx.registers):
                op.write_to_buffer(buffer)
        else:
            _forward_output(ctx, buffer, m + 1)
    shader = ctx.get_callable()
    shader.require_buffer_bytes({0: plain_extent(tuple(real_shape), buffer_type, True)})
    return shader
