"""vkdispatch: GPU compute from typed Python functions, on any Vulkan device.

``import vkdispatch as vd``. See the documentation (docs/) for a tour; every public name below
carries its own docstring.
"""
import sys

from vkdispatch.base.buffer import Buffer, asbuffer, from_cuda_array
from vkdispatch.base.dlpack import from_dlpack
from vkdispatch.base.profile import Profile, ProfileEvent, profile
from vkdispatch.base.buffer_shorthands import *  # noqa: F401,F403  (buffer_f32, ...)
from vkdispatch.base.buffer_shorthands import __all__ as _shorthands
from vkdispatch.base.context import (create_context, empty_cache, get_context,
                                     get_context_handle, is_context_initialized, make_context,
                                     queue_wait_idle, select_queue_families,
                                     set_dummy_context_params)
from vkdispatch.base.device_info import DeviceInfo
from vkdispatch.dtypes import (complex32, complex64, complex128, dtype, dvec2, dvec3, dvec4,
                               float16, float32, float64, hvec2, hvec3, hvec4, ihvec2, ihvec3,
                               ihvec4, int16, int32, int64, ivec2, ivec3, ivec4, mat2, mat3, mat4,
                               uhvec2, uhvec3, uhvec4, uint16, uint32, uint64, uvec2, uvec3, uvec4,
                               vec2, vec3, vec4)
from vkdispatch.base.image import (Image, Image1D, Image2D, Image2DArray, Image3D,
                                   image_format, image_type, image_view_type,
                                   select_image_format)
from vkdispatch.base.init import (get_backend, get_devices, initialize, is_cuda, is_dummy,
                                  is_initialized, is_opencl, is_vulkan)
from vkdispatch.base.log import (LogLevel, log, log_error, log_info, log_verbose, log_warning,
                                 set_log_level)
from vkdispatch.base.async_transfer import PendingTransfer
from vkdispatch.base.replicas import copy_replica
from vkdispatch.execution_pipeline.all_reduce import all_reduce
from vkdispatch.base.rfft_buffer import RFFTBuffer, asrfftbuffer
from vkdispatch.base.sampler import AddressMode, BorderColor, Filter, Sampler
from vkdispatch.base import shutdown  # noqa: F401  (closes the contexts left open at exit)
from vkdispatch.base.signal import Signal
from vkdispatch.errors import BackendUnavailableError, ShaderBuildError
from vkdispatch.execution_pipeline.buffer_copy import copy
from vkdispatch.execution_pipeline.command_graph import (BufferBindInfo, CommandGraph,
                                                         ImageBindInfo)
from vkdispatch.execution_pipeline.cuda_capture import (CUDAGraphCapture, cuda_graph_capture,
                                                        get_cuda_capture)
from vkdispatch.execution_pipeline.graphs import default_graph, global_graph, set_global_graph
from vkdispatch.shader.decorator import shader
from vkdispatch.shader.mapping import MappingFunction, map  # noqa: A004
from vkdispatch.shader.shader_function import (ShaderFunction, ShaderSource,
                                               make_shader_function)

from vkdispatch import fft, reduce, vkfft  # noqa: E402,A004  (built on everything above)
from vkdispatch.shader.launch import expose_public_namespace

expose_public_namespace(sys.modules[__name__])  # launch expressions' ``vd``

__version__ = "0.1.0"

# Not listed: the names of vkdispatch 0.1.0's CUDA and OpenCL backends, which this Vulkan build
# does not include (is_cuda, is_opencl, from_cuda_array, cuda_graph_capture, get_cuda_capture,
# CUDAGraphCapture). They stay importable, so that code written for 0.1.0 runs unchanged
# (vd.is_cuda() is False, the others raise InvalidStateError saying so), but stay out of
# __all__, help() and the documentation. DLPack (vd.from_dlpack, Buffer.__dlpack__) is listed:
# it is Vulkan-build API, sharing CUDA memory through Vulkan external memory.

__all__ = [
    "initialize", "is_initialized", "get_backend", "is_vulkan", "is_dummy",
    "BackendUnavailableError", "DeviceInfo", "get_devices",
    "LogLevel", "log", "log_error", "log_warning", "log_info", "log_verbose", "set_log_level",
    "dtype", "float16", "float32", "float64", "int16", "uint16", "int32", "uint32", "int64",
    "uint64", "complex32", "complex64", "complex128",
    "hvec2", "hvec3", "hvec4", "vec2", "vec3", "vec4", "dvec2", "dvec3", "dvec4",
    "ihvec2", "ihvec3", "ihvec4", "ivec2", "ivec3", "ivec4",
    "uhvec2", "uhvec3", "uhvec4", "uvec2", "uvec3", "uvec4", "mat2", "mat3", "mat4",
    "get_context", "get_context_handle", "make_context", "create_context",
    "select_queue_families",
    "set_dummy_context_params", "is_context_initialized", "queue_wait_idle", "empty_cache",
    "Signal",
    "Buffer", "asbuffer", "from_dlpack", "profile", "Profile",
    "ProfileEvent", "RFFTBuffer", "asrfftbuffer", "copy_replica",
    "all_reduce", "PendingTransfer",
    "Image", "Image1D", "Image2D", "Image2DArray", "Image3D", "image_format", "image_type",
    "image_view_type", "select_image_format", "Sampler", "Filter", "AddressMode", "BorderColor",
    "ShaderBuildError", "__version__", "CommandGraph", "BufferBindInfo", "ImageBindInfo",
    "default_graph", "global_graph", "set_global_graph", "copy", "shader", "ShaderFunction",
    "ShaderSource", "make_shader_function", "map", "MappingFunction", "fft", "reduce", "vkfft",
] + list(_shorthands)  # fmt: skip
