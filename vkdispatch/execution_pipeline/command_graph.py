"""CommandGraph: records shader calls and other commands, binds deferred push constants,
submits and replays.

Recording is cheap (values are packed, nothing touches the GPU); the first submit after a
change builds the native command list, reusing descriptor sets whenever the same buffers are
bound again. Uniform data (``Const`` values, buffer shapes, launch limits) travels inside the
submitted command buffer, so a submit is one queue submission.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import weakref
from typing import Any

import numpy as np

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer, check_integer_range
from vkdispatch.base.command_list import CommandList, normalize_blocks
from vkdispatch.base.commands import Command, Dispatch
from vkdispatch.base.context import get_context
from vkdispatch.base.descriptor_cache import DescriptorSetCache
from vkdispatch.base.handle import Handle
from vkdispatch.base.replicas import ReplicaStep
from vkdispatch.base.sampler import Sampler
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.execution_pipeline.graph_segments import split
from vkdispatch.shader.bound_variable import BoundVariableName
from vkdispatch.shader.dispatch_target import DispatchTarget
from vkdispatch.shader.packing import BlockPacker, field_bytes, packer_for

__all__ = ["CommandGraph", "BufferBindInfo", "ImageBindInfo"]

_MIN_UNIFORM_WORDS = 4096
_ALL_QUEUES = -2  # queue_index values of submit besides a queue's index
_LEAST_BUSY_QUEUE = -1
# One submission's instances: the native count is 32-bit.
_MAX_INSTANCES = 2**32 - 1


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
    """An image argument of one recorded call: the sampler (of its image) bound at ``binding``
    (shaders only read images)."""

    sampler: Sampler
    binding: int
    read_access: bool
    write_access: bool


@dataclasses.dataclass(slots=True)
class _Dispatch:
    plan: Any
    blocks: tuple[int, int, int]
    buffers: tuple  # the Buffers and Samplers bound
    bindings: tuple  # (binding, read, write) per entry of buffers
    uniform: bytes
    uniform_offset: int
    pc: bytes | None  # packed push constants; None while some Var is bound by name
    pc_packer: BlockPacker | None  # when pc is None
    pc_values: dict | None  # member -> value (None for bound names) when pc is None


class CommandGraph(Handle, DispatchTarget):
    """A recorded sequence of shader calls and other commands (copies, fills, barriers: see
    :mod:`vkdispatch.base.commands`), the shader layer's :class:`DispatchTarget`. Hazards
    between them get barriers; no ordering needs to be placed by hand. It holds the
    :class:`~vkdispatch.base.command_list.CommandList` it replays (one per segment) rather than
    being one: commands enter only through its recording.

    Args:
        reset_on_submit: forget the recording after each submit (immediate mode).
        submit_on_record: submit right after each recorded call (immediate mode).

    ``Const`` values are frozen at record time; ``Var`` values can change between submits with
    :meth:`bind_var`/:meth:`set_var`. ``vd.copy_replica`` and ``vd.all_reduce`` recorded with
    ``graph=`` make the graph run on every queue, in segments between them. Thread safety:
    record and submit from one thread.
    """

    def __init__(self, reset_on_submit: bool = False, submit_on_record: bool = False):
        self.context = get_context()
        # The graph holds the native list it replays rather than being one: a list's record()
        # and submit(data, ...) would bypass the recording and push constants kept here.
        self._list = CommandList(self.context)  # the first segment's (immediate mode's too)
        self.submit_on_record = submit_on_record
        self._reset_on_submit = reset_on_submit
        self._commands: list = []  # _Dispatch per shader call, or a base command
        self._uniform = bytearray()
        self._uniform_offsets: dict[bytes, int] = {}
        self._uniform_alignment = max(4, self.context.uniform_buffer_alignment)
        self._all_queues = frozenset(range(self.context.queue_count))
        self._uniform_buffer: Buffer | None = None
        # Queues whose replica of the uniform buffer holds exactly _uploaded_bytes: repeated
        # calls with the same values (immediate mode) then skip the upload.
        self._uploaded_to: frozenset[int] = frozenset()
        # Immediate mode's latest call: (plan, blocks, weak references to its buffers, the
        # native recording it left), or None.
        self._last_call: tuple | None = None
        # The latest submit's (push constants, uniform data), where repeat_or_record may send
        # them again, and that operation: (key, native recording, push constants, uniform).
        self._submitted: tuple | None = None
        self._last_operation: tuple | None = None
        self._uploaded_bytes: bytes | None = None
        self._recorded = False
        self._descriptor_sets = DescriptorSetCache()
        self._steps = 0  # replica steps recorded (the graph then runs in segments)
        self._segment_lists: list[CommandList] = []  # native lists of segments 1, 2, ...
        self.name_to_pc_key_dict: dict[str, list[tuple[int, str]]] = {}
        self.queued_pc_values: dict[str, Any] = {}
        self._register(self.context.handles)

    # -- recording ------------------------------------------------------------------------------

    def record_shader(self, plan, shader_description, exec_limits, blocks,
                      bound_buffers: list[BufferBindInfo], bound_samplers=(),
                      uniform_values: dict | None = None, pc_values: dict | None = None,
                      shader_uuid: str | None = None) -> None:
        """Records one dispatch of ``plan`` from unpacked values (uniform and push-constant
        members by name), binding ``bound_buffers`` and ``bound_samplers``
        (:class:`ImageBindInfo`)."""
        values = dict(uniform_values or {})
        if shader_description.exec_count_name:
            values[shader_description.exec_count_name] = (*exec_limits, 0)
        for info in bound_buffers:
            if info.shape_name is not None:
                values[info.shape_name] = info.buffer.shader_shape
        uniform = packer_for(shader_description, "uniform_structure").pack(
            values, f"shader '{shader_description.name}'")
        for info in bound_samplers:
            if not isinstance(info.sampler, Sampler) or info.sampler.destroyed or \
                    info.sampler.image.destroyed:
                raise InvalidArgumentError(f"bound_samplers: binding {info.binding} needs a live "
                                           f"vd.Sampler, got {info.sampler!r:.60}")
        self.record_dispatch(plan, shader_description, blocks,
                             tuple(i.buffer for i in bound_buffers) +
                             tuple(i.sampler for i in bound_samplers),
                             tuple((i.binding, i.read_access, i.write_access)
                                   for i in bound_buffers) +
                             tuple((i.binding, True, False) for i in bound_samplers),
                             uniform, dict(pc_values or {}))

    def record_dispatch(self, plan, shader_description, blocks, buffers: tuple, bindings: tuple,
                        uniform: bytes, pc) -> None:
        """Records one dispatch of ``plan`` from packed values: ``buffers[i]`` bound at
        ``bindings[i] = (binding, read, write)``, the uniform block's bytes, and the push
        constants as bytes or as a dict of member values (where ``bind_var`` names may
        appear)."""
        if self._destroyed:
            raise self.unusable_error("this CommandGraph")
        blocks = normalize_blocks(blocks)
        pc_packer = pc_values = None
        if type(pc) is dict:
            pc_packer = packer_for(shader_description, "pc_structure")
            pc, pc_values = self._bind_push_constants(pc, pc_packer, shader_description)
        if self.submit_on_record and self._reset_on_submit and not self._commands and \
                pc is not None:
            self._submit_now(plan, blocks, buffers, bindings, uniform, pc)
            return
        offset = self._append_uniform(uniform)
        self._append(_Dispatch(plan, blocks, buffers, bindings, uniform, offset, pc, pc_packer,
                               pc_values))

    def repeat_or_record(self, key, record) -> None:
        """Runs ``record()``, which records a library operation's calls into this graph, as
        :meth:`one_submission` does. In immediate mode, where ``key`` equals the key of the
        operation submitted last and nothing was submitted since, submits that operation's
        native recording, push constants and uniform data again instead: a script repeating
        an operation of several dispatches pays for one submission, not for tracing each
        dispatch through the shader layer again. ``key`` (None: always record) must capture
        everything the recording depends on: the caller's options, and its buffers through
        :func:`buffer_key` (weak references, so nothing is kept alive)."""
        last = self._last_operation
        # Only at the top of immediate mode: nested in another operation, nothing submits.
        immediate = self.submit_on_record and self._reset_on_submit and not self._commands
        if key is not None and immediate and last is not None and last[0] == key and \
                last[1] is self._list._recording:
            self._submit_native(last[2], 1, _ALL_QUEUES, last[3])
            return
        self._last_operation = self._submitted = None
        with self.one_submission():
            record()
        if key is not None and immediate and self._submitted is not None:
            self._last_operation = (key, self._list._recording) + self._submitted

    @contextlib.contextmanager
    def one_submission(self):
        """In immediate mode (a thread's default graph) the calls recorded inside are submitted
        together when it ends: a library operation of several dispatches is one queue
        submission, and its repeats reuse one native recording (they record equal commands).
        None of them runs when an exception leaves it. On a graph of yours, or nested, an
        exception removes what was recorded inside (a transform refused at its second pass
        left its first recorded, which the next submit ran)."""
        if not (self.submit_on_record and self._reset_on_submit):
            mark = self._mark()
            try:
                yield
            except BaseException:
                self._roll_back(mark)
                raise
            return
        self.submit_on_record = False
        try:
            yield
        except BaseException:
            self.reset()
            raise
        finally:
            self.submit_on_record = True
        self.submit()

    def _mark(self) -> tuple:
        """What recording changes, as it is now (see :meth:`_roll_back`)."""
        return (len(self._commands), len(self._uniform), dict(self._uniform_offsets),
                {name: list(keys) for name, keys in self.name_to_pc_key_dict.items()},
                self._steps)

    def _roll_back(self, mark: tuple) -> None:
        """Forgets what was recorded since :meth:`_mark` returned ``mark``."""
        commands, uniform, offsets, names, steps = mark
        del self._commands[commands:]
        del self._uniform[uniform:]
        self._uniform_offsets, self.name_to_pc_key_dict, self._steps = offsets, names, steps
        self._recorded = False

    def record_command(self, command) -> None:
        """Records a command of :mod:`vkdispatch.base.commands` (a copy, fill, update, image
        copy, VkFFT run or barrier) after the calls recorded so far."""
        if not isinstance(command, Command) or isinstance(command, Dispatch):
            raise InvalidTypeError(f"command must be a BufferCopy, BufferFill, BufferUpdate, "
                                   f"ImageCopy, VkFFTRun or Barrier of vkdispatch.base.commands, "
                                   f"got {type(command).__name__} (record shader calls by calling "
                                   "the shader with graph=)")
        if self._destroyed:
            raise self.unusable_error("this CommandGraph")
        self._list._check_handles(command, f"{type(command).__name__} command")
        self._append(command)

    def record_replica_step(self, step: ReplicaStep) -> None:
        """Records a replica operation (``vd.copy_replica`` or ``vd.all_reduce`` with
        ``graph=``) after the calls recorded so far; the graph then runs on every queue, in
        segments (see :mod:`vkdispatch.execution_pipeline.graph_segments`)."""
        if self._destroyed:
            raise self.unusable_error("this CommandGraph")
        self._list._check_handles(step, f"{step.name} step")
        self._steps += 1
        self._append(step)

    def _append(self, entry) -> None:
        self._commands.append(entry)
        self._recorded = False
        if self.submit_on_record:
            try:
                self.submit()
            except BaseException:
                self.reset()  # a failed immediate call must not linger in the graph
                raise

    def _bind_push_constants(self, values: dict, packer: BlockPacker, description):
        """``(bytes, None)``, or ``(None, values)`` when some value is a ``bind_var`` name
        (registered for set_var; zeros until set)."""
        index, name = len(self._commands), description.name
        stored, bound = {}, False
        for member, value in values.items():
            if isinstance(value, BoundVariableName):
                if self.submit_on_record:
                    parameter = next((i.name for i in description.shader_arg_infos
                                      if i.shader_name == member), member)
                    raise InvalidArgumentError(
                        f"Cannot bind Variables for default cmd list! Argument '{parameter}' of "
                        f"shader '{name}' is bind_var('{value.name}'), which only a "
                        "CommandGraph of yours can set: pass graph=<your CommandGraph> to the "
                        "call.")
                self.name_to_pc_key_dict.setdefault(value.name, []).append((index, member))
                value, bound = None, True
            stored[member] = value
        packed = packer.pack(stored, f"shader '{name}' Var")  # fails now for bad values
        return (None, stored) if bound else (packed, None)

    def _append_uniform(self, block: bytes) -> int:
        """The offset of ``block`` in the graph's uniform data; calls with equal blocks share
        one copy, and so one descriptor set that the replay binds once."""
        if not block:
            return -1
        offset = self._uniform_offsets.get(block)
        if offset is None:
            uniform = self._uniform
            offset = -len(uniform) % self._uniform_alignment + len(uniform)
            uniform += bytes(offset - len(uniform)) + block
            self._uniform_offsets[block] = offset
        return offset

    def bind_var(self, name: str) -> BoundVariableName:
        """A placeholder to pass as a ``Var`` argument; set its value later with set_var."""
        if not isinstance(name, str):
            raise InvalidTypeError(f"bind_var: name must be a str, got {name!r}")
        return BoundVariableName(name)

    def set_var(self, name: str, value) -> None:
        """Sets every ``Var`` slot bound to ``name`` for the following submits. With
        ``instance_count > 1`` the value may hold one entry per instance."""
        if not isinstance(name, str):
            raise InvalidTypeError(f"set_var('{name}'): name must be the str given to "
                                   f"bind_var, got {type(name).__name__}")
        if name not in self.name_to_pc_key_dict:
            raise InvalidArgumentError(f"Variable not bound! '{name}' was never passed as "
                                       f"graph.bind_var('{name}') to a recorded call")
        self._check_var_value(name, value)
        self.queued_pc_values[name] = value

    def _check_var_value(self, name: str, value) -> None:
        """Refuses, when it is set, a value no submit could pack into the Vars bound to
        ``name`` (one value, or one per instance)."""
        array = np.asarray(value) if value is not None else None
        for index, member in self.name_to_pc_key_dict[name]:
            element = self._element_of(index, member)
            kinds = "biufc" if dt.is_complex(element.dtype) else "biuf"
            if array is None or array.dtype.kind not in kinds:
                raise InvalidArgumentError(f"set_var('{name}'): expected numbers for a "
                                           f"{element.dtype.name}, got {value!r:.60}")
            single = self._values_per_instance(element)
            if array.size % single:
                raise InvalidArgumentError(f"set_var('{name}'): a {element.dtype.name} takes "
                                           f"{single} value(s) per instance, got {array.size}")
            _check_var_values(name, array, element.dtype)

    def _element_of(self, index: int, member: str):
        return next(e for e in self._commands[index].pc_packer.structure if e.name == member)

    @staticmethod
    def _values_per_instance(element) -> int:
        """Numbers (real or complex) one instance's value of ``element`` holds."""
        return math.prod(element.dtype.numpy_shape) * element.count

    # -- submission -----------------------------------------------------------------------------

    def _ensure_uniform_buffer(self, size: int) -> None:
        words = (size + 3) // 4
        current = self._uniform_buffer
        if current is not None and current.size >= words:
            return
        capacity = max(_MIN_UNIFORM_WORDS, 2 * current.size if current else 0)
        while capacity < words:
            capacity *= 2
        if current is not None:
            current.destroy()
        with self.context:  # the graph's context, whichever is current
            self._uniform_buffer = Buffer((capacity,), dt.uint32)
        self._descriptor_sets.clear()
        self._uploaded_to = frozenset()
        self._uploaded_bytes = None

    def _set_of(self, dispatch: _Dispatch):
        return self._descriptor_sets.lookup(dispatch.plan, self._uniform_buffer,
                                            dispatch.uniform_offset, len(dispatch.uniform),
                                            dispatch.bindings, dispatch.buffers)

    def _check_alive(self) -> None:
        for index, entry in enumerate(self._commands):
            if type(entry) is not _Dispatch:
                self._list._check_handles(entry, f"command {index} of the graph "
                                                 f"({type(entry).__name__})")
                continue
            for (binding, _read, _write), resource in zip(entry.bindings, entry.buffers):
                if resource.destroyed or (type(resource) is Sampler and
                                          resource.image.destroyed):
                    what = "buffer" if type(resource) is not Sampler else "image (or sampler)"
                    raise InvalidArgumentError(f"call {index} of the graph binds a destroyed "
                                               f"{what} at binding {binding}; reset() and "
                                               "record again")

    def _record_native(self) -> None:
        self._check_alive()
        if self._uniform:
            self._ensure_uniform_buffer(len(self._uniform))
        segments = split(self._commands)[0] if self._steps else [self._commands]
        for command_list, entries in zip(self._lists(len(segments)), segments):
            command_list._replace_recording(tuple(
                Dispatch(entry.plan, self._set_of(entry), entry.blocks)
                if type(entry) is _Dispatch else entry for entry in entries))
        self._recorded = True

    def _lists(self, count: int) -> list[CommandList]:
        """The native lists of the first ``count`` segments."""
        while len(self._segment_lists) < count - 1:
            self._segment_lists.append(CommandList(self.context))
        return [self._list] + self._segment_lists[:count - 1]

    def _submit_now(self, plan, blocks, buffers, bindings, uniform: bytes, pc: bytes) -> None:
        """Immediate mode: runs one dispatch on every queue without storing a recording."""
        last = self._last_call
        # A script repeats its calls: the same dispatch as the native recording needs only its
        # push constants submitted (a third of the host work of a call), and its uniform data
        # where that changed (a Const scalar that differs per call: the descriptor set, which
        # binds the same uniform buffer, stays valid). The buffers are compared through weak
        # references, which never keep them alive; their descriptor set lives in the recording.
        if last is not None and last[0] is plan and last[1] == blocks and \
                last[3] is self._list._recording and len(last[2]) == len(buffers) and \
                all(ref() is buffer for ref, buffer in zip(last[2], buffers)):
            if uniform == self._uploaded_bytes and self._uploaded_to == self._all_queues:
                self._list._submit_unchecked(pc, 1, _ALL_QUEUES, None, b"")
            else:
                self._submit_native(pc, 1, _ALL_QUEUES, uniform)
            return
        if uniform:
            self._ensure_uniform_buffer(len(uniform))
        descriptor_set = self._descriptor_sets.lookup(plan, self._uniform_buffer, 0,
                                                      len(uniform), bindings, buffers)
        # Immediate mode repeats the same call: the native recording is then reused.
        self._list._replace_recording((Dispatch(plan, descriptor_set, blocks),))
        self._recorded = False  # the stored dispatches (none) differ from the native recording
        self._last_call = None  # (if the submission fails)
        self._submit_native(pc, 1, _ALL_QUEUES, uniform)
        self._last_call = (plan, blocks, tuple(map(weakref.ref, buffers)),
                           self._list._recording)

    def _submit_native(self, pc: bytes, instance_count: int, queue_index: int,
                       uniform: bytes, command_list: CommandList | None = None) -> None:
        """Submits the first segment's native list (or ``command_list``, a later one), with the
        uniform data unless the target queues' replicas hold it already."""
        if uniform != self._uploaded_bytes:
            self._uploaded_bytes, self._uploaded_to = uniform, frozenset()
        targets = self._all_queues if queue_index == _ALL_QUEUES else frozenset((queue_index,))
        send = bool(uniform) and (queue_index == _LEAST_BUSY_QUEUE or
                                  not targets <= self._uploaded_to)
        # The data was built here to the right size, so the native call needs no re-checking.
        (command_list or self._list)._submit_unchecked(pc, instance_count, queue_index,
                                                       self._uniform_buffer if send else None,
                                                       uniform if send else b"")
        if send and queue_index != _LEAST_BUSY_QUEUE:
            self._uploaded_to |= targets

    def _check_instance_values(self, instance_count: int) -> None:
        """Raises unless each set_var value holds one value for every instance or one per
        instance."""
        for name, value in self.queued_pc_values.items():
            size = np.asarray(value).size
            for index, member in self.name_to_pc_key_dict[name]:
                element = self._element_of(index, member)
                single = self._values_per_instance(element)
                if size != single and size != single * instance_count:
                    per_instance = f" or {single * instance_count} (one per instance)" \
                        if instance_count > 1 else ""
                    raise InvalidArgumentError(
                        f"set_var('{name}'): a {element.dtype.name} Var takes {single} "
                        f"value(s){per_instance} for instance_count={instance_count}, got "
                        f"{size}")

    def _push_constant_data(self, instance_count: int, size: int) -> bytes:
        """Push-constant bytes of every call, ``size`` per instance, instance-major."""
        if size == 0:
            return b""
        try:
            return self._pack_push_constants(instance_count, size)
        except InvalidArgumentError:
            # A value of the wrong count fails to pack; the error then names the user's Var
            # (submits that pack pay for no check).
            self._check_instance_values(instance_count)
            raise

    def _pack_push_constants(self, instance_count: int, size: int) -> bytes:
        overrides = {(i, field): self.queued_pc_values[name]
                     for name, keys in self.name_to_pc_key_dict.items()
                     if name in self.queued_pc_values for i, field in keys}
        calls = [(i, d) for i, d in enumerate(self._commands) if type(d) is _Dispatch]
        if instance_count == 1:
            return b"".join(
                d.pc if d.pc is not None else d.pc_packer.pack(
                    {e.name: overrides.get((i, e.name), d.pc_values[e.name])
                     for e in d.pc_packer.structure}, "Var")
                for i, d in calls)
        data = np.zeros((instance_count, size), dtype=np.uint8)
        offset = 0
        for index, dispatch in calls:
            if dispatch.pc is not None:
                width = len(dispatch.pc)
                data[:, offset:offset + width] = np.frombuffer(dispatch.pc, dtype=np.uint8)
                offset += width
                continue
            for element in dispatch.pc_packer.structure:
                value = overrides.get((index, element.name), dispatch.pc_values[element.name])
                offset = self._write_pc(data, offset, element, value, instance_count)
        return data.tobytes()

    @classmethod
    def _write_pc(cls, data: np.ndarray, offset: int, element, value, instance_count: int) -> int:
        """Writes one member for every instance: one value for all, or one per instance."""
        what = "Var"  # the packer adds the member's name
        width = element.dtype.item_size * element.count
        single = cls._values_per_instance(element)
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

    def get_instance_size(self) -> int:
        """Bytes of push-constant data one instance of the recorded calls consumes."""
        return sum(entry.plan.pc_size for entry in self._commands if type(entry) is _Dispatch)

    def submit(self, instance_count: int | None = None, queue_index: int = -2) -> None:
        """Runs the recorded calls ``instance_count`` times (default 1) on the queue(s):
        -2 every queue, -1 the least busy queue, or one queue index."""
        instance_count = 1 if instance_count is None else instance_count
        if type(instance_count) is not int or not 1 <= instance_count <= _MAX_INSTANCES:
            if isinstance(instance_count, bool) or not isinstance(instance_count, int) or \
                    not 1 <= instance_count <= _MAX_INSTANCES:
                raise InvalidArgumentError(f"instance_count must be a positive int of at most "
                                           f"{_MAX_INSTANCES}, got {instance_count!r}")
        if self._destroyed:
            raise self.unusable_error("this CommandGraph")
        if queue_index not in (-2, -1):
            self.context.check_queue_index(queue_index, "queue_index")
        if not self._commands:
            return
        if not self._recorded:
            self._record_native()
        self._submitted = None
        if self._steps:
            self._submit_segments(instance_count, queue_index)
        else:
            # The native list knows its size: a replay need not walk the recording.
            pc = self._push_constant_data(instance_count, self._list.get_instance_size())
            uniform = bytes(self._uniform)
            self._submit_native(pc, instance_count, queue_index, uniform)
            if instance_count == 1 and queue_index == _ALL_QUEUES:
                self._submitted = (pc, uniform)
        if self._reset_on_submit:
            self.reset()

    def _submit_segments(self, instance_count: int, queue_index: int) -> None:
        """Each instance in turn: every segment submitted to every queue, each followed by its
        step."""
        segments, steps = split(self._commands)
        if queue_index != _ALL_QUEUES and self.context.queue_count > 1:
            raise InvalidArgumentError(
                f"queue_index: a graph holding {steps[0].name} runs on every queue (-2), got "
                f"{queue_index}")
        for index, step in enumerate(steps):  # a buffer destroyed since: before any work runs
            self._list._check_handles(step, f"step {index} of the graph ({step.name})")
        lists = self._lists(len(segments))
        sizes = [command_list.get_instance_size() for command_list in lists]
        data = self._push_constant_data(instance_count, sum(sizes))
        uniform = bytes(self._uniform)
        offset = 0
        for _ in range(instance_count):
            for index, (command_list, size) in enumerate(zip(lists, sizes)):
                if segments[index]:
                    self._submit_native(data[offset:offset + size], 1, _ALL_QUEUES, uniform,
                                        command_list)
                offset += size
                if index < len(steps):
                    steps[index].run()

    def submit_any(self, instance_count: int | None = None) -> None:
        """Submits to whichever queue is least busy."""
        self.submit(instance_count, queue_index=-1)

    def reset(self) -> None:
        """Forgets recorded calls and bound variables (keeps caches and the uniform buffer)."""
        self._commands.clear()
        self._uniform.clear()
        self._uniform_offsets.clear()
        self.name_to_pc_key_dict.clear()
        self.queued_pc_values.clear()
        self._steps = 0
        for command_list in self._segment_lists:  # what they recorded keeps its buffers alive
            command_list.reset()
        self._recorded = False

    def _release(self) -> None:
        for command_list in (self._list, *self._segment_lists):
            command_list.destroy()
        self._descriptor_sets.clear()
        if self._uniform_buffer is not None:
            self._uniform_buffer.destroy()


def _check_var_values(name: str, array: np.ndarray, var_type) -> None:
    """Every value must reach the Var unchanged, as in Buffer.write: an int Var takes ints in
    its range, a float Var values within its type's range (NaN and infinities too). The submit
    refused the others later, naming a generated member."""
    host = np.dtype(dt.host_numpy_dtype(var_type))
    if host.kind in "iu":
        if array.dtype.kind in "fc":
            raise InvalidTypeError(f"set_var('{name}'): a {var_type.name} Var takes ints, got "
                                   f"{array.dtype} values")
        if array.dtype.kind in "iu":
            check_integer_range(array, host, f"the {var_type.name} Var '{name}'")
    elif host.kind == "f" and array.dtype.kind in "iuf" and array.size:
        finite = np.abs(array[np.isfinite(array)].astype(np.float64))
        if finite.size and finite.max() > np.finfo(host).max:
            raise InvalidArgumentError(f"set_var('{name}'): {finite.max():g} is beyond the "
                                       f"range of a {var_type.name} Var")
