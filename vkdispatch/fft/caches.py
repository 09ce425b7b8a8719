"""The FFT library's shader caches, inspected and cleared together."""
from __future__ import annotations

from vkdispatch.fft.convolution import convolution_cache_clear, get_convolution_cache_info
from vkdispatch.fft.functions import plans_clear
from vkdispatch.fft.plane import plane_cache_clear
from vkdispatch.fft.shader_factories import fft_cache_clear, get_cache_info

__all__ = ["get_cache_info", "print_cache_info", "cache_clear"]


def print_cache_info() -> None:
    print(f"FFT shader cache: {get_cache_info()}")
    print(f"Convolution shader cache: {get_convolution_cache_info()}")


def cache_clear() -> None:
    """Drops every cached FFT, convolution and transpose shader (rebuilt on next use)."""
    plans_clear()
    fft_cache_clear()
    plane_cache_clear()
    convolution_cache_clear()
