"""Parameters one call binds to the same buffer.

SPIR-V lets a driver assume that two descriptor bindings never alias (GLSL cannot ask for the
Aliased decoration), so a compiler may reorder a load from one binding above a store to the
other. A call that binds one buffer to two parameters, one of them written, therefore runs a
variant of the shader in which the later parameter's name stands for the earlier binding (see
``GLSLBackend.header``): the memory is then reached through one variable.
"""
from __future__ import annotations

from vkdispatch.codegen.builder import ShaderDescription

__all__ = ["BufferAliasing"]


class BufferAliasing:
    """Finds, per call, the buffer parameters that share a buffer.

    Args:
        description: the traced shader.
        buffer_slots: the binding slot of each buffer parameter, in parameter order.

    Attributes:
        possible: whether any call can need the variant (two buffer parameters or more, one of
            them written); the call path skips the check otherwise.
    """

    def __init__(self, description: ShaderDescription, buffer_slots: list[int]):
        base = description.resource_binding_base
        self._positions = tuple(slot - base for slot in buffer_slots)
        self._types = tuple(description.bindings[p].dtype for p in self._positions)
        self._written = tuple(description.binding_access[slot][1] for slot in buffer_slots)
        self.possible = len(buffer_slots) > 1 and any(self._written)

    def of(self, buffers: tuple) -> tuple[tuple[int, int], ...]:
        """``(position, canonical position)`` among the shader's bindings for each parameter
        bound to the buffer of an earlier one of the same element type, where one of them is
        written; () when none. Parameters of different element
        types sharing a buffer (a reinterpretation) keep their own bindings."""
        groups: dict[tuple[int, object], list[tuple[int, bool]]] = {}
        for buffer, position, dtype, written in zip(buffers, self._positions, self._types,
                                                    self._written):
            groups.setdefault((id(buffer), dtype), []).append((position, written))
        return tuple((position, members[0][0]) for members in groups.values()
                     if len(members) > 1 and any(written for _, written in members)
                     for position, _ in members[1:])
