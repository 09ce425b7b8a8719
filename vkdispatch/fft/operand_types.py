"""The complex types an FFT, a convolution or a kernel transpose reads, writes and computes in,
resolved from the call's buffers, its mapping hooks and its ``*_type`` arguments.

The arguments come side by side: the output side (the first buffer, or the ``output_map``'s
buffers), the input side (none when the FFT is in place; else one buffer, or the
``input_map``'s buffers), and for a convolution the kernel side (one kernel buffer, or the
``kernel_map``'s buffers). A side with a hook has no type of its own: the hook converts. A side
without one has the ``*_type`` argument, which must match its buffer, or else the buffer's
dtype. The compute type is then :func:`~vkdispatch.fft.precision.resolve_compute_precision` of
the sides' types. Every type is checked to be legal and supported by the context's devices.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from vkdispatch.base.buffer import Buffer
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.fft.precision import (ensure_supported_complex_precision,
                                      resolve_compute_precision, validate_complex_precision)
from vkdispatch.shader.mapping import MappingFunction

__all__ = ["check_map_function", "resolve_fft_types", "ConvolutionTypes",
           "resolve_convolution_types", "resolve_transpose_types"]


def check_map_function(map_fn: Optional[MappingFunction], map_name: str) -> None:
    """A hook must be a ``vd.map`` whose buffer annotations each name one dtype."""
    if map_fn is None:
        return
    if not isinstance(map_fn, MappingFunction):
        raise InvalidTypeError(f"{map_name} must be a vd.map MappingFunction, got {map_fn!r}")
    for annotation in map_fn.buffer_types:
        if len(getattr(annotation, "__args__", ())) != 1:
            raise InvalidArgumentError(f"{map_name} contains an annotation without exactly one "
                                       f"type argument: {annotation!r}")


def _check_buffer_type(buffer, precision, argument: str) -> None:
    """A buffer read or written as ``precision`` must hold that dtype (the shader would
    reinterpret its bytes otherwise)."""
    actual = getattr(buffer, "var_type", precision)
    if actual is not precision:
        raise InvalidTypeError(f"{argument}={precision.name} does not match the buffer's dtype "
                               f"{actual.name}; convert the data or pass a {precision.name} "
                               "buffer")


def _output_type(buffers, output_map, output_type):
    if output_map is not None:
        if output_type is not None:
            raise InvalidArgumentError("output_type cannot be provided when output_map is used")
        return None
    precision = output_type or buffers[0].var_type
    validate_complex_precision(precision, arg_name="output_type")
    _check_buffer_type(buffers[0], precision, "output_type")
    return ensure_supported_complex_precision(precision, role="Output")


def _input_type(buffers, input_map, output_map, input_type, output_precision):
    if input_map is not None:
        if input_type is not None:
            raise InvalidArgumentError("input_type cannot be provided when input_map is used")
        return None
    if output_map is not None:
        position = len(output_map.buffer_types)
        if len(buffers) <= position:
            raise InvalidArgumentError(
                f"an input buffer argument must be provided after the output_map's {position} "
                f"argument(s) when output_map is used without input_map")
        precision = input_type or getattr(buffers[position], "var_type", None)
        if precision is None:
            raise InvalidArgumentError(f"the input argument {buffers[position]!r} has no "
                                       "var_type: pass a vd.Buffer or input_type")
        _check_buffer_type(buffers[position], precision, "input_type")
    else:
        precision = input_type or output_precision
        validate_complex_precision(precision, arg_name="input_type")  # before reading .name
        if precision is not output_precision:
            raise InvalidArgumentError(
                "input_type must match output_type when input_map is None (default FFT path "
                f"is in-place): got input_type={precision.name}, "
                f"output_type={output_precision.name}")
    validate_complex_precision(precision, arg_name="input_type")
    return ensure_supported_complex_precision(precision, role="Input")


def _input_and_output_types(buffers, input_map, output_map, input_type, output_type):
    output_precision = _output_type(buffers, output_map, output_type)
    return (_input_type(buffers, input_map, output_map, input_type, output_precision),
            output_precision)


def _compute_type(precisions, compute_type):
    return resolve_compute_precision([p for p in precisions if p is not None], compute_type)


def resolve_fft_types(buffers, input_map, output_map, input_type, output_type, compute_type):
    """``(input type, output type, compute type)`` of an FFT; a side with a hook has None."""
    check_map_function(input_map, "input_map")
    check_map_function(output_map, "output_map")
    input_precision, output_precision = _input_and_output_types(
        buffers, input_map, output_map, input_type, output_type)
    return (input_precision, output_precision,
            _compute_type((output_precision, input_precision), compute_type))


class ConvolutionTypes(NamedTuple):
    """The resolved types of a convolution; a side with a hook has None."""

    kernel_position: int  # the kernel side's first argument, after the output and input sides
    input: Optional[type]
    output: Optional[type]
    kernel: Optional[type]
    compute: type


def _side_count(map_fn, present: bool) -> int:
    return len(map_fn.buffer_types) if map_fn is not None else int(present)


def _kernel_type(buffers, kernel_map, kernel_type, position: int):
    """``kernel_type`` or the dtype of the argument after the output and input sides."""
    if kernel_map is not None:
        if kernel_type is not None:
            raise InvalidArgumentError("kernel_type cannot be provided when kernel_map is used")
        return None
    if len(buffers) <= position:
        raise InvalidArgumentError("convolve() requires at least an output buffer and kernel "
                                   f"buffer (the kernel is argument {position}; got "
                                   f"{len(buffers)} arguments)")
    kernel = buffers[position]
    if not isinstance(kernel, Buffer):  # was reported as kernel_type (got None)
        raise InvalidTypeError(f"kernel: the kernel (argument {position}) must be a vd.Buffer "
                               f"holding its spectrum, got {type(kernel).__name__}")
    precision = kernel_type or kernel.var_type
    validate_complex_precision(precision, arg_name="kernel_type")
    if getattr(kernel, "var_type", precision) is not precision:
        raise InvalidTypeError(f"kernel_type={precision.name} does not match the kernel "
                               f"buffer's dtype {kernel.var_type.name}")
    return ensure_supported_complex_precision(precision, role="Kernel")


def resolve_convolution_types(buffers, kernel_map, input_map, output_map, input_type,
                              output_type, kernel_type, compute_type) -> ConvolutionTypes:
    """The types of a ``vd.fft.convolve`` call, and where its kernel side starts; the compute
    type covers the kernel's too."""
    for map_fn, map_name in ((kernel_map, "kernel_map"), (input_map, "input_map"),
                             (output_map, "output_map")):
        check_map_function(map_fn, map_name)
    inputs_present = input_map is None and output_map is not None
    position = _side_count(output_map, True) + _side_count(input_map, inputs_present)
    kernel_precision = _kernel_type(buffers, kernel_map, kernel_type, position)
    input_precision, output_precision = _input_and_output_types(
        buffers, input_map, output_map, input_type, output_type)
    compute = _compute_type((output_precision, input_precision, kernel_precision), compute_type)
    return ConvolutionTypes(position, input_precision, output_precision, kernel_precision,
                            compute)


def resolve_transpose_types(in_buffer: Buffer, out_buffer: Optional[Buffer], input_type,
                            output_type, compute_type):
    """``(input type, output type, compute type)`` of a kernel transpose: the output defaults
    to ``out_buffer``'s dtype, else to the input's."""
    input_type = input_type or in_buffer.var_type
    output_type = output_type or (out_buffer.var_type if out_buffer is not None
                                  else in_buffer.var_type)
    for role, precision in (("Input", input_type), ("Output", output_type)):
        validate_complex_precision(precision, arg_name=f"{role.lower()}_type")
        ensure_supported_complex_precision(precision, role=role)
    return input_type, output_type, resolve_compute_precision([input_type, output_type],
                                                              compute_type)
