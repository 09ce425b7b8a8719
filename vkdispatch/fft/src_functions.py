"""Source inspection: the GLSL of each transform's passes (``*_src``) or printed
(``*_print_src``), built through the same caches as the dispatching functions with complex64
everywhere. R2C helpers take the real shape. The 2-D and 3-D helpers show one pass per axis
(vkdispatch 0.1.0's tuples); ``fft2``/``fft3``/``convolve2D`` without maps run planes that
fit a workgroup as one pass instead."""
from __future__ import annotations

from typing import Tuple

from vkdispatch import dtypes as dt
from vkdispatch.fft.convolution import make_convolution_shader, make_transpose_shader
from vkdispatch.fft.shader_factories import make_fft_shader
from vkdispatch.shader.shader_function import ShaderSource

__all__ = [f"{name}{suffix}" for name in ("fft", "fft2", "fft3", "ifft", "ifft2", "ifft3",
                                          "rfft", "rfft2", "rfft3", "irfft", "irfft2",
                                          "irfft3", "convolve", "convolve2D", "convolve2DR",
                                          "transpose")
           for suffix in ("_src", "_print_src")]


def _source(buffer_shape: Tuple, axis=None, inverse=False, normalize=True, r2c=False,
            input_map=None, output_map=None, input_signal_range=None,
            line_numbers=False) -> ShaderSource:
    input_type = dt.complex64 if output_map is not None and input_map is None else None
    shader = make_fft_shader(tuple(buffer_shape), axis, inverse=inverse,
                             normalize_inverse=normalize, r2c=r2c, input_map=input_map,
                             output_map=output_map, input_type=input_type,
                             input_signal_range=input_signal_range)
    return shader.get_src(line_numbers)


def _half_shape(buffer_shape: Tuple) -> Tuple:
    return tuple(buffer_shape[:-1]) + (buffer_shape[-1] // 2 + 1,)


def fft_src(buffer_shape, axis=None, inverse=False, normalize_inverse=True, r2c=False,
            input_map=None, output_map=None, input_signal_range=None, line_numbers=False):
    return _source(buffer_shape, axis, inverse, normalize_inverse, r2c, input_map,
                   output_map, input_signal_range, line_numbers)


def ifft_src(buffer_shape, axis=None, normalize=True, input_map=None, output_map=None):
    return _source(buffer_shape, axis, True, normalize, input_map=input_map,
                   output_map=output_map)


def _multi(buffer_shape, axes, inverse=False, normalize=True, input_map=None,
           output_map=None) -> tuple:
    last = len(axes) - 1
    return tuple(_source(buffer_shape, axis, inverse, normalize,
                         input_map=input_map if i == 0 else None,
                         output_map=output_map if i == last else None)
                 for i, axis in enumerate(axes))


def fft2_src(buffer_shape, input_map=None, output_map=None):
    n = len(buffer_shape)
    return _multi(buffer_shape, [n - 2, n - 1], input_map=input_map, output_map=output_map)


def fft3_src(buffer_shape, input_map=None, output_map=None):
    return _multi(buffer_shape, [0, 1, 2], input_map=input_map, output_map=output_map)


def ifft2_src(buffer_shape, normalize=True, input_map=None, output_map=None):
    n = len(buffer_shape)
    return _multi(buffer_shape, [n - 2, n - 1], True, normalize, input_map, output_map)


def ifft3_src(buffer_shape, normalize=True, input_map=None, output_map=None):
    return _multi(buffer_shape, [0, 1, 2], True, normalize, input_map, output_map)


def rfft_src(buffer_shape):
    return _source(buffer_shape, r2c=True)


def irfft_src(buffer_shape, normalize=True):
    return _source(buffer_shape, inverse=True, normalize=normalize, r2c=True)


def rfft2_src(buffer_shape):
    return (rfft_src(buffer_shape),
            _source(_half_shape(buffer_shape), len(buffer_shape) - 2))


def rfft3_src(buffer_shape):
    half = _half_shape(buffer_shape)
    return (rfft_src(buffer_shape), _source(half, 1), _source(half, 0))


def irfft2_src(buffer_shape, normalize=True):
    return (_source(_half_shape(buffer_shape), len(buffer_shape) - 2, True, normalize),
            irfft_src(buffer_shape, normalize))


def irfft3_src(buffer_shape, normalize=True):
    half = _half_shape(buffer_shape)
    return (_source(half, 0, True, normalize), _source(half, 1, True, normalize),
            irfft_src(buffer_shape, normalize))


def convolve_src(buffer_shape, kernel_map=None, kernel_num=1, axis=None, normalize=True,
                 transposed_kernel=False, kernel_inner_only=False, input_map=None,
                 output_map=None, input_signal_range=None, line_numbers=False):
    input_type = dt.complex64 if output_map is not None and input_map is None else None
    shader = make_convolution_shader(tuple(buffer_shape), kernel_map, kernel_num, axis,
                                     normalize, transposed_kernel, kernel_inner_only,
                                     input_map, output_map, input_type,
                                     input_signal_range=input_signal_range)
    return shader.get_src(line_numbers)


def convolve2D_src(buffer_shape, kernel_map=None, normalize=True, transposed_kernel=False,
                   kernel_inner_only=False, input_map=None, output_map=None):
    """The three passes of :func:`~vkdispatch.fft.convolve2D`, in its axis order."""
    last = len(buffer_shape) - 1
    fused = last - 1 if transposed_kernel or kernel_inner_only else last
    other = last if fused == last - 1 else last - 1
    return (_source(buffer_shape, other, input_map=input_map),
            convolve_src(buffer_shape, kernel_map, 1, fused, normalize, transposed_kernel,
                         kernel_inner_only),
            _source(buffer_shape, other, True, normalize, output_map=output_map))


def convolve2DR_src(buffer_shape, kernel_map=None, transposed_kernel=False,
                    kernel_inner_only=False, normalize=True):
    """The three passes of :func:`~vkdispatch.fft.convolve2DR` (``buffer_shape`` is real)."""
    half = _half_shape(buffer_shape)
    return (rfft_src(buffer_shape),
            convolve_src(half, kernel_map, 1, len(half) - 2, normalize, transposed_kernel,
                         kernel_inner_only),
            irfft_src(buffer_shape, normalize))


def transpose_src(buffer_shape, axis=None, kernel_inner_only=False, line_numbers=False):
    return make_transpose_shader(tuple(buffer_shape), axis,
                                 kernel_inner_only).get_src(line_numbers)


def _printer(source_function):
    def print_src(*args, **kwargs) -> None:
        sources = source_function(*args, **kwargs)
        for source in sources if isinstance(sources, tuple) else (sources,):
            print(source)

    print_src.__name__ = source_function.__name__.replace("_src", "_print_src")
    print_src.__doc__ = f"Prints what :func:`{source_function.__name__}` returns."
    return print_src


for _function in (fft_src, fft2_src, fft3_src, ifft_src, ifft2_src, ifft3_src, rfft_src,
                  rfft2_src, rfft3_src, irfft_src, irfft2_src, irfft3_src, convolve_src,
                  convolve2D_src, convolve2DR_src, transpose_src):
    globals()[_function.__name__.replace("_src", "_print_src")] = _printer(_function)
