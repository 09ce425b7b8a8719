"""The shaders of Kompute 0.4-0.6's Python API as SPIR-V: it took SPIR-V bytes, GLSL source as a
string, a list of characters or bytes, or the path of a file holding either, and compiled GLSL
itself. Here :meth:`kp.Shader.compile_source` (in-process) compiles it.
"""
from __future__ import annotations

import os

from vkdispatch.errors import InvalidArgumentError

from kp.arguments import type_name
from kp.shader import Shader

SPIRV_MAGIC = (0x07230203).to_bytes(4, "little")


def from_data(call: str, name: str, data) -> bytes:
    """``data``: SPIR-V bytes (told by the magic number), else GLSL source as bytes or text."""
    if isinstance(data, str):
        return Shader.compile_source(data)
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"{call}: {name} must be SPIR-V or GLSL source as bytes (or GLSL as a "
                        f"str), got {type_name(data)}")
    if data[:4] == SPIRV_MAGIC:
        return bytes(data)
    try:
        return Shader.compile_source(bytes(data).decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidArgumentError(f"{call}: {name} is neither SPIR-V (it would start with "
                                   f"{SPIRV_MAGIC!r}) nor UTF-8 GLSL source: it starts with "
                                   f"{bytes(data[:4])!r}") from None


def from_source(call: str, name: str, source) -> bytes:
    """``source``: GLSL as a str, or as the list of its characters (``list(glsl)``, which Kompute
    0.5's examples passed)."""
    if isinstance(source, (list, tuple)) and all(
            isinstance(c, str) and len(c) == 1 for c in source):
        source = "".join(source)
    if not isinstance(source, str):
        raise TypeError(f"{call}: {name} must be GLSL source, a str or a list of characters, "
                        f"got {type_name(source)}")
    return Shader.compile_source(source)


def from_file(call: str, name: str, path) -> bytes:
    """The shader in the file at ``path``: SPIR-V (a ``.spv``) or GLSL source (a ``.comp``)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{call}: {name} must be a file path (str or os.PathLike), got "
                        f"{type_name(path)}")
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise type(error)(error.errno, f"{call}: {name}: cannot read the shader file: "
                                       f"{error.strerror}", os.fspath(path)) from None
    return from_data(call, f"{name} {os.fspath(path)!r}", data)
