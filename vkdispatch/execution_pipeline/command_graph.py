"""CommandGraph: records shader calls, binds deferred push constants, submits and replays.

Recording is cheap (values are packed, nothing touches the GPU); the first submit after a
change builds the native command list, reusing descriptor sets whenever the same buffers are
bound again. Uniform data (``Const`` values, buffer shapes, launch limits) travels inside the
submitted command buffer, so a submit is one queue submission.
"""
from __future__ import annotations

import dataclasses
import math
import weakref
from typing import Any

import numpy as np

from vkdispatch.base import dtype as dt
from vkdispatch.base.buffer import Buffer
from vkdispatch.base.command_list import CommandList, normalize_blocks
from vkdispatch.base.descriptor_set import DescriptorSet
from vkdispatch.execution_pipeline.packing import field_bytes, packer_for
from vkdispatch.errors import InvalidArgumentError

__all__ = ["CommandGraph", "BufferBindInfo", "ImageBindInfo", "BoundVariableName"]

_MIN_UNIFORM_WORDS = 4096
_DESCRIPTOR_CACHE_LIMIT = 512


@dataclasses.dataclass(slots=True)
class BufferBindInfo:
    """A buffer argument of one recorded call: its binding slot, shape uniform and access."""

    buffer: Buffer
    binding: int
    shape_name: str | None
    read_access: bool
    write_access: bool


@dataclasses.dataclass
class ImageBindInfo:
    """An image argument of one recorded call (images arrive with the images feature)."""

    sampler: Any
    binding: int
    read_access: bool
    write_access: bool


@dataclasses.dataclass(frozen=True)
class BoundVariableName:
    """What ``graph.bind_var(name)`` returns: a placeholder value for a ``Var`` argument."""

    name: str

    def __call__(self, *_args):
        # Callable like the reference's bind_var result, so code testing callable() still works.
        return self.name


@dataclasses.dataclass(slots=True)
class _Dispatch:
    plan: Any
    blocks: tuple[int, int, int]
    buffers: list[BufferBindInfo]
    uniform: bytes
    uniform_offset: int
    pc_packer: object
    pc_values: dict


class CommandGraph(CommandList):
    """A recorded sequence of shader calls.

    Args:
        reset_on_submit: forget the recording after each submit (immediate mode).
        submit_on_record: submit right after each recorded call (immediate mode).

    ``Const`` values are frozen at record time; ``Var`` values can change between submits with
    :meth:`bind_var`/:meth:`set_var`. Thread safety: record and submit from one thread.
    """

    def __init__(self, reset_on_submit: bool = False, submit_on_record: bool = False):
        super().__init__()
        self.submit_on_record = submit_on_record
        self._reset_on_submit = reset_on_submit
        self._dispatches: list[_Dispatch] = []
        self._uniform = bytearray()
        self._uniform_alignment = max(4, self.context.uniform_buffer_alignment)
        self._all_queues = frozenset(range(self.context.queue_count))
        self._uniform_buffer: Buffer | None = None
        # Queues whose replica of the uniform buffer holds exactly _uploaded_bytes: repeated
        # calls with the same values (immediate mode) then skip the upload.
        self._uploaded_to: set[int] = set()
        self._uploaded_bytes: bytes | None = None
        self._recorded = False
        self._descriptor_sets: dict = {}
        self._native_sequence: list = []  # (plan, set, blocks) recorded natively; kept alive
        self.name_to_pc_key_dict: dict[str, list[tuple[int, str]]] = {}
        self.queued_pc_values: dict[str, Any] = {}

    # -- recording ------------------------------------------------------------------------------

    def record_shader(self, plan, shader_description, exec_limits, blocks,
                      bound_buffers: list[BufferBindInfo], bound_samplers=(),
                      uniform_values: dict | None = None, pc_values: dict | None = None,
                      shader_uuid: str | None = None) -> None:
        """Records one dispatch of ``plan`` (called by ShaderFunction)."""
        if bound_samplers:
            raise InvalidArgumentError("images and samplers are not supported by this build yet")
        values = dict(uniform_values or {})
        if shader_description.exec_count_name:
            values[shader_description.exec_count_name] = (*exec_limits, 0)
        for info in bound_buffers:
            if info.shape_name is not None:
                values[info.shape_name] = info.buffer.shader_shape
        uniform = packer_for(shader_description, "uniform_structure").pack(
            values, f"shader '{shader_description.name}'")
        index = len(self._dispatches)
        stored_pc = {}
        for name, value in (pc_values or {}).items():
            if isinstance(value, BoundVariableName):
                if self.submit_on_record:
                    raise InvalidArgumentError("Cannot bind Variables for default cmd list! Pass "
                                               "graph=<your CommandGraph> to the call.")
                self.name_to_pc_key_dict.setdefault(value.name, []).append((index, name))
                value = None  # zeros until set_var
            stored_pc[name] = value
        pc_packer = packer_for(shader_description, "pc_structure")
        if pc_packer.size:
            pc_packer.pack(stored_pc, f"shader '{shader_description.name}' Var")  # fail now
        offset = self._append_uniform(uniform)
        self._dispatches.append(_Dispatch(plan, normalize_blocks(blocks), list(bound_buffers),
                                          uniform, offset, pc_packer, stored_pc))
        self._recorded = False
        if self.submit_on_record:
            try:
                self.submit()
            except BaseException:
                self.reset()  # a failed immediate call must not linger in the graph
                raise

    def _append_uniform(self, block: bytes) -> int:
        if not block:
            return -1
        alignment = self._uniform_alignment
        offset = -len(self._uniform) % alignment + len(self._uniform)
        self._uniform.extend(b"\0" * (offset - len(self._uniform)))
        self._uniform.extend(block)
        return offset

    def bind_var(self, name: str) -> BoundVariableName:
        """A placeholder to pass as a ``Var`` argument; set its value later with set_var."""
        return BoundVariableName(name)

    def set_var(self, name: str, value) -> None:
        """Sets every ``Var`` slot bound to ``name`` for the following submits. With
        ``instance_count > 1`` the value may hold one entry per instance."""
        if name not in self.name_to_pc_key_dict:
            raise InvalidArgumentError(f"Variable not bound! '{name}' was never passed as "
                                       f"graph.bind_var('{name}') to a recorded call")
        self.queued_pc_values[name] = value

    # -- submission -----------------------------------------------------------------------------

    def _ensure_uniform_buffer(self) -> None:
        words = (len(self._uniform) + 3) // 4
        current = self._uniform_buffer
        if current is not None and current.size >= words:
            return
        capacity = max(_MIN_UNIFORM_WORDS, 2 * current.size if current else 0)
        while capacity < words:
            capacity *= 2
        if current is not None:
            current.destroy()
        self._uniform_buffer = Buffer((capacity,), dt.uint32)
        self._descriptor_sets.clear()
        self._uploaded_to.clear()
        self._uploaded_bytes = None

    def _descriptor_set(self, dispatch: _Dispatch, uniform_size: int) -> DescriptorSet:
        key = (dispatch.plan, dispatch.uniform_offset, uniform_size,
               tuple((i.binding, id(i.buffer), i.read_access, i.write_access)
                     for i in dispatch.buffers))
        entry = self._descriptor_sets.get(key)
        if entry is not None:
            refs, descriptor_set = entry
            if all(ref() is info.buffer for ref, info in zip(refs, dispatch.buffers)):
                return descriptor_set
        descriptor_set = DescriptorSet(dispatch.plan)
        if uniform_size:
            descriptor_set.bind_buffer(self._uniform_buffer, 0, dispatch.uniform_offset,
                                       uniform_size, uniform=True, write_access=False)
        for info in dispatch.buffers:
            descriptor_set.bind_buffer(info.buffer, info.binding, read_access=info.read_access,
                                       write_access=info.write_access)
        if len(self._descriptor_sets) >= _DESCRIPTOR_CACHE_LIMIT:
            # Only forget it: the current recording may still use it (it is freed with it).
            self._descriptor_sets.pop(next(iter(self._descriptor_sets)))
        self._descriptor_sets[key] = ([weakref.ref(i.buffer) for i in dispatch.buffers],
                                      descriptor_set)
        return descriptor_set

    def _record_native(self) -> None:
        if self._uniform:
            self._ensure_uniform_buffer()
        sets = [self._descriptor_set(d, len(d.uniform)) for d in self._dispatches]
        sequence = [(d.plan, s, d.blocks) for d, s in zip(self._dispatches, sets)]
        # Immediate mode repeats the same call: the native recording can then be reused.
        if sequence != self._native_sequence:
            self._native.reset()
            for plan, descriptor_set, blocks in sequence:
                self._native.record(plan._native, descriptor_set._native, *blocks)
            self._native_sequence = sequence
        self._recorded = True

    def _push_constant_data(self, instance_count: int) -> bytes:
        size = self.get_instance_size()
        if size == 0:
            return b""
        overrides = {(i, field): self.queued_pc_values[name]
                     for name, keys in self.name_to_pc_key_dict.items()
                     if name in self.queued_pc_values for i, field in keys}
        if instance_count == 1:
            return b"".join(
                d.pc_packer.pack({e.name: overrides.get((i, e.name), d.pc_values[e.name])
                                  for e in d.pc_packer.structure}, "Var")
                for i, d in enumerate(self._dispatches))
        data = np.zeros((instance_count, size), dtype=np.uint8)
        offset = 0
        for index, dispatch in enumerate(self._dispatches):
            for element in dispatch.pc_packer.structure:
                value = overrides.get((index, element.name), dispatch.pc_values[element.name])
                offset = self._write_pc(data, offset, element, value, instance_count)
        return data.tobytes()

    @staticmethod
    def _write_pc(data: np.ndarray, offset: int, element, value, instance_count: int) -> int:
        """Writes one member for every instance: one value for all, or one per instance."""
        what = f"Var '{element.name}'"
        width = element.dtype.item_size * element.count
        single = math.prod(element.dtype.numpy_shape) * element.count
        array = np.asarray(value)
        if instance_count > 1 and array.size == single * instance_count != single:
            rows = array.reshape(instance_count, -1)
            for k in range(instance_count):
                data[k, offset:offset + width] = np.frombuffer(
                    field_bytes(element, rows[k], what), dtype=np.uint8)
        else:
            data[:, offset:offset + width] = np.frombuffer(field_bytes(element, value, what),
                                                           dtype=np.uint8)
        return offset + width

    def submit(self, instance_count: int | None = None, queue_index: int = -2) -> None:
        """Runs the recorded calls ``instance_count`` times (default 1) on the queue(s):
        -2 every queue, -1 the least busy queue, or one queue index."""
        instance_count = 1 if instance_count is None else instance_count
        if type(instance_count) is not int or instance_count < 1:
            if isinstance(instance_count, bool) or not isinstance(instance_count, int) or \
                    instance_count < 1:
                raise InvalidArgumentError(f"instance_count must be a positive int, got "
                                           f"{instance_count!r}")
        if queue_index not in (-2, -1):
            self.context.check_queue_index(queue_index, "queue_index")
        if not self._dispatches:
            return
        if not self._recorded:
            self._record_native()
        targets = self._all_queues if queue_index == -2 else {queue_index}
        payload = bytes(self._uniform)
        if payload != self._uploaded_bytes:
            self._uploaded_bytes, self._uploaded_to = payload, set()
        send_uniform = bool(payload) and (queue_index == -1 or not targets <= self._uploaded_to)
        # The data was built here to the right size, so the native call needs no re-checking.
        self._native.submit(self._push_constant_data(instance_count), instance_count,
                            queue_index, self._uniform_buffer._native if send_uniform else None,
                            payload if send_uniform else b"")
        if send_uniform and queue_index != -1:
            self._uploaded_to |= targets
        if self._reset_on_submit:
            self.reset()

    def submit_any(self, instance_count: int | None = None) -> None:
        """Submits to whichever queue is least busy."""
        self.submit(instance_count, queue_index=-1)

    def reset(self) -> None:
        """Forgets recorded calls and bound variables (keeps caches and the uniform buffer)."""
        self._dispatches.clear()
        self._uniform.clear()
        self.name_to_pc_key_dict.clear()
        self.queued_pc_values.clear()
        self._recorded = False

    def _destroy(self) -> None:
        for _refs, descriptor_set in self._descriptor_sets.values():
            descriptor_set.destroy()
        self._descriptor_sets.clear()
        if self._uniform_buffer is not None:
            self._uniform_buffer.destroy()
        super()._destroy()

