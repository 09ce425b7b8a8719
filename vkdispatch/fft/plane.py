"""2-D transforms of planes that one workgroup holds, in one pass.

Transforming the columns and then the rows of an R x C plane takes two dispatches, each a
pass over the whole batch through device memory (as ``vd.fft.fft2`` does for larger planes). A
plane whose R C values fit one workgroup's line (complex64 up to 4096 values, shared memory
whole) is instead transformed as one line of R C with the 2-D stages of ``FFTConfig``'s
``plane_rows``: one read and one write of the data. Its result lies transposed in the line
(bin ``(k1, k2)`` at ``k1 + R k2``), so the store goes through shared memory, read in the
plane's address order. A convolution of such planes (``convolve2D``) is one pass as well: the
kernel spectrum comes through shared memory the same way, transposed, and the inverse runs as
the adjoint of the forward stages, back to the plane's own order.
"""
from __future__ import annotations

import functools
import math
from typing import Optional, Tuple

import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.config import DeviceLimits, FFTConfig
from vkdispatch.fft.context import FFTContext, fft_context
from vkdispatch.fft.io_manager import plain_extent
from vkdispatch.fft.caller_hooks import multiply
from vkdispatch.fft.iterators import (global_reads_iterator, global_writes_iterator,
                                      memory_writes_iterator, staged_elements)
from vkdispatch.fft.prime_utils import SUPPORTED_PRIMES, prime_factors
from vkdispatch.shader.shader_function import ShaderFunction

__all__ = ["plane_fits", "plane_shader", "plane_convolution_shader", "plane_cache_clear"]


@functools.lru_cache(maxsize=None)
def plane_fits(rows: int, cols: int, compute_type, limits: DeviceLimits) -> bool:
    """Whether an R x C plane transforms in one pass: both lengths made of the butterflies'
    primes, the plane's values within one workgroup, exchanged whole through shared memory.
    Cached: every eager fft2 asks."""
    if rows < 2 or cols < 2 or any(p not in SUPPORTED_PRIMES
                                   for p in prime_factors(rows) + prime_factors(cols)):
        return False
    try:
        config = FFTConfig((rows * cols,), 0, compute_type=compute_type, limits=limits,
                           plane_rows=rows)
    except InvalidArgumentError:  # more threads than a workgroup has, or no room in memory
        return False
    return not config.exchange_split


def _transposed(address, rows: int, cols: int):
    """The line position ``k1 + R k2`` of the bin at plane address ``k1 C + k2``."""
    return (address % cols) * rows + address // cols


def _store_transposed(ctx: FFTContext, buffer, rows: int, cols: int) -> None:
    """Stores each plane in address order: address ``k1 C + k2`` takes line position
    ``k1 + R k2`` from shared memory. (Reading it with a stride of R values conflicts on the
    banks at R = 64; rows padded by one value to spread them measured no faster on an H200:
    64^2 planes at 0.78 of the copy either way.)"""
    resources, grid, sdata = ctx.resources, ctx.grid, ctx.sdata
    n = rows * cols
    sdata.write_to_sdata(ctx.registers, -1)
    sdata.sync("read")
    for line, slot, address in staged_elements(resources, n):
        value = sdata.sdata[grid.sdata_index(_transposed(address, rows, cols), slot)]
        buffer[line * n + address] = vc.cast_to(buffer.var_type, value)


@functools.lru_cache(maxsize=None)
def plane_shader(limits: DeviceLimits, buffer_shape: Tuple, inverse: bool, normalize: bool,
                 buffer_type, compute_type, name: Optional[str] = None) -> ShaderFunction:
    """The in-place 2-D transform of the last two axes of every plane of ``buffer_shape``
    (``plane_fits`` must hold), divided by R C where ``inverse and normalize``."""
    rows, cols = buffer_shape[-2], buffer_shape[-1]
    planes = math.prod(buffer_shape[:-2])
    name = name or f"fft_plane_{tuple(buffer_shape)}_{inverse}_{normalize}"
    with fft_context((planes, rows * cols), 1, compute_type=compute_type, name=name,
                     limits=limits, force_sdata=True, plane_rows=rows) as ctx:
        (buffer,) = ctx.declare_shader_args([vc.Buffer[buffer_type]])
        for op in global_reads_iterator(ctx.registers):
            op.read_from_buffer(buffer)
        ctx.execute(inverse)
        if inverse and normalize:
            ctx.registers.normalize()
        _store_transposed(ctx, buffer, rows, cols)
    shader = ctx.get_callable()
    shader.require_buffer_bytes({0: plain_extent(tuple(buffer_shape), buffer_type, False)})
    return shader


def _apply_kernel(ctx: FFTContext, kernel, rows: int, cols: int, inner_only: bool) -> None:
    """``register *= conj(K[k1 C + k2])`` for each bin ``(k1, k2)`` the registers hold. The
    kernel goes through shared memory, read in the plane's address order: read at each
    register's own bin, neighbouring invocations read C values apart (an H200 convolved 64^2
    planes 3x slower than torch that way)."""
    resources, grid, sdata = ctx.resources, ctx.grid, ctx.sdata
    n, ct = rows * cols, ctx.config.compute_type
    sdata.sync("write")
    for line, slot, address in staged_elements(resources, n, clamp_lines=True):
        value = kernel[address if inner_only else line * n + address]
        sdata.sdata[grid.sdata_index(_transposed(address, rows, cols), slot)] = \
            vc.cast_to(ct, value)
    sdata.sync("read")
    for op in memory_writes_iterator(resources, -1):
        multiply(ctx.registers[op.register_id], sdata.sdata[grid.sdata_index(op.fft_index)],
                 conjugate=True)


@functools.lru_cache(maxsize=None)
def plane_convolution_shader(limits: DeviceLimits, buffer_shape: Tuple, normalize: bool,
                             inner_only: bool, buffer_type, kernel_type,
                             compute_type) -> ShaderFunction:
    """``ifft2(fft2(x) * conj(K))`` of every plane of ``buffer_shape`` in place, in one pass:
    ``K`` the kernel spectrum, one per plane or (``inner_only``) one for every plane."""
    rows, cols = buffer_shape[-2], buffer_shape[-1]
    planes = math.prod(buffer_shape[:-2])
    name = f"convolution_plane_{tuple(buffer_shape)}_{normalize}_{inner_only}"
    with fft_context((planes, rows * cols), 1, compute_type=compute_type, name=name,
                     limits=limits, force_sdata=True, plane_rows=rows) as ctx:
        buffer, kernel = ctx.declare_shader_args([vc.Buffer[buffer_type],
                                                  vc.Buffer[kernel_type]])
        for op in global_reads_iterator(ctx.registers):
            op.read_from_buffer(buffer)
        ctx.execute(False)  # bin (k1, k2) at line position k1 + R k2
        _apply_kernel(ctx, kernel, rows, cols, inner_only)
        ctx.execute_adjoint()  # R C times the inverse, in the plane's order
        if normalize:
            ctx.registers.normalize()
        for op in global_writes_iterator(ctx.registers, layout=(0, False)):
            op.write_to_buffer(buffer)
    shader = ctx.get_callable()
    kernel_shape = buffer_shape[-2:] if inner_only else buffer_shape
    shader.require_buffer_bytes({0: plain_extent(tuple(buffer_shape), buffer_type, False),
                                 1: plain_extent(tuple(kernel_shape), kernel_type, False)})
    return shader


def plane_cache_clear() -> None:
    """Drops the cached plane shaders and fit answers."""
    plane_shader.cache_clear()
    plane_convolution_shader.cache_clear()
    plane_fits.cache_clear()
