"""Fused FFT convolution: transform, multiply by a kernel spectrum, transform back, in one
dispatch per axis (``vd.fft.convolve``, ``convolve2D``, ``convolve2DR``), and the transposed
kernel layout that makes kernel reads along strided axes coalesce (``transpose``).

One convolution shader loads a line, runs the forward FFT, applies the kernel hook to every
register where the transform left it (the kernel is read at each spectrum element's index),
and for each of ``kernel_num`` kernels runs the inverse as the adjoint of the forward stages
(backwards, from the forward's output layout to its input one: no exchange between the two
transforms) and stores through the output side. The default
kernel hook multiplies by the conjugate of the kernel spectrum: a circular cross-correlation.
"""
from __future__ import annotations

import functools
import math
from typing import Optional, Tuple

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer
from vkdispatch.base.rfft_buffer import RFFTBuffer
import vkdispatch.codegen as vc
from vkdispatch.errors import (InvalidArgumentError, InvalidShaderArgumentError,
                               InvalidTypeError)
from vkdispatch.execution_pipeline.graphs import one_submission
from vkdispatch.fft.bluestein import needs_bluestein
from vkdispatch.fft.config import DeviceLimits, FFTConfig, normalize_axis
from vkdispatch.fft.context import fft_context
from vkdispatch.fft.functions import (cached_plan, check_flags, check_graph,
                                      check_in_place_buffer, check_int, check_live, check_name,
                                      fft, irfft, one_operation, rfft, shape_of)
from vkdispatch.fft.grid import FFTGridManager
from vkdispatch.fft.iterators import global_trasposed_write_iterator, register_reads_iterator
from vkdispatch.fft.memory_ops import kernel_index_scope, write_op
from vkdispatch.fft.fused_budget import (CONVOLUTION_BUDGETS, CONVOLUTION_WHOLE_LINE_BYTES,
                                        fused_register_budget)
from vkdispatch.fft.operand_types import resolve_convolution_types, resolve_transpose_types
from vkdispatch.fft.plane import plane_convolution_shader, plane_fits
from vkdispatch.fft.prime_utils import pad_dim
from vkdispatch.fft.shader_factories import signal_range_of
from vkdispatch.fft.unfused_convolution import UnfusedConvolution
from vkdispatch.shader.mapping import MappingFunction
from vkdispatch.shader.mapping import map as make_map
from vkdispatch.shader.shader_function import ShaderFunction

__all__ = ["convolve", "convolve2D", "convolve2DR", "transpose", "make_convolution_shader",
           "make_transpose_shader", "get_transposed_size", "get_convolution_cache_info",
           "convolution_cache_clear"]


# Where the spectrum sits when the kernel is applied: the forward transform's output
# layout, which the adjoint inverse (``FFTContext.execute_adjoint``) starts from.
SPECTRUM_LAYOUT = (-1, True)


def _fused_line(buffer_shape: Tuple, axis: int, compute_type, limits: DeviceLimits) -> dict:
    """The plan arguments of a fused convolution's line, shared by the convolution shader
    and the transposed kernel's layout (which must match it register for register)."""
    return {"max_register_count": fused_register_budget(buffer_shape, axis, compute_type,
                                                        limits, CONVOLUTION_BUDGETS),
            "split_above_bytes": CONVOLUTION_WHOLE_LINE_BYTES}


@functools.lru_cache(maxsize=None)
def _convolution_shader(limits: DeviceLimits, buffer_shape: Tuple, axis: int, kernel_map,
                        kernel_num: int, normalize: bool, transposed_kernel: bool,
                        kernel_inner_only: bool, input_map, output_map, input_type,
                        output_type, kernel_type, compute_type,
                        signal_range: Tuple[int, int], name: Optional[str]) -> ShaderFunction:
    name = name or f"convolution_shader_{buffer_shape}_{axis}"
    with fft_context(buffer_shape, axis, compute_type=compute_type, name=name, limits=limits,
                     **_fused_line(buffer_shape, axis, compute_type, limits)) as ctx:
        io = ctx.make_io_manager(output_map, output_type, input_type, input_map,
                                 kernel_map if kernel_map is not None else kernel_type)
        io.read_input(signal_range=signal_range)
        ctx.execute(inverse=False)  # the spectrum in the last stage's output layout
        backup = None
        if kernel_num > 1:
            backup = ctx.allocate_registers("spectrum")
            backup.read_from_registers(ctx.registers)
        for index in range(kernel_num):
            if index > 0:
                ctx.registers.read_from_registers(backup)
            with kernel_index_scope(index):
                io.read_kernel(format_transposed=transposed_kernel,
                               inner_only=kernel_inner_only, layout=SPECTRUM_LAYOUT)
                ctx.execute_adjoint()  # N x the inverse, back in the load layout
                if normalize:
                    ctx.registers.normalize()
                io.write_output(layout=(0, False))
    return ctx.get_callable()


def make_convolution_shader(buffer_shape: Tuple, kernel_map=None, kernel_num: int = 1,
                            axis: int = None, normalize: bool = True,
                            transposed_kernel: bool = False, kernel_inner_only: bool = False,
                            input_map=None, output_map=None, input_type=None, output_type=None,
                            kernel_type=None, compute_type=None, input_signal_range=None,
                            name: Optional[str] = None) -> ShaderFunction:
    """The (cached) fused convolution shader along ``axis`` of ``buffer_shape``; missing
    types default to complex64 (the input to the output type without an input map)."""
    shape = tuple(int(d) for d in buffer_shape)
    axis = normalize_axis(axis, len(shape))
    if isinstance(kernel_num, bool) or not isinstance(kernel_num, int) or kernel_num < 1:
        raise InvalidArgumentError(f"kernel_num must be a positive int, got {kernel_num!r}")
    output_type = output_type or dt.complex64
    if input_type is None and input_map is None and output_map is None:
        input_type = output_type
    if kernel_map is None:
        kernel_type = kernel_type or dt.complex64
    return _convolution_shader(DeviceLimits.current(), shape, axis, kernel_map, kernel_num,
                               bool(normalize), bool(transposed_kernel),
                               bool(kernel_inner_only), input_map, output_map, input_type,
                               output_type, kernel_type, compute_type or dt.complex64,
                               signal_range_of(input_signal_range, shape[axis]), name)


def _fits_fused(shape: Tuple, axis, compute_type) -> bool:
    """Whether one workgroup holds a line of the convolution (with some register budget)."""
    try:
        fused_register_budget(shape, normalize_axis(axis, len(shape)), compute_type,
                              DeviceLimits.current(), CONVOLUTION_BUDGETS)
    except InvalidArgumentError:
        return False
    return True


@functools.lru_cache(maxsize=None)
def _conjugate_product(output_type, kernel_type) -> MappingFunction:
    """The output hook ``out[i] = value * conj(kernel[i])`` (one object per dtype pair, so
    the shaders built with it are cached)."""
    def store(out, kernel):
        op = write_op()
        value = kernel[op.io_index]
        ct = op.register.var_type
        value = vc.cast_to(ct, value)
        product = vc.mult_complex(op.register, vc.to_dtype(ct, value.real, -value.imag))
        out[op.io_index] = vc.cast_to(out.var_type, product)

    return make_map(store, input_types=[vc.Buffer[output_type], vc.Buffer[kernel_type]])


def _unfused_convolve(buffer, kernel, shape: Tuple, axis, normalize: bool, graph,
                      print_shader: bool, compute_type) -> None:
    """A line longer than one workgroup: the FFT (two passes) stores its product with the
    kernel's conjugate through an output hook, then the inverse FFT; four passes instead of
    one, but any length the FFTs handle."""
    product = _conjugate_product(buffer.var_type, kernel.var_type)
    with one_submission(graph):
        fft(buffer, kernel, buffer, buffer_shape=shape, graph=graph, print_shader=print_shader,
            axis=axis, output_map=product, input_type=buffer.var_type,
            compute_type=compute_type)
        fft(buffer, buffer_shape=shape, graph=graph, print_shader=print_shader, axis=axis,
            inverse=True, normalize_inverse=normalize, compute_type=compute_type)


def _check_kernel_size(kernel, shape: Tuple, axis, transposed: bool, inner_only: bool,
                       compute_type) -> None:
    """The kernel buffer must hold every element the convolution reads."""
    axis = normalize_axis(axis, len(shape))
    if transposed:
        needed = get_transposed_size(shape, axis, compute_type)
        what = "the transposed layout (vd.fft.get_transposed_size)"
    elif inner_only:
        needed, what = math.prod(shape[axis:]), "one kernel for every outer batch"
    else:
        needed, what = math.prod(shape), "one kernel per line"
    if kernel.size < needed:
        raise InvalidArgumentError(f"the kernel buffer holds {kernel.size} elements; {what} "
                                   f"of a convolution of {shape} along axis {axis} needs "
                                   f"{needed}")


def convolve(*buffers: Buffer, kernel_map: MappingFunction = None, kernel_num: int = 1,
             buffer_shape: Tuple = None, graph=None, print_shader: bool = False,
             axis: int = None, normalize: bool = True, name: str = None,
             transposed_kernel: bool = False, kernel_inner_only: bool = False,
             input_map: MappingFunction = None, output_map: MappingFunction = None,
             output_type=None, input_type=None, kernel_type=None, compute_type=None,
             input_signal_range=None) -> None:
    """Circular convolution along ``axis`` in one dispatch: ``ifft(fft(x) * conj(K))`` with
    ``K`` the kernel *spectrum* (so a cross-correlation with the kernel's signal), or your
    ``kernel_map`` applied to the spectrum.

    Arguments: the output side, the input side (as :func:`fft`), then the kernel side (one
    kernel buffer shaped like the signal, or the ``kernel_map``'s arguments). With
    ``kernel_num > 1`` each kernel (``vd.fft.mapped_kernel_index()`` inside the hooks) gets
    its own inverse transform and store. ``kernel_inner_only`` broadcasts one kernel over
    the outer batches; ``transposed_kernel`` reads a kernel laid out by :func:`transpose`.

    A line longer than one workgroup holds, or a length with a prime factor above 31, is
    convolved unfused (an FFT, then the inverse applying the kernel) in every form but
    ``transposed_kernel``, which raises ``ValueError`` naming the length (see
    :mod:`vkdispatch.fft.unfused_convolution`); the plain form (one kernel per line, no hooks)
    does so in place, the others through a spectrum buffer made once per shape and context.
    """
    if not buffers:
        raise InvalidArgumentError("At least one buffer must be provided")
    check_graph(graph)
    shape = shape_of(buffer_shape, buffers[0])
    check_flags(normalize=normalize, transposed_kernel=transposed_kernel,
                kernel_inner_only=kernel_inner_only)
    check_name(name)
    check_int(axis, "axis")
    check_int(kernel_num, "kernel_num")
    options = (shape, kernel_map, kernel_num, axis, normalize, transposed_kernel,
               kernel_inner_only, input_map, output_map, input_type, output_type, kernel_type,
               compute_type, input_signal_range, name)

    def record() -> None:
        check_live(buffers)
        if input_map is None and output_map is None:
            check_in_place_buffer(buffers[0], shape, False)
        position, resolved_type, shader = cached_plan(_convolution_plan, buffers, options)
        if kernel_map is None and buffers[position] is buffers[0] and \
                (kernel_inner_only or transposed_kernel):
            # Lines read kernel values of other lines, which their own stores overwrite.
            raise InvalidArgumentError("kernel: with kernel_inner_only or transposed_kernel "
                                       "each line reads the kernel where other lines are "
                                       "written, so the kernel must be another buffer than "
                                       "the signal (copy it first)")
        if kernel_map is None:
            _check_kernel_size(buffers[position], shape, axis, transposed_kernel,
                               kernel_inner_only, resolved_type)
        if shader is None:
            _unfused_convolve(buffers[0], buffers[position], shape, axis, normalize, graph,
                              print_shader, resolved_type)
            return
        if print_shader:
            print(shader)
        shader(*buffers, graph=graph)
    # A repeat skips the checks too: they passed for the same buffers, shapes and options.
    one_operation(graph, print_shader, buffers, options, record)


def _convolution_plan(buffers, shape, kernel_map, kernel_num, axis, normalize,
                      transposed_kernel, kernel_inner_only, input_map, output_map, input_type,
                      output_type, kernel_type, compute_type, input_signal_range, name):
    """``(kernel argument position, compute type, shader)`` of a :func:`convolve` call, its
    types resolved and checked; the shader is None for the unfused long-line form."""
    position, input_type, output_type, kernel_type, compute_type = resolve_convolution_types(
        buffers, kernel_map, input_map, output_map, input_type, output_type, kernel_type,
        compute_type)
    plain = (kernel_map is None and kernel_num == 1 and not transposed_kernel
             and not kernel_inner_only and input_map is None and output_map is None
             and input_signal_range is None)
    fused = _fits_fused(shape, axis, compute_type)
    if plain and not fused:
        return position, compute_type, None
    normal_axis = normalize_axis(axis, len(shape))
    length = shape[normal_axis]
    if needs_bluestein(length) or not fused:
        if transposed_kernel:
            reason = (f"a prime factor above 31; or pad the axis to vd.fft.pad_dim({length}) "
                      f"= {pad_dim(length)}" if needs_bluestein(length)
                      else "longer than one workgroup holds")
            raise InvalidArgumentError(
                f"transposed_kernel: convolution along an axis of length {length} ({reason}) "
                "runs unfused, and the transposed layout is the fused shader's; pass the "
                "kernel untransposed")
        return position, compute_type, UnfusedConvolution(
            shape, normal_axis, kernel_map, kernel_num, normalize, kernel_inner_only, input_map,
            output_map, input_type, output_type, kernel_type, compute_type,
            signal_range_of(input_signal_range, length))
    return position, compute_type, make_convolution_shader(
        shape, kernel_map, kernel_num, axis, normalize, transposed_kernel, kernel_inner_only,
        input_map, output_map, input_type, output_type, kernel_type, compute_type,
        input_signal_range, name)


def _check_dims(buffer, dims: tuple, what: str) -> None:
    if not isinstance(buffer, Buffer):
        raise InvalidTypeError(f"{what} must be a vd.Buffer, got {type(buffer).__name__}")
    if len(buffer.shape) not in dims:
        raise InvalidArgumentError(f"{what} must have 2 or 3 dimensions, got shape "
                                   f"{tuple(buffer.shape)}")


def convolve2D(buffer: Buffer, kernel: Buffer, kernel_map=None, buffer_shape=None, graph=None,
               print_shader: bool = False, normalize: bool = True,
               transposed_kernel: bool = False, kernel_inner_only: bool = False,
               input_map=None, output_map=None, output_type=None, input_type=None,
               kernel_type=None, compute_type=None) -> None:
    """2-D circular convolution over the last two axes of a 2-D or 3-D buffer, in place,
    in three dispatches: an FFT along one axis (through ``input_map``), a fused convolution
    along the other (``kernel`` = ``fft2`` of the kernel), and the inverse FFT along the first
    (through ``output_map``). Planes that fit one workgroup (complex64 up to 4096 values)
    without maps, types or ``transposed_kernel`` are convolved in one dispatch.

    The fused pass runs along the last, contiguous axis (its loads coalesce; the two plain
    FFTs take the strided one); with ``transposed_kernel`` or ``kernel_inner_only`` it runs
    along axis -2, the axis :func:`transpose` and the broadcast layout are defined for."""
    _check_dims(buffer, (2, 3), "convolve2D's buffer")
    check_flags(normalize=normalize, transposed_kernel=transposed_kernel,
                kernel_inner_only=kernel_inner_only)  # before they key the repeat
    if kernel is buffer:
        raise InvalidArgumentError("kernel: convolve2D transforms buffer in place before it "
                                   "reads the kernel, so the kernel must be another buffer "
                                   "(copy it first)")
    shape = shape_of(buffer_shape, buffer)
    if len(shape) not in (2, 3):  # the axes are buffer_shape's (a 3-D one on a 2-D buffer
        # convolved along the wrong axes)
        raise InvalidArgumentError(f"buffer_shape must have 2 or 3 dimensions (convolve2D "
                                   f"works on the last two), got {shape}")
    last = len(shape) - 1
    fused = last - 1 if transposed_kernel or kernel_inner_only else last
    other = last if fused == last - 1 else last - 1
    first = (buffer, buffer) if input_map is not None else (buffer,)

    plain = (kernel_map is None and isinstance(kernel, Buffer) and not transposed_kernel
             and input_map is None and output_map is None and input_type is None
             and output_type is None)

    def record() -> None:
        if plain:
            check_live((buffer, kernel))
            check_graph(graph)
            plane = cached_plan(_plane_convolution_plan, (buffer, kernel),
                                (shape, normalize, kernel_inner_only, kernel_type,
                                 compute_type))
            if plane:
                check_in_place_buffer(buffer, shape, False)
                _check_kernel_size(kernel, shape, fused, False, kernel_inner_only,
                                   plane[0])
                if print_shader:
                    print(plane[1])
                plane[1](buffer, kernel, graph=graph)
                return
        fft(*first, graph=graph, print_shader=print_shader, axis=other, input_map=input_map,
            input_type=None if input_map is not None else input_type, compute_type=compute_type,
            buffer_shape=shape)
        kernel_args = () if kernel_map is not None and kernel is None else (kernel,)
        convolve(buffer, *kernel_args, kernel_map=kernel_map, buffer_shape=shape, graph=graph,
                 print_shader=print_shader, axis=fused, normalize=normalize,
                 transposed_kernel=transposed_kernel, kernel_inner_only=kernel_inner_only,
                 kernel_type=kernel_type, compute_type=compute_type)
        last_pass = (buffer, buffer) if output_map is not None else (buffer,)
        fft(*last_pass, graph=graph, print_shader=print_shader, axis=other, inverse=True,
            normalize_inverse=normalize, output_map=output_map,
            output_type=None if output_map is not None else output_type,
            input_type=buffer.var_type if output_map is not None else None,
            compute_type=compute_type, buffer_shape=shape)
    one_operation(graph, print_shader, (buffer,) if kernel is None else (buffer, kernel),
                  (kernel is None, kernel_map, shape, normalize, transposed_kernel,
                   kernel_inner_only, input_map, output_map, output_type, input_type,
                   kernel_type, compute_type), record)


def _plane_convolution_plan(buffers: tuple, shape: tuple, normalize: bool, inner_only: bool,
                            kernel_type, compute_type):
    """``(compute type, shader)`` of a plain convolve2D whose planes fit one workgroup (one
    pass, see plane.py), else False (cached too)."""
    _, _, output_type, kernel_type, compute_type = resolve_convolution_types(
        buffers, None, None, None, None, None, kernel_type, compute_type)
    limits = DeviceLimits.current()
    if not plane_fits(shape[-2], shape[-1], compute_type, limits):
        return False
    return compute_type, plane_convolution_shader(limits, tuple(shape), bool(normalize),
                                                  bool(inner_only), output_type, kernel_type,
                                                  compute_type)


def convolve2DR(buffer: RFFTBuffer, kernel: RFFTBuffer, kernel_map=None, buffer_shape=None,
                transposed_kernel: bool = False, kernel_inner_only: bool = False, graph=None,
                print_shader: bool = False, normalize: bool = True, compute_type=None) -> None:
    """2-D circular convolution of real data in place on an :class:`~vkdispatch.RFFTBuffer`:
    ``rfft``, a fused convolution of the half spectrum along axis -2 with ``kernel`` (which
    holds ``rfft2`` of the real kernel), ``irfft``. Three dispatches."""
    if not isinstance(buffer, RFFTBuffer):
        raise InvalidTypeError(f"convolve2DR needs a vd.RFFTBuffer, got {type(buffer).__name__}")
    check_flags(normalize=normalize, transposed_kernel=transposed_kernel,
                kernel_inner_only=kernel_inner_only)
    if len(buffer.real_shape) not in (2, 3):
        raise InvalidArgumentError(f"convolve2DR's buffer must have a 2-D or 3-D real shape, "
                                   f"got {buffer.real_shape}")
    shape = shape_of(buffer_shape, buffer)
    if kernel_map is None and not isinstance(kernel, Buffer):
        raise InvalidTypeError(f"kernel: convolve2DR needs the kernel's rfft2 in a vd.Buffer "
                               f"(an RFFTBuffer, or transposed), or a kernel_map; got "
                               f"{type(kernel).__name__}")
    if kernel is buffer:
        raise InvalidArgumentError("kernel: convolve2DR transforms buffer in place before it "
                                   "reads the kernel, so the kernel must be another buffer "
                                   "(copy it first)")
    kernel_args = () if kernel_map is not None and kernel is None else (kernel,)

    def record() -> None:
        rfft(buffer, graph=graph, print_shader=print_shader, compute_type=compute_type)
        convolve(buffer, *kernel_args, kernel_map=kernel_map, buffer_shape=shape, graph=graph,
                 print_shader=print_shader, axis=len(shape) - 2, normalize=normalize,
                 transposed_kernel=transposed_kernel, kernel_inner_only=kernel_inner_only,
                 input_type=buffer.var_type, output_type=buffer.var_type,
                 kernel_type=None if kernel_map is not None else kernel.var_type,
                 compute_type=compute_type)
        irfft(buffer, graph=graph, print_shader=print_shader, normalize=normalize,
              compute_type=compute_type)
    one_operation(graph, print_shader, (buffer,) if kernel is None else (buffer, kernel),
                  (kernel is None, kernel_map, shape, transposed_kernel, kernel_inner_only,
                   normalize, compute_type), record)


# -- the transposed kernel layout -------------------------------------------------------------

def _grid(buffer_shape: Tuple, axis, compute_type, limits: DeviceLimits) -> FFTGridManager:
    config = FFTConfig(buffer_shape, axis, compute_type=compute_type, limits=limits,
                       **_fused_line(buffer_shape, axis, compute_type, limits))
    return FFTGridManager(config, declare_variables=False)


@functools.lru_cache(maxsize=None)
def _transposed_size(limits: DeviceLimits, buffer_shape: Tuple, axis: int, compute_type) -> int:
    grid = _grid(buffer_shape, axis, compute_type, limits)
    return math.prod(grid.local_size) * grid.config.register_count * grid.group_count


def get_transposed_size(buffer_shape: Tuple, axis: int = None,
                        compute_type=dt.complex64) -> int:
    """Elements of the transposed kernel buffer of a convolution along ``axis`` of
    ``buffer_shape``: invocations per group x registers x groups (more than the shape's
    element count when some register slots are unused)."""
    shape = tuple(int(d) for d in buffer_shape)
    return _transposed_size(DeviceLimits.current(), shape, normalize_axis(axis, len(shape)),
                            compute_type)


@functools.lru_cache(maxsize=None)
def _transpose_shader(limits: DeviceLimits, buffer_shape: Tuple, axis: int, inner_only: bool,
                      input_type, output_type, compute_type) -> ShaderFunction:
    with fft_context(buffer_shape, axis, compute_type=compute_type, limits=limits,
                     name=f"transpose_shader_{buffer_shape}_{axis}",
                     **_fused_line(buffer_shape, axis, compute_type, limits)) as ctx:
        out_buffer, in_buffer = ctx.declare_shader_args([vc.Buffer[output_type],
                                                         vc.Buffer[input_type]])
        for op in register_reads_iterator(ctx.registers, inner_only=inner_only,
                                          layout=SPECTRUM_LAYOUT):
            op.read_from_buffer(in_buffer)
        for op in global_trasposed_write_iterator(ctx.registers, inner_only, SPECTRUM_LAYOUT):
            op.write_to_buffer(out_buffer)
    shader = ctx.get_callable()
    kernel = buffer_shape[axis:] if inner_only else buffer_shape
    shader.require_buffer_bytes({
        0: (_transposed_size(limits, buffer_shape, axis, compute_type) * output_type.item_size,
            f"the transposed kernel of {buffer_shape} (vd.fft.get_transposed_size)"),
        1: (math.prod(kernel) * input_type.item_size,
            f"a kernel of shape {kernel} of {input_type.name}")})
    return shader


def make_transpose_shader(buffer_shape: Tuple, axis: int = None, kernel_inner_only: bool = False,
                          input_type=dt.complex64, output_type=dt.complex64,
                          compute_type=dt.complex64) -> ShaderFunction:
    """The (cached) shader writing a kernel spectrum (natural order) into the transposed
    layout of convolutions along ``axis`` of ``buffer_shape``: ``shader(out, in)``."""
    shape = tuple(int(d) for d in buffer_shape)
    return _transpose_shader(DeviceLimits.current(), shape, normalize_axis(axis, len(shape)),
                             bool(kernel_inner_only), input_type, output_type, compute_type)


def transpose(in_buffer: Buffer, conv_shape: Tuple = None, axis: int = None,
              out_buffer: Buffer = None, graph=None, kernel_inner_only: bool = False,
              print_shader: bool = False, input_type=None, output_type=None,
              compute_type=None) -> Buffer:
    """Writes the kernel spectrum ``in_buffer`` into the transposed layout that
    ``convolve(..., transposed_kernel=True)`` reads (coalesced along strided axes); returns
    ``out_buffer``, allocated with :func:`get_transposed_size` elements when not given."""
    check_graph(graph)
    input_type, output_type, compute_type = resolve_transpose_types(
        in_buffer, out_buffer, input_type, output_type, compute_type)
    shape = tuple(conv_shape) if conv_shape is not None else tuple(in_buffer.shape)
    size = get_transposed_size(shape, axis, compute_type)
    if out_buffer is None:
        out_buffer = Buffer((size,), output_type)
    elif out_buffer.var_type is not output_type:  # a ValueError in 0.1.0, a TypeError too
        raise InvalidShaderArgumentError(f"out_buffer holds {out_buffer.var_type.name}, not "
                               f"output_type={output_type.name}")
    elif out_buffer.size < size:
        raise InvalidArgumentError(f"out_buffer holds {out_buffer.size} elements; the "
                                   f"transposed kernel of {shape} needs {size} "
                                   "(vd.fft.get_transposed_size)")
    shader = make_transpose_shader(shape, axis, kernel_inner_only, input_type, output_type,
                                   compute_type)
    if print_shader:
        print(shader)
    shader(out_buffer, in_buffer, graph=graph)
    return out_buffer


def get_convolution_cache_info():
    """``functools`` cache statistics of the convolution shader factory."""
    return _convolution_shader.cache_info()


def convolution_cache_clear() -> None:
    """Drops the cached convolution and transpose shaders and transposed sizes."""
    for cache in (_convolution_shader, _transpose_shader, _transposed_size):
        cache.cache_clear()
