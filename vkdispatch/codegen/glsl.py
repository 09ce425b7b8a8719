"""The GLSL printer: turns a traced shader description into Vulkan GLSL 450 source.

Data-heavy and method-light: the type-to-extension table, the header order and a few hooks.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vkdispatch import dtypes as dt
from vkdispatch.codegen.flags import ShaderFlags
from vkdispatch.dtypes import scalar_of
from vkdispatch.errors import InvalidStateError

if TYPE_CHECKING:  # the builder imports this module; types only
    from vkdispatch.codegen.builder import ShaderBuilder, ShaderDescription

__all__ = ["CodeGenBackend", "GLSLBackend", "CUDABackend", "OpenCLBackend"]

_SCALAR_EXTENSIONS = {
    dt.float16: "GL_EXT_shader_explicit_arithmetic_types_float16",
    dt.int16: "GL_EXT_shader_explicit_arithmetic_types_int16",
    dt.uint16: "GL_EXT_shader_explicit_arithmetic_types_int16",
    dt.int64: "GL_ARB_gpu_shader_int64",
    dt.uint64: "GL_ARB_gpu_shader_int64",
    dt.float64: "GL_ARB_gpu_shader_fp64",
}
_SUBGROUP_EXTENSION = "GL_KHR_shader_subgroup_arithmetic"
_PRINTF_EXTENSION = "GL_EXT_debug_printf"


def _sampler_type(binding) -> str:
    """``sampler2D``, ``usampler3D``, ``isampler2DArray``...: the component type prefixes it
    (Vulkan requires it to match the image format's), ``Array`` marks a layered image."""
    prefix = {"int": "i", "uint": "u"}.get(binding.dtype.glsl_type, "")
    return f"{prefix}sampler{binding.dimension}D{'Array' if binding.arrayed else ''}"


class CodeGenBackend:
    """A target language for traced shaders: subclasses print a description as source."""

    name = "base"

    def extensions(self, builder: ShaderBuilder) -> list[str]:
        raise NotImplementedError

    def header(self, description: ShaderDescription, aliases: dict[int, int] | None = None) -> str:
        raise NotImplementedError

    def source(self, description: ShaderDescription, local_size: tuple[int, int, int],
               body: str | None = None, aliases: dict[int, int] | None = None) -> str:
        raise NotImplementedError

    def bounds_guard(self, exec_count: str) -> str:
        raise NotImplementedError


class GLSLBackend(CodeGenBackend):
    """Vulkan GLSL 450 with the scalar block layout (tight host packing)."""

    name = "glsl"

    def extensions(self, builder: ShaderBuilder) -> list[str]:
        lines = ["GL_EXT_scalar_block_layout"]
        if builder.uses_subgroups and not builder.flags & ShaderFlags.NO_SUBGROUP_OPS:
            lines.append(_SUBGROUP_EXTENSION)
        if builder.uses_printf and not builder.flags & ShaderFlags.NO_PRINTF:
            lines.append(_PRINTF_EXTENSION)
        types = {_SCALAR_EXTENSIONS.get(scalar_of(t)) for t in builder.used_types}
        lines += sorted(t for t in types if t)
        return lines

    def bounds_guard(self, exec_count: str) -> str:
        return (f"if(any(lessThanEqual({exec_count}.xyz, gl_GlobalInvocationID))) "
                "{ return; }")

    def header(self, description: ShaderDescription, aliases: dict[int, int] | None = None) -> str:
        """The declarations; ``aliases`` maps a storage buffer's position among the bindings to
        an earlier one bound to the same buffer in a call: its name then stands for that
        binding (``#define``), so the shader accesses the memory through one variable (SPIR-V
        lets a driver assume that two bindings never alias)."""
        aliases = aliases or {}
        lines = ["#version 450"]
        lines += [f"#extension {ext} : require" for ext in description.extensions]
        lines.append("")
        lines += [f"shared {a.dtype.glsl_type} {a.name}[{a.size}];"
                  for a in description.shared_arrays]
        if description.uniform_structure:
            lines.append("layout(set = 0, binding = 0, scalar) uniform UniformObjectBuffer {")
            lines += [self._member(e) for e in description.uniform_structure]
            lines.append("} UBO;")
        base = description.resource_binding_base
        written = [access[1] for access in description.binding_access[base:]]
        for position, canonical in aliases.items():
            written[canonical] |= written[position]
        for position, binding in enumerate(description.bindings):
            slot = position + base
            if position in aliases:
                continue
            if binding.binding_type.value == 1:
                # A buffer the body never writes is declared so (NonWritable): GPUs may then
                # read it through their read-only caches.
                qualifier = ("coherent " if binding.coherent else "") + \
                    ("" if written[position] else "readonly ")
                lines.append(f"layout(set = 0, binding = {slot}, scalar) {qualifier}buffer "
                             f"Buffer{slot} {{ {binding.dtype.glsl_type} data[]; }} "
                             f"{binding.name};")
            else:
                lines.append(f"layout(set = 0, binding = {slot}) uniform "
                             f"{_sampler_type(binding)} {binding.name};")
        bindings = description.bindings
        lines += [f"#define {bindings[position].name} {bindings[canonical].name}"
                  for position, canonical in sorted(aliases.items())]
        if description.pc_structure:
            lines.append("")
            lines.append("layout(push_constant, scalar) uniform PushConstant {")
            lines += [self._member(e) for e in description.pc_structure]
            lines.append("} PC;")
        return "\n".join(lines) + "\n"

    @staticmethod
    def _member(element) -> str:
        array = f"[{element.count}]" if element.count > 1 else ""
        return f"    {element.dtype.glsl_type} {element.name}{array};"

    def source(self, description: ShaderDescription, local_size: tuple[int, int, int],
               body: str | None = None, aliases: dict[int, int] | None = None) -> str:
        x, y, z = local_size
        body = description.body if body is None else body
        return (f"{self.header(description, aliases)}\n"
                f"layout(local_size_x = {x}, local_size_y = {y}, local_size_z = {z}) in;\n"
                f"void main() {{\n{body}\n}}\n")


class _UnsupportedBackend(CodeGenBackend):
    def __init__(self) -> None:
        raise InvalidStateError(f"the {self.name} code generator is not part of this Vulkan "
                                "build of vkdispatch; use the GLSL backend")


class CUDABackend(_UnsupportedBackend):
    """CUDA C++ output (not available in this build: constructing one raises)."""

    name = "cuda"


class OpenCLBackend(_UnsupportedBackend):
    """OpenCL C output (not available in this build: constructing one raises)."""

    name = "opencl"
