"""CommandList: recorded dispatches replayed on submit (the base of CommandGraph)."""
from __future__ import annotations

from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.base.context import get_context
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
    """Dispatches recorded once and submitted any number of times.

    Thread safety: record from one thread at a time; submissions may come from any thread.
    """

    def __init__(self):
        self.context = get_context()
        self._native = self.context.native_module.NativeCommandList(self.context.native)
        self._register(self.context.handles)

    def record_compute_plan(self, plan: ComputePlan, descriptor_set: DescriptorSet,
                            blocks) -> None:
        """Appends a dispatch of ``blocks`` workgroups of ``plan`` with ``descriptor_set``."""
        x, y, z = normalize_blocks(blocks)
        self._native.record(plan._native, descriptor_set._native, x, y, z)

    def get_instance_size(self) -> int:
        """Bytes of push-constant data one replay (instance) consumes."""
        return self._native.instance_size

    def reset(self) -> None:
        """Forgets the recorded dispatches (submitted work is unaffected)."""
        self._native.reset()

    def submit(self, data: bytes | None = None, queue_index: int = -2,
               instance_count: int | None = None, cuda_stream=None, *,
               uniform_buffer=None, uniform_data: bytes = b"") -> None:
        """Replays the dispatches ``instance_count`` times on the chosen queue(s).

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
        native_uniform = None if uniform_buffer is None else uniform_buffer._native
        self._native.submit(bytes(data), instance_count, queue_index, native_uniform,
                            bytes(uniform_data))

    def _destroy(self) -> None:
        self._native.close()
