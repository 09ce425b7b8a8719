"""``vd.fft``: FFTs generated in the shader DSL (one dispatch per transformed axis).

Transforms (``fft``, ``ifft``, ``rfft``... and the 2-D/3-D forms) work in place on a buffer,
or through ``vd.map`` hooks that read and write other buffers, fused into the transform;
``convolve``/``convolve2D``/``convolve2DR`` fuse FFT, kernel multiply and inverse FFT.
The low-level building blocks (``fft_context`` and friends) build custom FFT shaders.
"""
from vkdispatch.fft.config import FFTConfig, FFTRegisterStageConfig, FFTStage
from vkdispatch.fft.context import FFTContext, fft_context
from vkdispatch.fft.functions import (fft, fft2, fft3, ifft, ifft2, ifft3, irfft, irfft2,
                                      irfft3, rfft, rfft2, rfft3)
from vkdispatch.fft.grid import FFTGridManager
from vkdispatch.fft.io_manager import IOManager, IOProxy
from vkdispatch.fft.iterators import (global_reads_iterator, global_trasposed_write_iterator,
                                      global_transposed_write_iterator, global_writes_iterator,
                                      memory_reads_iterator, memory_writes_iterator,
                                      register_reads_iterator)
from vkdispatch.fft.memory_ops import (GlobalReadOp, GlobalTransposedWriteOp, GlobalWriteOp,
                                       MemoryOp, mapped_kernel_index, read_op, write_op)
from vkdispatch.fft.prime_utils import pad_dim
from vkdispatch.fft.registers import FFTRegisters
from vkdispatch.fft.resources import FFTResources
from vkdispatch.fft.sdata import FFTSDataManager
from vkdispatch.fft.caches import cache_clear, get_cache_info, print_cache_info
from vkdispatch.fft.convolution import (convolve, convolve2D, convolve2DR,
                                        get_transposed_size, make_convolution_shader,
                                        make_transpose_shader, transpose)
from vkdispatch.fft.shader_factories import make_fft_shader
from vkdispatch.fft.src_functions import *  # noqa: F401,F403
from vkdispatch.fft.src_functions import __all__ as _sources

__all__ = [
    "fft", "fft2", "fft3", "ifft", "ifft2", "ifft3", "rfft", "rfft2", "rfft3", "irfft",
    "irfft2", "irfft3", "make_fft_shader", "get_cache_info", "cache_clear", "print_cache_info",
    "read_op", "write_op", "IOManager", "IOProxy", "GlobalReadOp", "GlobalWriteOp",
    "GlobalTransposedWriteOp", "MemoryOp", "global_reads_iterator", "global_writes_iterator",
    "memory_reads_iterator", "memory_writes_iterator", "fft_context", "FFTContext",
    "FFTConfig", "FFTStage", "FFTRegisterStageConfig", "FFTGridManager", "FFTSDataManager",
    "FFTRegisters", "FFTResources", "pad_dim", "convolve", "convolve2D", "convolve2DR",
    "transpose", "make_convolution_shader", "make_transpose_shader", "get_transposed_size",
    "mapped_kernel_index", "global_trasposed_write_iterator",
    "global_transposed_write_iterator", "register_reads_iterator",
] + list(_sources)  # fmt: skip
