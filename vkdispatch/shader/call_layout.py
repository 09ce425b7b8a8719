"""CallLayout: what one call of a compiled shader binds, packs and launches.

Made once per ShaderFunction, it maps every parameter onto its resource (a storage binding,
uniform members, a push constant), so that a call turns its argument values into a dispatch with
a few tuple operations and one ``struct.pack`` per block: this is the per-call cost of immediate
dispatch and of graph recording.

Each block gets a *direct* packer: one generated expression handing the raw values to
``struct.pack``, which already rejects values of the wrong type or range. When it fails, or when
a member is not a plain scalar, the *checked* path converts values one by one (numpy arrays,
vectors, complex numbers) and names the parameter at fault.
"""
from __future__ import annotations

import operator
import struct
from typing import Callable

from vkdispatch.base.buffer import Buffer
from vkdispatch.base.context import Context
from vkdispatch.codegen.builder import ShaderArgumentType, ShaderDescription
from vkdispatch.dtypes import scalar_of
from vkdispatch.errors import InvalidShaderArgumentError, InvalidStateError
from vkdispatch.shader.aliasing import BufferAliasing
from vkdispatch.shader.bound_variable import BoundVariableName
from vkdispatch.shader.generated_code import evaluate
from vkdispatch.shader.image_arguments import check_image_argument
from vkdispatch.shader.launch import ExecutionBounds
from vkdispatch.shader.packing import BlockPacker, packer_for

__all__ = ["CallLayout", "check_extent"]

# Where a block member's value comes from: ("limits",) the launch's exec limits, ("shape", p) the
# shape of the buffer parameter p, ("param", p) parameter p, ("field", p, name) a field of the
# dataclass parameter p.
Source = tuple
_DIRECT_PACK_ERRORS = (struct.error, OverflowError, TypeError, AttributeError)


def _value_of(source: Source, args: tuple, limits: tuple):
    kind = source[0]
    if kind == "limits":
        return (*limits, 0)
    if kind == "shape":
        return args[source[1]].shader_shape
    if kind == "param":
        return args[source[1]]
    return getattr(args[source[1]], source[2])


def _direct_packer(packer: BlockPacker, sources: list[Source]) -> Callable | None:
    """``f(args, limits) -> bytes`` packing every member with one struct.pack; None when a
    member holds more than one scalar taken from the user (the checked path handles those)."""
    terms, scalars = [], [count == 1 and plain for _e, count, plain in packer.fields]
    fields: list[str] = []
    for source, scalar in zip(sources, scalars):
        kind = source[0]
        if kind == "limits":
            terms.append("*limits, 0")
        elif kind == "shape":
            terms.append(f"*args[{source[1]}].shader_shape")
        elif not scalar:
            return None
        elif kind == "param":
            terms.append(f"args[{source[1]}]")
        else:
            terms.append(f"getattr(args[{source[1]}], fields[{len(fields)}])")
            fields.append(source[2])
    # Only integers and fixed names enter the expression; field names are passed as data.
    return evaluate(f"lambda args, limits: pack({', '.join(terms)})",
                    {"pack": packer.format.pack, "fields": tuple(fields)})


class CallLayout:
    """Turns a call's argument values (positional, in parameter order) into a dispatch.

    Args:
        context: the context the shader was compiled for: buffer arguments must belong to it
            (None accepts buffers of any context).

    Attributes:
        arg_count: the number of parameters.
        bindings: ``(binding, read, write)`` of each buffer and image parameter, in parameter
            order.
        may_alias: whether a call may bind one buffer to two parameters that need the shader's
            aliased variant (see :meth:`aliases`).
    """

    def __init__(self, description: ShaderDescription, bounds: ExecutionBounds,
                 context: Context | None = None, extents: dict | None = None,
                 labels: dict | None = None):
        self.name = description.name
        self.context = context
        self.bounds = bounds
        infos = self._infos = description.shader_arg_infos
        self.arg_count = len(infos)
        kinds = [info.arg_type for info in infos]
        buffers = [i for i, kind in enumerate(kinds) if kind == ShaderArgumentType.BUFFER]
        resources = [i for i, kind in enumerate(kinds) if kind in
                     (ShaderArgumentType.BUFFER, ShaderArgumentType.IMAGE)]
        self._buffers = tuple(buffers)
        self._take_buffers = _tuple_getter(buffers)
        self._aliasing = BufferAliasing(description, [infos[i].binding for i in buffers])
        self.may_alias = self._aliasing.possible
        # Images are bound with the buffers, in parameter order (binding order too).
        self._take_resources = _tuple_getter(resources) if len(resources) > len(buffers) \
            else None
        # The element type each buffer parameter declares (None: any), checked at each call:
        # a buffer of another scalar type would be reinterpreted bit by bit.
        self._buffer_types = tuple(_declared_type(infos[i].annotation) for i in buffers)
        self._buffer_scalars = tuple(t if t is None else scalar_of(t) for t in self._buffer_types)
        # Bytes a buffer parameter must hold where the shader indexes it by a fixed shape
        # (position -> (bytes, what the shader was made for)); 0 where the shader says nothing.
        self._extents = extents or {}
        self._labels = labels or {}  # position -> what the argument is to the caller
        self._needed = tuple(self._extents.get(i, (0, ""))[0] for i in buffers)
        self.bindings = tuple((infos[i].binding, *description.binding_access[infos[i].binding])
                              for i in resources)
        self._others = tuple(i for i, kind in enumerate(kinds) if kind in
                             (ShaderArgumentType.CONSTANT_DATACLASS, ShaderArgumentType.IMAGE))
        self._what = f"shader '{self.name}'"
        self._uniform = packer_for(description, "uniform_structure")
        self._uniform_sources = _uniform_sources(description)
        self._pc = packer_for(description, "pc_structure")
        positions = {info.shader_name: i for i, info in enumerate(infos)
                     if info.arg_type == ShaderArgumentType.VARIABLE}
        self._pc_sources = [("param", positions[e.name]) for e in description.pc_structure]
        self._uniform_labels = [self._label(s) for s in self._uniform_sources]
        self._pc_labels = [self._label(s) for s in self._pc_sources]
        self._pack_uniform = _direct_packer(self._uniform, self._uniform_sources)
        self._pack_pc = _direct_packer(self._pc, self._pc_sources)

    def prepare(self, args: tuple, exec_size=None, workgroups=None,
                max_count=(2**31 - 1,) * 3):
        """``(blocks, resources, uniform bytes, push constants)`` of one call: the resources are
        the buffers and samplers bound at ``bindings``; the push constants are bytes, or a dict
        of member values when some ``Var`` is bound by name."""
        buffers = self._take_buffers(args)
        context = self.context
        for buffer, declared, scalar, needed in zip(buffers, self._buffer_types,
                                                    self._buffer_scalars, self._needed):
            if buffer.__class__ is not Buffer or buffer._destroyed or \
                    buffer.context is not context or \
                    (declared is not None and buffer.var_type is not declared and
                     scalar_of(buffer.var_type) is not scalar) or buffer.mem_size < needed:
                self._check_buffers(args)  # raises, but lets Buffer subclasses through
        if self._others:
            self._check_others(args)
            if self._take_resources is not None:
                buffers = self._take_resources(args)
        blocks, limits = self.bounds.get_blocks_and_limits(args, workgroups, exec_size,
                                                           max_count)
        if self._pack_uniform is not None and self._pack_pc is not None:
            try:
                return blocks, buffers, self._pack_uniform(args, limits), self._pack_pc(args,
                                                                                       limits)
            except _DIRECT_PACK_ERRORS:
                pass  # the checked path converts the value or names the parameter at fault
        return (blocks, buffers, *self._pack_checked(args, limits))

    def aliases(self, args: tuple) -> tuple[tuple[int, int], ...]:
        """The buffer parameters this call binds to the buffer of an earlier one (see
        :class:`BufferAliasing`); call only where ``may_alias``, after :meth:`prepare`."""
        buffers = self._take_buffers(args)
        if len(set(buffers)) == len(buffers):  # most calls; buffers hash by identity
            return ()
        return self._aliasing.of(buffers)

    def _pack_checked(self, args: tuple, limits: tuple) -> tuple:
        for position, info in enumerate(self._infos):
            if info.arg_type not in (ShaderArgumentType.CONSTANT, ShaderArgumentType.VARIABLE):
                continue
            if args[position] is None and info.default_value is not None:
                # Only a parameter declared "= None" reads zeros when given none.
                raise InvalidShaderArgumentError(
                    f"argument '{info.name}' of shader '{self.name}' is None; pass a value of "
                    f"its type (None is not 0)")
            if callable(args[position]):
                self._check_callable(args[position], info)
        uniform_values = [_value_of(s, args, limits) for s in self._uniform_sources]
        for source, value, label in zip(self._uniform_sources, uniform_values,
                                        self._uniform_labels):
            if value is None and source[0] == "field":  # the packer would read zeros
                raise InvalidShaderArgumentError(
                    f"{label} of shader '{self.name}' is None; set the field to a value of its "
                    "type (None is not 0)")
        uniform = self._uniform.pack_ordered(uniform_values, self._what, self._uniform_labels)
        values = [_value_of(s, args, limits) for s in self._pc_sources]
        if any(isinstance(value, BoundVariableName) for value in values):
            return uniform, dict(zip(self._pc.names, values))
        return uniform, self._pc.pack_ordered(values, self._what, self._pc_labels)

    def _label(self, source: Source) -> str:
        """How an error message names where a member's value came from."""
        if source[0] == "limits":
            return "exec_size"
        name = self._infos[source[1]].name
        if source[0] == "shape":
            return f"shape of argument '{name}'"
        if source[0] == "field":
            return f"argument '{name}.{source[2]}'"
        return f"argument '{name}'"

    def _argument(self, position: int) -> str:
        """How errors name parameter ``position``: by name, and by what it is to the caller
        where the shader says (a generated shader's 'param1' is a hook's argument)."""
        label = self._labels.get(position)
        name = f"argument '{self._infos[position].name}'"
        return f"{name} ({label})" if label else name

    def _check_buffers(self, args: tuple) -> None:
        for position, declared, scalar in zip(self._buffers, self._buffer_types,
                                              self._buffer_scalars):
            value, what = args[position], self._argument(position)
            if not isinstance(value, Buffer):
                raise InvalidShaderArgumentError(
                    f"Expected a buffer for {what} of shader '{self.name}' but got "
                    f"{type(value).__name__} {value!r:.60}")
            if value.destroyed:
                if value.context.closed:
                    raise InvalidStateError(f"{what} of shader '{self.name}' is a "
                                            "buffer of a closed context; make it again in an "
                                            "open one")
                raise InvalidShaderArgumentError(
                    f"{what} of shader '{self.name}' is a destroyed buffer")
            # The same scalars grouped otherwise (float32 rows of 2 as vec2) keep their values.
            if declared is not None and scalar_of(value.var_type) is not scalar:
                raise InvalidShaderArgumentError(
                    f"{what} of shader '{self.name}' is declared Buff[{declared.name}] "
                    f"but got a buffer of {value.var_type.name} (its bits would be read as "
                    f"{declared.name}); pass a {declared.name} buffer or change the annotation")
            if position in self._extents:
                check_extent(value, *self._extents[position], f"{what} of shader "
                             f"'{self.name}'")
            if self.context is not None and value.context is not self.context:
                raise InvalidShaderArgumentError(
                    f"{what} of shader '{self.name}' is a buffer of {value.context!r}"
                    f", but the call records into a graph of {self.context!r}; a call may only "
                    "use buffers of its graph's context (make the buffer inside 'with ctx:' of "
                    "that context, or pass graph= a CommandGraph made there)")

    def _check_callable(self, value, info) -> None:
        if info.arg_type == ShaderArgumentType.CONSTANT:
            raise InvalidShaderArgumentError(
                f"Cannot use LaunchVariables for Constants: argument '{info.name}' is a Const; "
                "declare it Var[...] to bind it later")
        if not isinstance(value, BoundVariableName):
            raise InvalidShaderArgumentError(
                f"argument '{info.name}': pass a value or graph.bind_var(name)")

    def _check_others(self, args: tuple) -> None:
        for position in self._others:
            value, info = args[position], self._infos[position]
            if info.arg_type == ShaderArgumentType.IMAGE:
                check_image_argument(value, info, self.name, self.context)
            elif not isinstance(value, info.annotation):
                raise InvalidShaderArgumentError(
                    f"argument '{info.name}' must be a {info.annotation.__name__}, got "
                    f"{type(value).__name__}")


def check_extent(buffer: Buffer, needed: int, what: str, argument: str) -> None:
    """Raises unless ``buffer`` holds ``needed`` bytes: a shader made for a fixed shape would
    otherwise read and write past the buffer's end without an error."""
    if buffer.mem_size < needed:
        raise InvalidShaderArgumentError(
            f"{argument} is a buffer of shape {tuple(buffer.shape)} ({buffer.var_type.name}, "
            f"{buffer.mem_size} bytes), but the shader was made for {what}, which needs "
            f"{needed} bytes; make the shader for the buffer's shape")


def _declared_type(annotation):
    """The dtype of a ``Buff[T]`` annotation, or None when the parameter declares none."""
    args = getattr(annotation, "__args__", None)
    return args[0] if args else None


def _tuple_getter(positions: list[int]) -> Callable[[tuple], tuple]:
    if not positions:
        return lambda _args: ()
    if len(positions) == 1:
        position = positions[0]
        return lambda args: (args[position],)
    return operator.itemgetter(*positions)


def _uniform_sources(description: ShaderDescription) -> list[Source]:
    sources: dict[str, Source] = {}
    if description.exec_count_name:
        sources[description.exec_count_name] = ("limits",)
    for position, info in enumerate(description.shader_arg_infos):
        if info.arg_type == ShaderArgumentType.BUFFER and info.shader_shape_name:
            sources[info.shader_shape_name] = ("shape", position)
        elif info.arg_type == ShaderArgumentType.CONSTANT:
            sources[info.shader_name] = ("param", position)
        elif info.arg_type == ShaderArgumentType.CONSTANT_DATACLASS:
            for field, member in info.shader_name.items():
                sources[member] = ("field", position, field)
    missing = [e.name for e in description.uniform_structure if e.name not in sources]
    if missing:
        raise InvalidStateError(f"shader '{description.name}': uniform member '{missing[0]}' "
                                "comes from no parameter")
    return [sources[e.name] for e in description.uniform_structure]
