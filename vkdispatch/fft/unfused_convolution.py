"""Convolutions along lines the fused shader cannot hold (a prime factor above 31, or longer
than one workgroup holds), in every form but the transposed kernel: a forward FFT from the caller's input side into a spectrum
buffer, then per kernel one inverse FFT whose input hook multiplies the spectrum by that kernel
and whose output goes through the caller's output side.

The FFTs transform any length (Rader's or Bluestein's algorithm, or two passes), and their
hooks see each element at its flat index in the signal's layout, so the caller's hooks run here
as they do in the fused shader: the kernel hook on an op whose ``io_index`` is the kernel's
index (the signal's, or with ``kernel_inner_only`` its index within one outer batch) and whose
register holds the spectrum value, and ``vd.fft.mapped_kernel_index()`` telling the kernel and
output hooks which kernel they serve.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from typing import Optional, Tuple

from vkdispatch.base.buffer import Buffer
import vkdispatch.codegen as vc
from vkdispatch.execution_pipeline.graphs import one_submission
from vkdispatch.fft.caller_hooks import multiply
from vkdispatch.fft.functions import fft
from vkdispatch.fft.memory_ops import derived_op, kernel_index_scope, read_op
from vkdispatch.fft.multi_pass import plain_reader
from vkdispatch.shader import dispatch_target
from vkdispatch.shader.mapping import MappingFunction
from vkdispatch.shader.mapping import map as make_map

__all__ = ["UnfusedConvolution"]


@functools.lru_cache(maxsize=None)
def _kernel_applier(kernel_map, kernel_type, compute_type, inner_size: Optional[int],
                    index: int) -> MappingFunction:
    """The inverse FFT's input hook for kernel ``index``: the spectrum element, then the
    caller's kernel hook on it (or times the conjugate of the kernel buffer's element).
    Cached: equal hooks give equal (cached) shaders."""
    kernel_types = list(kernel_map.buffer_types) if kernel_map is not None \
        else [vc.Buffer[kernel_type]]

    def apply(spectrum, *kernel):
        op = read_op()
        op.read_from_buffer(spectrum)
        at = op.io_index % inner_size if inner_size is not None else op.io_index
        with kernel_index_scope(index):
            if kernel_map is not None:
                with derived_op(dataclasses.replace(op, io_index=at)):
                    kernel_map.callback(*kernel)
                return
            multiply(op.register, kernel[0][at], conjugate=True)

    return make_map(apply, input_types=[vc.Buffer[compute_type]] + kernel_types)


@functools.lru_cache(maxsize=None)
def _indexed_output(output_map, index: int) -> MappingFunction:
    """The caller's output hook with ``mapped_kernel_index()`` returning ``index``."""
    def write(*variables):
        with kernel_index_scope(index):
            output_map.callback(*variables)

    return make_map(write, input_types=list(output_map.buffer_types))


class UnfusedConvolution:
    """One ``vd.fft.convolve`` form (see the module text), called like the fused shader:
    ``plan(*output_side, *input_side, *kernel_side, graph=g)``; the spectrum buffer is made
    once per context."""

    def __init__(self, shape: Tuple, axis: int, kernel_map, kernel_num: int, normalize: bool,
                 kernel_inner_only: bool, input_map, output_map, input_type, output_type,
                 kernel_type, compute_type, signal_range: Tuple[int, int]):
        self.shape, self.axis, self.compute_type = shape, axis, compute_type
        self.kernel_num, self.normalize, self.signal_range = kernel_num, normalize, signal_range
        self.input_map, self.output_map = input_map, output_map
        self.output_type = output_type
        self.output_count = len(output_map.buffer_types) if output_map is not None else 1
        self.input_count = len(input_map.buffer_types) if input_map is not None \
            else int(output_map is not None)
        self.reader = input_map if input_map is not None else plain_reader(
            input_type if output_map is not None else output_type)
        inner_size = math.prod(shape[axis:]) if kernel_inner_only else None
        self.appliers = [_kernel_applier(kernel_map, kernel_type, compute_type, inner_size, i)
                         for i in range(kernel_num)]
        self.writers = [None if output_map is None else _indexed_output(output_map, i)
                        for i in range(kernel_num)]

    def _spectrum(self, context) -> Buffer:
        spectrum = context.derived.get(self)
        if spectrum is None:
            with context:
                spectrum = Buffer(self.shape, self.compute_type)
            context.derived[self] = spectrum
        return spectrum

    def __call__(self, *args, graph=None) -> None:
        target = graph if graph is not None else dispatch_target.default_target()
        spectrum = self._spectrum(target.context)
        outputs = args[:self.output_count]
        inputs = args[self.output_count:self.output_count + self.input_count] or outputs
        kernel = args[self.output_count + self.input_count:]
        common = dict(buffer_shape=self.shape, axis=self.axis, graph=target,
                      compute_type=self.compute_type)
        with one_submission(target):
            fft(spectrum, *inputs, input_map=self.reader, output_type=self.compute_type,
                input_signal_range=self.signal_range, **common)
            for applier, writer in zip(self.appliers, self.writers):
                fft(*outputs, spectrum, *kernel, inverse=True, normalize_inverse=self.normalize,
                    input_map=applier, output_map=writer,
                    output_type=self.output_type if writer is None else None, **common)
