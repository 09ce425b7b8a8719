"""ShaderFunction: a traced shader that builds once per context and records a dispatch per
call."""
from __future__ import annotations

import dataclasses
import inspect

from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.base.context import Context, get_context
from vkdispatch.codegen.builder import ShaderDescription
from vkdispatch.codegen.coarsening import coarsened_body
from vkdispatch.codegen.context import get_shader_print_line_numbers
from vkdispatch.errors import (DummyBackendError, InvalidArgumentError,
                               InvalidShaderArgumentError, InvalidTypeError, ShaderBuildError)
from vkdispatch.shader.call_layout import CallLayout
from vkdispatch.shader.coarsening_policy import (COARSENED_LOCAL_SIZE, check_coarsen,
                                                 coarsening_factor)
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


@dataclasses.dataclass(slots=True, eq=False)
class _Build:
    """What building the shader for one context produced (the call's per-context state)."""

    context: Context | None
    plan: ComputePlan | None  # None with the dummy backend
    source: str | None
    local_size: tuple[int, int, int] | None
    bounds: ExecutionBounds | None
    layout: CallLayout | None
    # Plans of the variants for calls that bind one buffer to several parameters, by the
    # call's aliases (see vkdispatch.shader.aliasing), compiled on first need.
    aliased: dict = dataclasses.field(default_factory=dict)


# The build of a shader not built yet: its context (None) is never a graph's context, so the
# call's one identity check sends the first call to the building path.
_UNBUILT = _Build(None, None, None, None, None, None)


class ShaderFunction:
    """A traced shader. Calling it records one dispatch into a graph, any
    :class:`~vkdispatch.shader.dispatch_target.DispatchTarget` (by default the thread's global
    graph, else its immediate graph, which submits at once).

    The shader is compiled once per context, on its first call recording into a graph of that
    context (or by :meth:`build`, for the current context), so one shader serves every context.
    A context's compiled plan is dropped when the context closes.

    Attributes:
        name: the shader's name (the decorated function's).
        shader_description: what tracing produced.
        source: the final GLSL of the latest build (None until built).
        plan: the ComputePlan of the latest build (None until built, or with the dummy
            backend); its ``context`` is the context it was built for.
    """

    def __init__(self, shader_description: ShaderDescription, local_size=None, workgroups=None,
                 exec_count=None, coarsen=None):
        if workgroups is not None and exec_count is not None:
            raise InvalidArgumentError("Cannot specify both 'workgroups' and 'exec_size'")
        self.shader_description = shader_description
        self._coarsen = check_coarsen(coarsen, shader_description)
        self.name = shader_description.name
        self.workgroups = workgroups
        self.exec_size = exec_count
        self._requested_local_size = local_size
        self._build: _Build = _UNBUILT  # the latest build, checked first by each call
        self._infos = shader_description.shader_arg_infos
        self._names = [info.name for info in self._infos]
        self._extents: dict[int, tuple[int, str]] = {}
        self._labels: dict[int, str] = {}

    # -- the latest build -----------------------------------------------------------------------

    @property
    def plan(self) -> ComputePlan | None:
        return self._build.plan

    @property
    def source(self) -> str | None:
        return self._build.source

    @property
    def bounds(self) -> ExecutionBounds | None:
        return self._build.bounds

    @property
    def layout(self) -> CallLayout | None:
        return self._build.layout

    @property
    def ready(self) -> bool:
        """Whether the shader was built (for some context)."""
        return self._build is not _UNBUILT

    @property
    def local_size(self):
        """The workgroup size of the latest build; before any, the one asked for (or None)."""
        build = self._build
        return build.local_size if build is not _UNBUILT else self._requested_local_size

    # -- building -------------------------------------------------------------------------------

    def _resolve_local_size(self, context: Context, factor: int = 1) -> tuple[int, int, int]:
        """The workgroup size asked for; without one, the device's maximum along x, at most
        COARSENED_LOCAL_SIZE for a build running ``factor`` > 1 elements per invocation."""
        requested = self._requested_local_size or (context.max_workgroup_size[0], 1, 1)
        if factor > 1 and self._requested_local_size is None:
            requested = (min(requested[0], COARSENED_LOCAL_SIZE), 1, 1)
        return check_local_size(requested, context.max_workgroup_size,
                                context.max_workgroup_invocations)

    def _check_shared_memory(self, context: Context) -> None:
        used = sum(a.dtype.item_size * a.size for a in self.shader_description.shared_arrays)
        limit = context.max_shared_memory
        if used > limit:
            raise InvalidArgumentError(f"shader '{self.name}' declares {used} bytes of shared "
                                       f"memory; the device allows {limit} "
                                       "(max_compute_shared_memory_size)")

    def _source(self, local_size, factor: int, aliases: dict[int, int] | None = None) -> str:
        description = self.shader_description
        return description.make_source(
            *local_size, coarsened_body(description, factor) if factor > 1 else None, aliases)

    def _plan(self, context: Context, source: str, local_size) -> ComputePlan:
        description = self.shader_description
        try:
            with context:  # a ComputePlan belongs to the current context
                return ComputePlan(source, description.binding_type_list, description.pc_size,
                                   self.name)
        except ShaderBuildError as error:
            error.shader_source = ShaderSource(self.name, _render(source, True), local_size)
            raise

    def _compile(self, context: Context) -> _Build:
        self._check_shared_memory(context)
        description = self.shader_description
        factor = coarsening_factor(self._coarsen, description, context.device_infos)
        local_size = self._resolve_local_size(context, factor)
        nominal = self._resolve_local_size(context) if factor > 1 else local_size
        source = self._source(local_size, factor)
        plan = None if context.dummy else self._plan(context, source, local_size)
        bounds = ExecutionBounds(self._names, local_size, self.workgroups, self.exec_size, factor,
                                 nominal)
        return _Build(context, plan, source, local_size, bounds,
                      CallLayout(description, bounds, context, self._extents, self._labels))

    def require_buffer_bytes(self, extents: dict[int, tuple[int, str]]) -> None:
        """Makes every call check that the buffer argument at each position holds at least
        the bytes given (``position -> (bytes, what the shader was made for)``); for shaders
        that index a buffer by a shape fixed when they were made. Call before the first build."""
        if self.ready:
            raise InvalidStateError(f"shader '{self.name}' is built already; require its buffer "
                                    "sizes before the first call")
        self._extents = dict(extents)

    def label_arguments(self, labels: dict[int, str]) -> None:
        """Makes errors about the argument at each position also say what it is to the
        caller (``position -> text``), for generated shaders whose parameters have generated
        names. Call before the first build."""
        if self.ready:
            raise InvalidStateError(f"shader '{self.name}' is built already; label its "
                                    "arguments before the first call")
        self._labels = dict(labels)

    def _build_for(self, context: Context) -> _Build:
        """The build for ``context``, compiled on first use there; it becomes the latest.

        Builds live in ``context.derived``, so they go when the context closes or dies, and
        with the ShaderFunction (the key is weak and a build does not refer back to it)."""
        build = context.derived.get(self)
        if build is None:
            build = self._compile(context)
            context.derived[self] = build
        self._build = build
        return build

    def build(self) -> None:
        """Compiles the shader for the current context (once per context)."""
        context = get_context()
        if self._build.context is not context:
            self._build_for(context)

    def pipeline_statistics(self, device_index: int = 0) -> dict:
        """What the driver of device ``device_index`` of the current context compiles this
        shader to (built first, once per context), as it reports it: NVIDIA's registers per
        invocation and shared memory per workgroup, for one. See
        :meth:`vkdispatch.base.compute_plan.ComputePlan.pipeline_statistics`;
        raises ValueError where the driver reports none (lavapipe) and DummyBackendError with
        the codegen-only backend."""
        return self._build_for_call(get_context()).plan.pipeline_statistics(device_index)

    def get_src(self, line_numbers: bool | None = None, build: bool = True) -> ShaderSource:
        """The generated GLSL (compiled first unless ``build=False``)."""
        if build:
            self.build()
        local_size = self.local_size
        if local_size is not None:
            local_size = tuple(local_size)  # no context needed for an explicit size
        else:
            local_size = self._resolve_local_size(get_context())
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
        twice = [info.name for info in self._infos[:len(args)] if info.name in kwargs]
        if twice:
            raise InvalidShaderArgumentError(
                f"{self.name}() got multiple values for argument '{twice[0]}' (given by "
                "position and by keyword)")
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

    def _build_for_call(self, context: Context) -> _Build:
        if context.dummy:
            raise DummyBackendError("Cannot execute shader functions with dummy backend!")
        return self._build_for(context)

    def __call__(self, *args, graph: DispatchTarget | None = None, exec_size=None,
                 workgroups=None, **kwargs) -> None:
        """Records one dispatch (submitted at once unless ``graph`` defers it) into ``graph``,
        by default the thread's global graph; the buffers must belong to the graph's context."""
        if graph is None:
            try:
                graph = dispatch_target.default_target()  # the installed provider itself
            except DummyBackendError:
                raise DummyBackendError("Cannot execute shader functions with dummy "
                                        "backend!") from None
        elif not isinstance(graph, DispatchTarget):
            raise InvalidShaderArgumentError(f"Expected a CommandGraph object for 'graph', got "
                                             f"{type(graph).__name__}")
        build, context = self._build, graph.context
        if build.context is not context:
            build = self._build_for_call(context)
        layout = build.layout
        if kwargs or len(args) != layout.arg_count:
            args = self._bind(args, kwargs)
        blocks, buffers, uniform, pc = layout.prepare(args, exec_size, workgroups,
                                                      context.max_workgroup_count)
        plan = build.plan
        if layout.may_alias:
            aliases = layout.aliases(args)
            if aliases:
                plan = self._aliased_plan(build, aliases)
        graph.record_dispatch(plan, self.shader_description, blocks, buffers,
                              layout.bindings, uniform, pc)

    def _aliased_plan(self, build: _Build, aliases: tuple) -> ComputePlan:
        """The plan of the variant for a call binding one buffer to several parameters."""
        plan = build.aliased.get(aliases)
        if plan is None:
            source = self._source(build.local_size, build.bounds.factor, dict(aliases))
            plan = build.aliased[aliases] = self._plan(build.context, source, build.local_size)
        return plan


def make_shader_function(description: ShaderDescription, local_size=None, workgroups=None,
                         exec_count=None, coarsen=None) -> ShaderFunction:
    """Wraps a description traced manually (``vc.shader_context``) into a ShaderFunction."""
    if not isinstance(description, ShaderDescription):
        raise InvalidTypeError(f"description must be a ShaderDescription (what "
                               f"vc.shader_context traces), got {type(description).__name__}")
    return ShaderFunction(description, local_size, workgroups, exec_count, coarsen)
