"""vd.vkfft: FFTs and 2-D convolutions by VkFFT, recorded as commands of vkdispatch's graphs.

VkFFT covers any length (radix 2-13 kernels, Rader and Bluestein for other primes, several
passes for long lines), 1-3 axes, real and complex data, float32 and float64. Each call records
one command: on the default graph it runs at once; in a CommandGraph it is ordered with the
shader calls around it by the buffers it reads and writes. Plans are cached per context and
their kernels on disk.
"""
from vkdispatch.vkfft.convolution import convolve2D, transpose_kernel2D
from vkdispatch.vkfft.functions import (fft, fft2, fft3, ifft, ifft2, ifft3, irfft, irfft2,
                                        irfft3, rfft, rfft2, rfft3)
from vkdispatch.vkfft.vkfft_dispatcher import clear_plan_cache
from vkdispatch.vkfft.vkfft_plan import VkFFTPlan

__all__ = ["VkFFTPlan", "fft", "fft2", "fft3", "ifft", "ifft2", "ifft3", "rfft", "rfft2",
           "rfft3", "irfft", "irfft2", "irfft3", "clear_plan_cache", "convolve2D",
           "transpose_kernel2D"]
