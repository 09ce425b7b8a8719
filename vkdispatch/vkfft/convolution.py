"""Batched 2-D circular convolution inside one VkFFT application: forward transform, product
with a kernel spectrum prepared by :func:`transpose_kernel2D`, inverse transform."""
from __future__ import annotations

from typing import Optional, Tuple

from vkdispatch.base.buffer import Buffer
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.vkfft.functions import _complex_buffer
from vkdispatch.vkfft.vkfft_dispatcher import FFTConfig, execute_fft_plan, sanitize_input_tuple

__all__ = ["convolve2D", "transpose_kernel2D"]


def _batched_shape(shape, name: str) -> tuple[int, int, int]:
    shape = tuple(shape)
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
    config = FFTConfig(kernel._handle, (height, width), kernel_convolution=True,
                       convolution_features=1, num_batches=batches,
                       keep_shader_code=keep_shader_code, fourier_type=kernel.var_type)
    execute_fft_plan(kernel, False, config, graph=graph)


def convolve2D(buffer: Buffer, kernel: Buffer, normalize: bool = False,
               conjugate_kernel: bool = False, graph=None, keep_shader_code: bool = False,
               padding: Optional[Tuple[Tuple[int, int], ...]] = None) -> None:
    """Convolves each (H, W) image of ``buffer`` (shape (B, H, W) or (H, W)) circularly with
    the matching image of ``kernel`` (same shape, prepared by :func:`transpose_kernel2D`), in
    place. With ``normalize`` the result is ``ifft2(fft2(x) * fft2(k))``; without, it is that
    times H * W. ``conjugate_kernel`` multiplies by the kernel's conjugate spectrum (a
    correlation). ``padding``: per (H, W) axis None or a ``(left, right)`` block VkFFT treats as
    zeros without reading it.

    Raises:
        TypeError: a buffer that is not complex64/complex128, or dtypes that differ.
        ValueError: a shape that is not 2-D or 3-D, a kernel of another shape, bad padding.
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
    config = FFTConfig(buffer._handle, (height, width), normalize=bool(normalize),
                       padding=sanitize_input_tuple(padding), kernel_count=1,
                       conjugate_convolution=bool(conjugate_kernel), convolution_features=1,
                       num_batches=batches, keep_shader_code=keep_shader_code,
                       fourier_type=buffer.var_type)
    execute_fft_plan(buffer, False, config, kernel=kernel, graph=graph)
