"""Helpers of the codegen unit tests: trace without a device, compile with the in-process
glslang (``vkdispatch._native.compile_glsl``, CPU only), and check what GLSL makes of an
expression.

Imported as ``codegen_helpers`` (pytest puts ``tests/unit`` on ``sys.path``).
"""
from __future__ import annotations

import re

import pytest

import vkdispatch.codegen as vc
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.literals import boolean

native = pytest.importorskip("vkdispatch._native", reason="the native module compiles GLSL")

LOCAL_SIZE = (64, 1, 1)


def numbered(source: str) -> str:
    return "\n".join(f"{i:4d}: {line}" for i, line in enumerate(source.split("\n"), 1))


def source_of(item) -> str:
    """The GLSL of a ShaderFunction, a ShaderDescription or a source string."""
    if isinstance(item, str):
        return item
    description = getattr(item, "shader_description", item)
    return description.make_source(*LOCAL_SIZE)


def assert_compiles(item, what: str = "") -> str:
    """Compiles the shader to SPIR-V; on failure the message holds the numbered source and
    the compiler log. Returns the source."""
    source = source_of(item)
    ok, spirv, log = native.compile_glsl(source, "test", 0)
    if not ok:
        pytest.fail(f"GLSL does not compile{' (' + what + ')' if what else ''}:\n"
                    f"{numbered(source)}\n--- compiler log ---\n{log}", pytrace=False)
    assert len(spirv) > 20 and len(spirv) % 4 == 0
    return source


def assert_fails_to_compile(item) -> str:
    source = source_of(item)
    ok, _, log = native.compile_glsl(source, "test", 0)
    assert not ok, f"expected a compile error:\n{numbered(source)}"
    return log


def trace(body, *annotations, flags=vc.ShaderFlags.NONE, name: str = "test"):
    """Traces ``body(*arguments)`` in a manual shader context; returns ``(description,
    whatever body returned)``."""
    with vc.shader_context(flags) as ctx:
        arguments = ctx.declare_input_arguments(list(annotations))
        result = body(*arguments)
        description = ctx.get_description(name)
    return description, result


def main_body(item) -> list[str]:
    """The stripped statements of ``main()`` (without the bounds guard)."""
    source = source_of(item)
    body = source[source.index("void main() {") + len("void main() {"):source.rindex("}")]
    lines = [line.strip() for line in body.split("\n") if line.strip()]
    return [line for line in lines if not line.startswith("if(any(lessThanEqual(")]


def header_lines(item) -> list[str]:
    source = source_of(item)
    return source[:source.index("layout(local_size_x")].split("\n")


# -- what type does GLSL give an expression? ----------------------------------------------------

_PROBE_TYPES = [boolean, dt.float32, dt.int32, dt.uint32, dt.vec2, dt.vec3, dt.vec4, dt.ivec2,
                dt.ivec3, dt.ivec4, dt.uvec2, dt.uvec3, dt.uvec4, dt.mat2, dt.mat3, dt.mat4]
_EXTENSION_TYPES = {
    "GL_EXT_shader_explicit_arithmetic_types_float16": [dt.float16, dt.hvec2, dt.hvec3,
                                                        dt.hvec4],
    "GL_EXT_shader_explicit_arithmetic_types_int16": [dt.int16, dt.uint16, dt.ihvec2,
                                                      dt.ihvec3, dt.ihvec4, dt.uhvec2,
                                                      dt.uhvec3, dt.uhvec4],
    "GL_ARB_gpu_shader_int64": [dt.int64, dt.uint64],
    "GL_ARB_gpu_shader_fp64": [dt.float64, dt.dvec2, dt.dvec3, dt.dvec4],
}


def _tag(var_type) -> str:
    return "Tag_" + re.sub(r"\W", "_", var_type.glsl_type)


def glsl_type_probe(source: str, expression: str, expected) -> str:
    """``source`` plus a statement that compiles only if GLSL types ``expression`` exactly as
    ``expected``: overloads ``tagOf(T)`` returning a distinct struct per type are declared, so
    overload resolution picks the exact match and structs never convert."""
    types = list(_PROBE_TYPES)
    for extension, extra in _EXTENSION_TYPES.items():
        if f"#extension {extension}" in source:
            types += extra
    glsl = {t.glsl_type: t for t in types}.values()  # complex types share vec2's spelling
    helpers = "".join(f"struct {_tag(t)} {{ int tag; }};\n"
                      f"{_tag(t)} tagOf({t.glsl_type} value) {{ return {_tag(t)}(0); }}\n"
                      for t in glsl)
    head, tail = source.rsplit("}", 1)
    head = head.replace("void main() {", helpers + "void main() {", 1)
    return f"{head}    {_tag(expected)} probe = tagOf({expression});\n}}{tail}"


def assert_glsl_type(description, expression, expected=None) -> None:
    """GLSL computes ``expression`` (a traced ShaderVariable) as ``expected`` (default: the
    DSL's label ``expression.var_type``)."""
    expected = expected or expression.var_type
    probe = glsl_type_probe(source_of(description), expression.name, expected)
    assert_compiles(probe, f"GLSL type of {expression.name} should be {expected.name}")
