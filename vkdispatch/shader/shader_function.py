"""ShaderFunction: a traced shader that builds once and records a dispatch per call."""
from __future__ import annotations

import dataclasses
import inspect

from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.base.context import get_context
from vkdispatch.base.init import runtime
from vkdispatch.codegen.builder import ShaderDescription
from vkdispatch.codegen.context import get_shader_print_line_numbers
from vkdispatch.errors import (DummyBackendError, InvalidArgumentError,
                               InvalidShaderArgumentError, ShaderBuildError)
from vkdispatch.shader.call_layout import CallLayout
from vkdispatch.shader import dispatch_target
from vkdispatch.shader.dispatch_target import DispatchTarget
from vkdispatch.shader.launch import ExecutionBounds, check_local_size

__all__ = ["ShaderFunction", "ShaderSource", "make_shader_function", "NO_DEFAULT"]

NO_DEFAULT = inspect.Parameter.empty


@dataclasses.dataclass
class ShaderSource:
    """Generated source of a shader and the workgroup size it was built with."""

    name: str
    code: str
    local_size: tuple[int, int, int]

    def __repr__(self) -> str:
        return (f"// ====== Source Code for '{self.name}', workgroup_size: {self.local_size} "
                f"======\n{self.code}")


def _render(source: str, line_numbers: bool) -> str:
    lines = source.split("\n")
    if line_numbers:
        return "".join(f"{i:4d}: {line}\n" for i, line in enumerate(lines, 1))
    return "".join(f"{line}\n" for line in lines)


class ShaderFunction:
    """A traced shader. Calling it records one dispatch into a graph, any
    :class:`~vkdispatch.shader.dispatch_target.DispatchTarget` (by default the thread's global
    graph, else its immediate graph, which submits at once); the first call compiles it.

    Attributes:
        name: the shader's name (the decorated function's).
        shader_description: what tracing produced.
        source: the final GLSL (None until built).
        plan: the compiled ComputePlan (None until built, or with the dummy backend).
    """

    def __init__(self, shader_description: ShaderDescription, local_size=None, workgroups=None,
                 exec_count=None):
        if workgroups is not None and exec_count is not None:
            raise InvalidArgumentError("Cannot specify both 'workgroups' and 'exec_size'")
        self.shader_description = shader_description
        self.name = shader_description.name
        self.local_size = local_size
        self.workgroups = workgroups
        self.exec_size = exec_count
        self.plan: ComputePlan | None = None
        self.source: str | None = None
        self.bounds: ExecutionBounds | None = None
        self.layout: CallLayout | None = None
        self.ready = False
        self._infos = shader_description.shader_arg_infos
        self._names = [info.name for info in self._infos]

    # -- building -------------------------------------------------------------------------------

    def _resolve_local_size(self) -> tuple[int, int, int]:
        context = get_context()
        requested = self.local_size or (context.max_workgroup_size[0], 1, 1)
        return check_local_size(requested, context.max_workgroup_size,
                                context.max_workgroup_invocations)

    def _check_shared_memory(self) -> None:
        used = sum(a.dtype.item_size * a.size for a in self.shader_description.shared_arrays)
        limit = get_context().max_shared_memory
        if used > limit:
            raise InvalidArgumentError(f"shader '{self.name}' declares {used} bytes of shared "
                                       f"memory; the device allows {limit} "
                                       "(max_compute_shared_memory_size)")

    def build(self) -> None:
        """Compiles the shader (once; later calls return at once)."""
        if self.ready:
            return
        self._check_shared_memory()
        local_size = self._resolve_local_size()
        source = self.shader_description.make_source(*local_size)
        if runtime().native is not None:
            try:
                self.plan = ComputePlan(source, self.shader_description.binding_type_list,
                                        self.shader_description.pc_size, self.name)
            except ShaderBuildError as error:
                error.shader_source = ShaderSource(self.name, _render(source, True), local_size)
                raise
        self.source = source
        self.local_size = local_size
        self.bounds = ExecutionBounds(self._names, local_size, self.workgroups, self.exec_size)
        self.layout = CallLayout(self.shader_description, self.bounds)
        self.ready = True

    def get_src(self, line_numbers: bool | None = None, build: bool = True) -> ShaderSource:
        """The generated GLSL (compiled first unless ``build=False``)."""
        if build:
            self.build()
        if self.ready or (self.local_size is not None and not build):
            local_size = tuple(self.local_size)  # no context needed for an explicit size
        else:
            local_size = self._resolve_local_size()
        source = self.source or self.shader_description.make_source(*local_size)
        numbers = get_shader_print_line_numbers() if line_numbers is None else line_numbers
        return ShaderSource(self.name, _render(source, numbers), local_size)

    def print_src(self, line_numbers: bool | None = None) -> None:
        print(self.get_src(line_numbers))

    def __repr__(self) -> str:
        return repr(self.get_src())

    # -- calling --------------------------------------------------------------------------------

    def _bind(self, args: tuple, kwargs: dict) -> tuple:
        """Every parameter's value, in parameter order."""
        if len(args) > len(self._infos):
            raise InvalidShaderArgumentError(
                f"{self.name}() takes {len(self._infos)} arguments ({', '.join(self._names)}) "
                f"but {len(args)} were given")
        unknown = [k for k in kwargs if k not in self._names]
        if unknown:
            raise InvalidShaderArgumentError(
                f"{self.name}() got an unexpected keyword argument '{unknown[0]}' (parameters: "
                f"{', '.join(self._names)})")
        values = list(args)
        for info in self._infos[len(args):]:
            if info.name in kwargs:
                values.append(kwargs[info.name])
            elif info.default_value is not NO_DEFAULT:
                values.append(info.default_value)
            else:
                raise InvalidShaderArgumentError(f"Missing argument '{info.name}' in the call "
                                                 f"of shader '{self.name}'")
        return tuple(values)

    def __call__(self, *args, graph: DispatchTarget | None = None, exec_size=None,
                 workgroups=None, **kwargs) -> None:
        """Records one dispatch (submitted at once unless ``graph`` defers it)."""
        layout = self.layout
        if layout is None:
            if runtime().native is None:
                raise DummyBackendError("Cannot execute shader functions with dummy backend!")
            self.build()
            layout = self.layout
        if kwargs or len(args) != layout.arg_count:
            args = self._bind(args, kwargs)
        if graph is None:
            graph = dispatch_target.default_target()  # the installed provider itself
        elif not isinstance(graph, DispatchTarget):
            raise InvalidShaderArgumentError(f"Expected a CommandGraph object for 'graph', got "
                                             f"{type(graph).__name__}")
        blocks, buffers, uniform, pc = layout.prepare(args, exec_size, workgroups,
                                                      graph.context.max_workgroup_count)
        graph.record_dispatch(self.plan, self.shader_description, blocks, buffers,
                              layout.bindings, uniform, pc)


def make_shader_function(description: ShaderDescription, local_size=None, workgroups=None,
                         exec_count=None) -> ShaderFunction:
    """Wraps a description traced manually (``vc.shader_context``) into a ShaderFunction."""
    return ShaderFunction(description, local_size, workgroups, exec_count)
