"""Batched 2-D circular convolution inside one VkFFT application: forward transform, product
with a kernel spectrum prepared by :func:`transpose_kernel2D`, inverse transform.

Two defects of VkFFT 1.2.26's convolutions are worked around here (and tested):

* with several batches (numberBatches > 1) every image after the first comes out wrong, so the
  images are convolved by a single-image plan run once per image at byte offsets (``runs``;
  still one command);
* without normalisation the result is scaled by the width W only (the fused inner transform
  always normalises by H), so an unnormalised convolution is followed by a pass multiplying
  by H, giving the H * W of an unnormalised inverse.
"""
from __future__ import annotations

import struct
from typing import Optional, Tuple

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer, normalize_shape
from vkdispatch.base.compute_plan import ComputePlan, context_plan
from vkdispatch.base.context import Context
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.execution_pipeline.graphs import graph_or_global
from vkdispatch.vkfft.functions import _complex_buffer
from vkdispatch.vkfft.vkfft_config import VkFFTConfig
from vkdispatch.vkfft.vkfft_dispatcher import execute_fft_plan

__all__ = ["convolve2D", "transpose_kernel2D"]

_LOCAL_SIZE = 256
_SCALE_KERNEL = """#version 450
{extension}
layout(local_size_x = {local_size}) in;
layout(set = 0, binding = 0) buffer Data {{ {scalar} values[]; }};
layout(push_constant) uniform Scale {{ uint count; float factor; }} scale;
void main() {{
    uint stride = gl_NumWorkGroups.x * {local_size}u;
    for (uint i = gl_GlobalInvocationID.x; i < scale.count; i += stride)
        values[i] *= {scalar}(scale.factor);
}}
"""


def _scale_kernel(context: Context, scalar: str) -> ComputePlan:
    extension = "#extension GL_ARB_gpu_shader_fp64 : require" if scalar == "double" else ""
    return context_plan(context, f"vd_vkfft_scale_{scalar}",
                        lambda: _SCALE_KERNEL.format(extension=extension, local_size=_LOCAL_SIZE,
                                                     scalar=scalar), [1], 8)


def _record_scale(graph, buffer: Buffer, factor: float) -> None:
    """Multiplies every scalar of ``buffer`` by ``factor``."""
    scalar = "double" if buffer.var_type is dt.complex128 else "float"
    count = 2 * buffer.size
    groups = min(-(-count // _LOCAL_SIZE), graph.context.max_workgroup_count[0])
    graph.record_dispatch(_scale_kernel(graph.context, scalar), None, (groups, 1, 1), (buffer,),
                          ((0, True, True),), b"", struct.pack("<If", count, factor))


def _batched_shape(shape, name: str) -> tuple[int, int, int]:
    shape = normalize_shape(shape, name)  # ints (a float equal to one was cached as it)
    if len(shape) == 2:
        shape = (1,) + shape
    if len(shape) != 3:
        raise InvalidArgumentError(f"{name}: Kernel shape must be 2D or 3D! Got {shape}")
    return shape


def transpose_kernel2D(kernel: Buffer, shape: Tuple[int, ...] = None, graph=None,
                       keep_shader_code: bool = False) -> None:
    """Turns a spatial kernel (batches of (H, W), or one (H, W)) into the spectrum layout
    :func:`convolve2D` multiplies by, in place."""
    _complex_buffer(kernel, "kernel")
    batches, height, width = _batched_shape(shape if shape is not None else kernel.shape,
                                            "shape")
    needed = batches * height * width * kernel.var_type.item_size
    if needed > kernel.mem_size:
        raise InvalidArgumentError(f"kernel: shape {(batches, height, width)} needs {needed} "
                                   f"bytes of {kernel.var_type.name}; the kernel (shape "
                                   f"{kernel.shape}) has {kernel.mem_size}")
    config = VkFFTConfig((height, width), kernel_convolution=True, convolution_features=1,
                         num_batches=batches, keep_shader_code=keep_shader_code,
                         fourier_type=kernel.var_type)
    execute_fft_plan(kernel, False, config, graph=graph)


def convolve2D(buffer: Buffer, kernel: Buffer, normalize: bool = False,
               conjugate_kernel: bool = False, graph=None, keep_shader_code: bool = False,
               padding: Optional[Tuple[Tuple[int, int], ...]] = None) -> None:
    """Convolves each (H, W) image of ``buffer`` (shape (B, H, W) or (H, W)) circularly with
    the matching image of ``kernel`` (same shape, prepared by :func:`transpose_kernel2D`), in
    place. With ``normalize`` the result is ``ifft2(fft2(x) * fft2(k))``; without, it is that
    times H * W. ``conjugate_kernel`` multiplies by the kernel's conjugate spectrum (a
    correlation). ``padding``: per (H, W) axis None or a ``(left, right)`` block of rows or
    columns VkFFT treats as zeros without reading them (indices ``left`` to ``right - 1``, with
    ``0 <= left < right <=`` the axis length; ``(0, 0)`` is no block); the result is valid
    outside the block (inside it VkFFT leaves rows unwritten and writes meaningless columns), as
    for a padded convolution whose padding is cut off afterwards.

    Raises:
        TypeError: a buffer that is not complex64/complex128, dtypes that differ, a padding
            that is not None or (left, right) pairs of ints.
        ValueError: a shape that is not 2-D or 3-D, a kernel of another shape, a padding
            block outside its axis or empty (``(5, 5)``: the pairs are bounds, not amounts).
    """
    _complex_buffer(buffer, "buffer")
    _complex_buffer(kernel, "kernel")
    if kernel.var_type is not buffer.var_type:
        raise InvalidTypeError(f"kernel holds {kernel.var_type.name} but buffer holds "
                               f"{buffer.var_type.name}")
    batches, height, width = _batched_shape(buffer.shape, "buffer")
    if _batched_shape(kernel.shape, "kernel") != (batches, height, width):
        raise InvalidArgumentError(f"kernel: shape {kernel.shape} must match the buffer's "
                                   f"{buffer.shape} (one prepared kernel per image)")
    graph = graph_or_global(graph)
    config = VkFFTConfig((height, width), normalize=normalize, padding=padding, kernel_count=1,
                         conjugate_convolution=2 if conjugate_kernel else 0,
                         convolution_features=1, keep_shader_code=keep_shader_code,
                         fourier_type=buffer.var_type, runs=batches)
    execute_fft_plan(buffer, False, config, kernel=kernel, graph=graph)
    if not normalize and height > 1:
        _record_scale(graph, buffer, float(height))
