"""The shader builder: what one traced shader declares and the statements it emits.

A builder is active for one thread while a function is traced (see ``context.py``). Shader
variables append statements to it; ``build(name)`` freezes it into a
:class:`ShaderDescription`, which the GLSL printer (``glsl.py``) turns into source text.
"""
from __future__ import annotations

import dataclasses
import enum
import re
from typing import Any

from vkdispatch import dtypes as dt
from vkdispatch.codegen.blocks import BlockStack
from vkdispatch.codegen.flags import ShaderFlags
from vkdispatch.codegen.glsl import GLSLBackend
from vkdispatch.dtypes import scalar_of

__all__ = ["ShaderFlags", "BindingType", "StructElement", "ShaderBinding", "ShaderArgumentType",
           "ShaderArgumentInfo", "ShaderDescription", "ShaderBuilder", "SharedArray"]


class BindingType(enum.Enum):
    """Descriptor type of a binding slot (values are the native codes)."""

    STORAGE_BUFFER = 1
    UNIFORM_BUFFER = 3
    SAMPLER = 5


class ShaderArgumentType(enum.Enum):
    """What a shader parameter is bound to at call time."""

    BUFFER = 0
    IMAGE = 1
    VARIABLE = 2
    CONSTANT = 3
    CONSTANT_DATACLASS = 4


@dataclasses.dataclass
class StructElement:
    """One member of the uniform or push-constant block."""

    name: str
    dtype: Any
    count: int = 1


@dataclasses.dataclass
class ShaderBinding:
    """A storage buffer or sampler binding (binding slot = position + resource base). For a
    sampler, ``dtype`` is the scalar sampling returns and ``arrayed`` marks a layered image."""

    dtype: Any
    name: str
    dimension: int
    binding_type: BindingType
    arrayed: bool = False
    coherent: bool = False


@dataclasses.dataclass
class SharedArray:
    """A workgroup-shared array ``shared T name[size];``."""

    dtype: Any
    name: str
    size: int


@dataclasses.dataclass
class ShaderArgumentInfo:
    """How one Python parameter maps onto the shader's resources."""

    name: str
    arg_type: ShaderArgumentType
    default_value: Any
    shader_name: Any
    shader_shape_name: str | None = None
    binding: int | None = None
    annotation: Any = None


def _block_order(elements: list[StructElement]) -> list[StructElement]:
    """Block order: members with wider components first, then largest first (stable).

    The host packs members back to back, while the scalar layout aligns each member to its
    component size; ordering by component width (8, 4, 2 bytes) makes every back-to-back
    offset a multiple of the member's alignment (a vec3 before a double would not be).
    """
    return sorted(elements, key=lambda e: (-scalar_of(e.dtype).item_size,
                                           -e.dtype.item_size * e.count))


@dataclasses.dataclass
class ShaderDescription:
    """A traced shader, ready to print and compile.

    ``pc_structure`` / ``uniform_structure`` are in block order (largest member first);
    ``binding_type_list`` starts with the uniform buffer when there is one;
    ``binding_access`` is the traced ``(read, write)`` per binding.
    """

    name: str
    body: str
    flags: ShaderFlags
    extensions: list[str]
    shared_arrays: list[SharedArray]
    bindings: list[ShaderBinding]
    uniform_structure: list[StructElement]
    pc_structure: list[StructElement]
    binding_access: list[tuple[bool, bool]]
    shader_arg_infos: list[ShaderArgumentInfo]
    exec_count_name: str | None
    backend: Any

    @property
    def resource_binding_base(self) -> int:
        return 1 if self.uniform_structure else 0

    @property
    def binding_type_list(self) -> list[int]:
        types = [BindingType.UNIFORM_BUFFER.value] if self.uniform_structure else []
        return types + [b.binding_type.value for b in self.bindings]

    @property
    def pc_size(self) -> int:
        return sum(e.dtype.item_size * e.count for e in self.pc_structure)

    @property
    def uniform_size(self) -> int:
        return sum(e.dtype.item_size * e.count for e in self.uniform_structure)

    @property
    def header(self) -> str:
        return self.backend.header(self)

    def make_source(self, x: int, y: int, z: int, body: str | None = None,
                    aliases: dict[int, int] | None = None) -> str:
        """The complete source with the workgroup size ``(x, y, z)`` (and ``body`` in place of
        the traced one: a coarsened variant; ``aliases``: buffer bindings that stand for
        earlier ones, see the backend's ``header``)."""
        return self.backend.source(self, (x, y, z), body, aliases)

    def get_arg_names_and_defaults(self) -> list[tuple[str, Any]]:
        return [(info.name, info.default_value) for info in self.shader_arg_infos]


class ShaderBuilder:
    """Collects declarations and statements of one shader while it is traced.

    Not thread-safe: each thread traces with its own builder.
    """

    def __init__(self, flags: ShaderFlags = ShaderFlags.NONE, backend: Any = None):
        self.flags = ShaderFlags(flags)
        self.backend = backend if backend is not None else GLSLBackend()
        self._counter = 0
        self._lines: list[str] = []
        self._indent = 1
        self._blocks = BlockStack()
        self.bindings: list[ShaderBinding] = []
        self.binding_access: list[list[bool]] = []
        self.shared_arrays: list[SharedArray] = []
        self.uniform_fields: list[StructElement] = []
        self.pc_fields: list[StructElement] = []
        self.used_types: set = set()
        self.uses_subgroups = False
        self.uses_printf = False
        self.arg_infos: list[ShaderArgumentInfo] = []
        self.arguments_declared = False
        self.name: str | None = None  # the traced function's name, for error messages
        self.exec_count = None
        if not self.flags & ShaderFlags.NO_EXEC_BOUNDS:
            self.exec_count = self.add_uniform_field("exec_count", dt.uvec4)
            self.emit(self.backend.bounds_guard("UBO.exec_count"))

    # -- names and declarations -------------------------------------------------------------

    def new_name(self) -> str:
        """The next ``var<N>`` name (arguments, registers and shared arrays share it)."""
        name = f"var{self._counter}"
        self._counter += 1
        return name

    def use_type(self, var_type) -> None:
        """Records that ``var_type`` appears in the source (drives the extension lines)."""
        self.used_types.add(var_type)

    def add_uniform_field(self, name: str, var_type, count: int = 1) -> str:
        """Adds a member to the uniform block; returns its name."""
        self.use_type(var_type)
        self.uniform_fields.append(StructElement(name, var_type, count))
        return name

    def add_push_constant_field(self, name: str, var_type, count: int = 1) -> str:
        """Adds a member to the push-constant block; returns its name."""
        self.use_type(var_type)
        self.pc_fields.append(StructElement(name, var_type, count))
        return name

    def add_binding(self, var_type, binding_type: BindingType, dimension: int = 0,
                    arrayed: bool = False) -> int:
        """Declares a buffer or sampler; returns its index among the bindings."""
        index = len(self.bindings)
        prefix = "buf" if binding_type == BindingType.STORAGE_BUFFER else "tex"
        if var_type is not None:
            self.use_type(var_type)
        self.bindings.append(ShaderBinding(var_type, f"{prefix}{index}", dimension, binding_type,
                                           arrayed))
        self.binding_access.append([False, False])
        return index

    def mark_access(self, binding_index: int, read: bool = False, write: bool = False) -> None:
        """Records that the shader reads and/or writes binding ``binding_index`` (the flags
        decide the barriers between dispatches)."""
        access = self.binding_access[binding_index]
        access[0] |= read
        access[1] |= write

    def mark_coherent(self, binding_index: int) -> None:
        """Declares storage buffer ``binding_index`` ``coherent``: its loads and stores reach
        the memory other workgroups use, so that with memory barriers and atomics one
        workgroup reads what another wrote in the same dispatch."""
        self.bindings[binding_index] = dataclasses.replace(self.bindings[binding_index],
                                                           coherent=True)

    def mark_named_buffers(self, text: str, write: bool) -> None:
        """Records access to every storage buffer raw source ``text`` names (the escape hatch
        ``str_to_dtype``): read, and written too where the text is assignable."""
        for index, binding in enumerate(self.bindings):
            if binding.binding_type == BindingType.STORAGE_BUFFER and \
                    re.search(rf"\b{binding.name}\b", text):
                self.mark_access(index, read=True, write=write)

    def add_shared_array(self, var_type, size: int, name: str) -> None:
        """Declares ``shared T name[size];``."""
        self.use_type(var_type)
        self.shared_arrays.append(SharedArray(var_type, name, size))

    # -- statements ------------------------------------------------------------------------

    def emit(self, statement: str) -> None:
        """Appends one statement line at the current indentation."""
        self._lines.append("    " * self._indent + statement)

    def indent(self) -> None:
        self._indent += 1

    def dedent(self) -> None:
        self._indent -= 1

    def open_block(self, kind: str, opening: str, indent: bool = True) -> None:
        """Emits ``opening`` (ending in ``{``) and opens a block of ``kind`` ("if", "else if",
        "else", "while", "scope"); an else kind must directly follow a closed if-block."""
        if kind.startswith("else"):
            self._blocks.check_else_follows_if(f"vc.{kind.replace(' ', '_')}_block",
                                               len(self._lines))
        self.emit(opening)
        self._blocks.open(kind)
        if indent:
            self.indent()

    def close_block(self, indent: bool = True) -> None:
        """Emits ``}`` for the innermost open block; raises when none is open."""
        self._blocks.close(len(self._lines) + 1)
        if indent:
            self.dedent()
        self.emit("}")

    def continue_block(self, kind: str, header: str) -> None:
        """The legacy ``} <header> {`` continuing the open if-block as ``kind``."""
        self._blocks.switch_to(kind, f"vc.{kind.replace(' ', '_')}_statement")
        self.dedent()
        self.emit("} " + header + " {")
        self.indent()

    @property
    def body(self) -> str:
        return "\n".join(self._lines)

    def build(self, name: str) -> ShaderDescription:
        """Freezes what was traced into a description named ``name``; raises when a block
        opened by a statement form was never closed."""
        self._blocks.check_all_closed()
        ubo_access = [(True, False)] if self.uniform_fields else []
        base = 1 if self.uniform_fields else 0
        arg_infos = [info if info.binding is None
                     else dataclasses.replace(info, binding=info.binding + base)
                     for info in self.arg_infos]
        return ShaderDescription(
            name=name,
            body=self.body,
            flags=self.flags,
            extensions=self.backend.extensions(self),
            shared_arrays=list(self.shared_arrays),
            bindings=list(self.bindings),
            uniform_structure=_block_order(self.uniform_fields),
            pc_structure=_block_order(self.pc_fields),
            binding_access=ubo_access + [tuple(a) for a in self.binding_access],
            shader_arg_infos=arg_infos,
            exec_count_name=self.exec_count,
            backend=self.backend,
        )
