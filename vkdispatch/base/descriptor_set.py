"""DescriptorSet: which buffers and sampled images a ComputePlan's bindings point at (one set
per queue)."""
from __future__ import annotations

from vkdispatch.base.buffer import Buffer
from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.base.handle import Handle
from vkdispatch.base.sampler import Sampler
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["DescriptorSet"]


class DescriptorSet(Handle):
    """Bindings of one :class:`ComputePlan`; each queue's set points at its own replicas."""

    def __init__(self, compute_plan: ComputePlan):
        if not isinstance(compute_plan, ComputePlan):
            raise InvalidTypeError(f"compute_plan must be a ComputePlan, got "
                                   f"{type(compute_plan).__name__}")
        self.plan = compute_plan
        self.context = compute_plan.context
        self._native = self.context.native_module.NativeDescriptorSet(compute_plan._native)
        self.buffers: dict[int, Buffer] = {}
        self.samplers: dict[int, Sampler] = {}
        self._register(self.context.handles)

    def bind_buffer(self, buffer: Buffer, binding: int, offset: int = 0, range: int = 0,  # noqa: A002
                    uniform: bool = False, read_access: bool = True,
                    write_access: bool = True) -> None:
        """Points ``binding`` at ``buffer`` (bytes ``[offset, offset+range)``, 0 = to the end)."""
        if not isinstance(buffer, Buffer):
            raise InvalidTypeError(f"buffer must be a vd.Buffer, got {type(buffer).__name__}")
        if buffer.destroyed:
            raise InvalidArgumentError("buffer was destroyed and cannot be bound")
        self._native.bind_buffer(binding, buffer._native, offset, range, uniform, read_access,
                                 write_access)
        self.buffers[binding] = buffer

    def bind_sampler(self, sampler, binding: int, read_access: bool = True,
                     write_access: bool = True) -> None:
        """Points sampler ``binding`` at ``sampler``'s image (shaders only read images, so the
        access flags change nothing)."""
        if not isinstance(sampler, Sampler):
            raise InvalidTypeError(f"sampler must be a vd.Sampler (image.sample()), got "
                                   f"{type(sampler).__name__}")
        if sampler.destroyed or sampler.image.destroyed:
            raise InvalidArgumentError("sampler (or its image) was destroyed and cannot be bound")
        self._native.bind_image(binding, sampler.image._native, sampler._native)
        self.samplers[binding] = sampler

    def _release(self) -> None:
        self._native.close()
