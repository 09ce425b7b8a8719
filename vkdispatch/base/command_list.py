"""CommandList: recorded commands replayed on submit (what a CommandGraph replays)."""
from __future__ import annotations

import time

from vkdispatch.base import profile
from vkdispatch.base.commands import Command, Dispatch
from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.base.context import Context, get_context
from vkdispatch.base.descriptor_set import DescriptorSet
from vkdispatch.base.handle import Handle
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["CommandList", "normalize_blocks"]


def normalize_blocks(blocks) -> tuple[int, int, int]:
    """``blocks`` as a tuple of 3 ints (the workgroup counts of a dispatch)."""
    if type(blocks) is tuple and len(blocks) == 3 and type(blocks[0]) is int and \
            type(blocks[1]) is int and type(blocks[2]) is int:
        return blocks
    try:
        values = tuple(int(b) for b in blocks)
    except TypeError:
        raise InvalidTypeError(f"blocks must be a sequence of 3 ints, got {blocks!r}") from None
    if len(values) != 3:
        raise InvalidArgumentError(f"blocks must have 3 entries, got {len(values)}")
    return values


class CommandList(Handle):
    """Commands (:mod:`vkdispatch.base.commands`) recorded once and submitted any number of times.

    Hazards between the commands (a copy reading what a shader wrote, a shader writing what a
    copy reads) get the barriers they need when the list is recorded natively.

    Args:
        context: the context whose queues run the list (default: :func:`get_context`).

    Thread safety: every method may be called from any thread (the native list serialises
    them); a submission runs the commands recorded before it.
    """

    def __init__(self, context: Context | None = None):
        self.context = context if context is not None else get_context()
        self._native = self.context.native_module.NativeCommandList(self.context.native)
        self._recording: tuple = ()  # the commands as recorded natively, kept alive with it
        self._register(self.context.handles)

    def record(self, command) -> None:
        """Appends ``command`` (a :class:`~vkdispatch.base.commands.Dispatch`, ``BufferCopy``,
        ``BufferFill``, ``BufferUpdate`` or ``Barrier``)."""
        if not isinstance(command, Command):
            raise InvalidTypeError(f"command must be one of vkdispatch.base.commands "
                                   f"({', '.join(c.__name__ for c in Command)}), got "
                                   f"{type(command).__name__}")
        self._check_handles(command, f"{type(command).__name__} command")
        command._record_into(self._native)
        self._recording += (command,)

    def record_compute_plan(self, plan: ComputePlan, descriptor_set: DescriptorSet,
                            blocks) -> None:
        """Appends a dispatch of ``blocks`` workgroups of ``plan`` with ``descriptor_set``."""
        self.record(Dispatch(plan, descriptor_set, normalize_blocks(blocks)))

    def get_instance_size(self) -> int:
        """Bytes of push-constant data one replay (instance) consumes."""
        return self._native.instance_size

    def reset(self) -> None:
        """Forgets the recorded commands (submitted work is unaffected)."""
        self._native.reset()
        self._recording = ()

    def submit(self, data: bytes | None = None, queue_index: int = -2,
               instance_count: int | None = None, cuda_stream=None, *,
               uniform_buffer=None, uniform_data: bytes = b"") -> None:
        """Replays the commands ``instance_count`` times on the chosen queue(s).

        Args:
            data: push-constant bytes, ``instance_size`` per instance, instance-major.
            queue_index: -2 every queue, -1 the least busy queue, or one queue index.
            instance_count: replays; inferred from ``data`` when omitted.
        """
        if cuda_stream is not None:
            raise InvalidArgumentError("cuda_stream needs the CUDA backend (not in this build)")
        size = self.get_instance_size()
        if data is None and instance_count is None:
            raise InvalidArgumentError("Data or instance count must be provided!")
        data = data or b""
        if instance_count is None:
            if size == 0:
                instance_count = 1
            elif len(data) % size:
                raise InvalidArgumentError("Data bytes length must be a multiple of the instance "
                                           f"size ({size}), got {len(data)}")
            else:
                instance_count = max(1, len(data) // size)
        if size and size * instance_count != len(data):
            raise InvalidArgumentError(f"Data length must be the product of the instance size "
                                       f"({size}) and instance count ({instance_count}), got "
                                       f"{len(data)}")
        self._submit_unchecked(bytes(data), instance_count, queue_index, uniform_buffer,
                               bytes(uniform_data))

    # -- for the command graph above: no re-checking of what it built itself --------------------

    def _check_handles(self, command, what: str) -> None:
        """Raises unless every handle ``command`` uses is alive and of this list's context."""
        for handle in command.handles:
            if getattr(handle, "destroyed", False):
                raise handle.unusable_error(f"{what}: a {type(handle).__name__} it uses")
            owner = getattr(handle, "context", self.context)
            if owner is not self.context:
                raise InvalidArgumentError(f"{what}: a {type(handle).__name__} it uses belongs "
                                           "to another context than the command list")

    def _replace_recording(self, commands: tuple) -> None:
        """Makes the native recording ``commands``, unless it already is. (Equal tuples hold
        commands of equal types: the command types differ in arity or in their first field's
        kind, so no two of different types compare equal.)"""
        if commands != self._recording:
            self._native.reset()
            self._recording = ()
            for command in commands:
                command._record_into(self._native)
            self._recording = commands

    def _submit_unchecked(self, pc: bytes, instance_count: int, queue_index: int,
                          uniform_buffer, uniform_data: bytes) -> None:
        recording = profile.recording()
        start = time.perf_counter_ns() if recording is not None else 0
        self._native.submit(pc, instance_count, queue_index,
                            None if uniform_buffer is None else uniform_buffer._native,
                            uniform_data)
        if recording is not None:
            profile.host_span(recording, "submit", start)

    def _release(self) -> None:
        self._recording = ()
        self._native.close()
