"""Tracing: running a Python function once on shader variables to record a shader."""
from __future__ import annotations

import contextlib
import inspect
from typing import Any, Iterator

from vkdispatch.codegen.arguments import declare_arguments
from vkdispatch.codegen.builder import ShaderBuilder, ShaderDescription, ShaderFlags
from vkdispatch.codegen.context import clear_builder, set_builder
from vkdispatch.codegen.selection import get_codegen_backend
from vkdispatch.errors import InvalidStateError

__all__ = ["ShaderContext", "shader_context", "trace"]


class ShaderContext:
    """Handle of a manual trace opened by :func:`shader_context`."""

    def __init__(self, builder: ShaderBuilder):
        self.builder = builder
        self._description: ShaderDescription | None = None

    def declare_input_arguments(self, type_annotations: list, names: list[str] | None = None,
                                defaults: list | None = None) -> list:
        """Declares the shader's parameters; returns their shader variables (once only)."""
        if self.builder.arguments_declared:
            raise InvalidStateError("Shader arguments have already been declared for this "
                                    "builder instance")
        names = names or [f"param{i}" for i in range(len(type_annotations))]
        # No default means required (a default of None would make the argument optional).
        defaults = defaults or [inspect.Parameter.empty] * len(type_annotations)
        return declare_arguments(self.builder, list(zip(names, type_annotations, defaults)))

    def get_description(self, name: str | None = None) -> ShaderDescription:
        """The traced shader (built once; later calls return the same description)."""
        if self._description is None:
            self._description = self.builder.build(name or "shader")
        return self._description


@contextlib.contextmanager
def shader_context(flags: ShaderFlags = ShaderFlags.NONE) -> Iterator[ShaderContext]:
    """Traces shader code written in the ``with`` block into a fresh builder."""
    builder = ShaderBuilder(flags, get_codegen_backend())
    set_builder(builder)
    try:
        yield ShaderContext(builder)
    finally:
        clear_builder()


def trace(function: Any, arguments: list[tuple[str, Any, Any]], flags: ShaderFlags,
          name: str) -> ShaderDescription:
    """Runs ``function`` once on shader variables declared for ``(name, annotation, default)``
    triples and returns the traced description."""
    with shader_context(flags) as ctx:
        ctx.builder.name = name
        variables = declare_arguments(ctx.builder, arguments)
        function(*variables)
        return ctx.get_description(name)
