"""Cached FFT shader factories: one ShaderFunction per (geometry, options, maps, device).

Keys include the device limits the plan was made for, so contexts with different devices
never share a launch geometry; mapping functions are keys by value (the same function and
types give the same key).
"""
from __future__ import annotations

import functools
import math
from typing import Optional, Tuple

import numpy as np

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import normalize_shape
from vkdispatch.fft.bluestein import BluesteinFFT, needs_bluestein
from vkdispatch.fft.config import DeviceLimits, normalize_axis
from vkdispatch.fft.context import fft_context
from vkdispatch.fft.grid import StridedGroups
from vkdispatch.fft.multi_pass import FourStepFFT, caller_hooks, fits_one_pass
from vkdispatch.fft.rader import RaderFFT, rader_budget
from vkdispatch.fft.real_packing import can_pack, packed_real_shader
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.shader.shader_function import ShaderFunction

__all__ = ["make_fft_shader", "get_cache_info", "fft_cache_clear", "signal_range_of"]


def signal_range_of(signal_range, n: int) -> Tuple[int, int]:
    if signal_range is None:
        return (0, n)
    if not isinstance(signal_range, tuple) or len(signal_range) != 2:
        raise InvalidArgumentError(f"input_signal_range must be a (start, end) tuple, got "
                                   f"{signal_range!r}")
    for bound in signal_range:  # int() truncated 2.5, took "1" and raised bare on NaN
        if bound is not None and (isinstance(bound, bool) or
                                  not isinstance(bound, (int, np.integer))):
            raise InvalidTypeError(f"input_signal_range {signal_range!r}: start and end must "
                                   f"be ints or None, got {bound!r}")
    start = 0 if signal_range[0] is None else int(signal_range[0])
    end = n if signal_range[1] is None else int(signal_range[1])
    if not 0 <= start <= end <= n:
        raise InvalidArgumentError(f"input_signal_range {signal_range!r} must satisfy "
                                   f"0 <= start <= end <= {n} (the FFT length)")
    return (start, end)


def _one_pass_shader(buffer_shape: Tuple, axis: int, inverse: bool, normalize_inverse: bool,
                     r2c: bool, input_map, output_map, input_type, output_type, compute_type,
                     signal_range: Tuple[int, int], limits: DeviceLimits,
                     name: Optional[str], strided: Optional[StridedGroups]) -> ShaderFunction:
    name = name or (f"fft_shader_{buffer_shape}_{axis}_{inverse}_{normalize_inverse}_{r2c}")
    with fft_context(buffer_shape, axis, compute_type=compute_type, name=name,
                     limits=limits, strided=strided) as ctx:
        if r2c and ctx.config.fft_stride != 1:
            raise InvalidArgumentError("R2C io only supported for contiguous data (the last "
                                       f"axis); got axis {axis} of shape {buffer_shape}")
        io = ctx.make_io_manager(output_map, output_type, input_type, input_map)
        io.read_input(r2c=r2c, inverse=inverse, signal_range=signal_range)
        ctx.execute(inverse)
        if inverse and normalize_inverse:
            ctx.registers.normalize()
        io.write_output(r2c=r2c, inverse=inverse)
    return ctx.get_callable()


def _pass(buffer_shape: Tuple, axis: int, *, inverse: bool, normalize_inverse: bool,
          input_map, output_map, input_type, output_type, compute_type, input_signal_range,
          limits: DeviceLimits, name: Optional[str],
          strided: Optional[StridedGroups] = None) -> ShaderFunction:
    """One pass of a multi-pass transform (C2C, no signal range; ``strided``: see
    :class:`~vkdispatch.fft.grid.StridedGroups`)."""
    return _fft_shader(limits, buffer_shape, axis, inverse, normalize_inverse, False,
                       input_map, output_map, input_type, output_type, compute_type,
                       (0, buffer_shape[axis]), name, strided)


@functools.lru_cache(maxsize=None)
def _fft_shader(limits: DeviceLimits, buffer_shape: Tuple, axis: int, inverse: bool,
                normalize_inverse: bool, r2c: bool, input_map, output_map, input_type,
                output_type, compute_type, signal_range: Tuple[int, int],
                name: Optional[str], strided: Optional[StridedGroups] = None):
    n = buffer_shape[axis]
    if needs_bluestein(n):
        budget = rader_budget(buffer_shape, axis, compute_type, limits)
        if budget is not None:
            return RaderFFT(buffer_shape, axis, inverse, normalize_inverse, r2c, input_map,
                            output_map, input_type, output_type, compute_type, signal_range,
                            limits, name, budget)
        return BluesteinFFT(buffer_shape, axis, inverse, normalize_inverse, r2c, input_map,
                            output_map, input_type, output_type, compute_type, signal_range,
                            limits, name, _pass)
    if r2c and can_pack(buffer_shape, axis, input_map, output_map, signal_range,
                        compute_type, limits):
        return packed_real_shader(buffer_shape, inverse, normalize_inverse, output_type,
                                  compute_type, limits, name)
    if fits_one_pass(n, compute_type, limits, math.prod(buffer_shape[axis + 1:])):
        return _one_pass_shader(buffer_shape, axis, inverse, normalize_inverse, r2c, input_map,
                                output_map, input_type, output_type, compute_type,
                                signal_range, limits, name, strided)
    if r2c or signal_range != (0, n):
        caller = (input_map, output_map, input_type, output_type)
        input_map, output_map, in_place = caller_hooks(
            n, math.prod(buffer_shape[axis + 1:]), r2c, inverse, signal_range, *caller)
        return FourStepFFT(_pass, buffer_shape, axis, inverse, normalize_inverse, input_map,
                           output_map, None, caller[3], compute_type, limits, name,
                           in_place=in_place, r2c=r2c, caller=caller)
    return FourStepFFT(_pass, buffer_shape, axis, inverse, normalize_inverse, input_map,
                       output_map, input_type, output_type, compute_type, limits, name)


def make_fft_shader(buffer_shape: Tuple, axis: int = None, inverse: bool = False,
                    normalize_inverse: bool = True, r2c: bool = False, input_map=None,
                    output_map=None, input_type=None, output_type=None, compute_type=None,
                    input_signal_range=None, name: Optional[str] = None) -> ShaderFunction:
    """The (cached) shader of the 1-D FFT of every line along ``axis``: a ShaderFunction, or
    for lines longer than one workgroup holds, a :class:`FourStepFFT` called the same way
    (two dispatches), or for lengths with a prime factor above 31 a
    :class:`~vkdispatch.fft.rader.RaderFFT` (primes whose p - 1 has only the butterflies'
    primes: one dispatch) or a :class:`~vkdispatch.fft.bluestein.BluesteinFFT` (one dispatch,
    or four). Each refuses a buffer too small for ``buffer_shape``, naming both shapes.

    Missing types default to complex64; without an input map the input type is the output
    type (in place). ``buffer_shape`` is the real shape for ``r2c``.
    """
    if isinstance(buffer_shape, (tuple, list)) and not buffer_shape:  # a buffer's () is (1,)
        raise InvalidArgumentError("buffer_shape: the shape to transform needs 1-3 axes, got ()")
    shape = normalize_shape(buffer_shape, "buffer_shape")
    axis = normalize_axis(axis, len(shape))
    output_type = output_type or dt.complex64
    if input_type is None and input_map is None and output_map is None:
        input_type = output_type
    return _fft_shader(DeviceLimits.current(), shape, axis, bool(inverse),
                       bool(normalize_inverse), bool(r2c), input_map, output_map, input_type,
                       output_type, compute_type or dt.complex64,
                       signal_range_of(input_signal_range, shape[axis]), name)


def get_cache_info():
    """``functools`` cache statistics of the FFT shader factory."""
    return _fft_shader.cache_info()


def fft_cache_clear() -> None:
    """Drops every cached FFT shader (they are rebuilt on next use)."""
    _fft_shader.cache_clear()
