"""``vkdispatch.codegen`` (``vc``): the tracing DSL that turns Python functions into GLSL.

Pure Python: nothing here touches Vulkan, so shaders can be traced and printed without a GPU.
"""
from vkdispatch.codegen.abbreviations import *  # noqa: F401,F403
from vkdispatch.codegen.abbreviations import __all__ as _abbreviations
from vkdispatch.codegen.arguments import (Buffer, Constant, Image1D, Image2D, Image2DArray,
                                          Image3D, Variable, _ArgType)
from vkdispatch.codegen.builder import (BindingType, ShaderArgumentInfo, ShaderArgumentType,
                                        ShaderBinding, ShaderBuilder, ShaderDescription,
                                        ShaderFlags, StructElement)
from vkdispatch.codegen.context import (get_builder, get_shader_print_line_numbers, set_builder,
                                        set_shader_print_line_numbers)
from vkdispatch.codegen.functions.builtins import *  # noqa: F401,F403
from vkdispatch.codegen.functions.builtins import __all__ as _builtins
from vkdispatch.codegen.functions.builtins import print_vars as print  # noqa: A001
from vkdispatch.codegen.functions.control_flow import *  # noqa: F401,F403
from vkdispatch.codegen.functions.control_flow import __all__ as _control_flow
from vkdispatch.codegen.functions.index import ravel_index, unravel_index
from vkdispatch.codegen.functions.math import *  # noqa: F401,F403
from vkdispatch.codegen.functions.math import __all__ as _math
from vkdispatch.codegen.functions.registers import *  # noqa: F401,F403
from vkdispatch.codegen.functions.registers import __all__ as _registers
from vkdispatch.codegen.glsl import CodeGenBackend, CUDABackend, GLSLBackend, OpenCLBackend
from vkdispatch.codegen.selection import get_codegen_backend, set_codegen_backend
from vkdispatch.codegen.tracing import ShaderContext, shader_context
from vkdispatch.codegen.resources import BufferVariable, ImageVariable
from vkdispatch.codegen.variables import ShaderVariable

__all__ = (list(_abbreviations) + list(_builtins) + list(_control_flow) + list(_math)
           + list(_registers) + [
               "Buffer", "Constant", "Variable", "Image1D", "Image2D", "Image3D", "Image2DArray",
               "BindingType", "ShaderArgumentInfo", "ShaderArgumentType", "ShaderBinding",
               "ShaderBuilder", "ShaderDescription", "ShaderFlags", "StructElement",
               "get_builder", "set_builder", "set_shader_print_line_numbers",
               "get_shader_print_line_numbers", "print", "ravel_index", "unravel_index",
               "CodeGenBackend", "GLSLBackend", "CUDABackend", "OpenCLBackend",
               "get_codegen_backend", "set_codegen_backend", "ShaderContext", "shader_context",
               "ShaderVariable", "BufferVariable", "ImageVariable"])
