"""DescriptorSetCache: a graph's descriptor sets, reused when the same buffers (and samplers)
are bound.

Entries hold the bound buffers and samplers weakly: when one is garbage collected every set
bound to it is forgotten, so the cache never keeps user memory alive and a recycled ``id()`` never finds a
set of a dead buffer. A forgotten set is freed once no command list refers to it any more.
"""
from __future__ import annotations

import weakref

from vkdispatch.base.sampler import Sampler

__all__ = ["DescriptorSetCache", "CachedDescriptorSet"]

_DEFAULT_LIMIT = 512


class CachedDescriptorSet:
    """A set made by the cache: what a :class:`~vkdispatch.base.commands.Dispatch` binds. It
    holds no buffer (the cache's entries hold them weakly)."""

    __slots__ = ("_native",)

    def __init__(self, native) -> None:
        self._native = native


class DescriptorSetCache:
    """Descriptor sets keyed by plan, uniform range, binding layout and bound buffers."""

    def __init__(self, limit: int = _DEFAULT_LIMIT):
        self._limit = limit
        self._sets: dict[tuple, tuple[list, object]] = {}

    def __len__(self) -> int:
        return len(self._sets)

    def lookup(self, plan, uniform_buffer, uniform_offset: int, uniform_size: int,
               bindings: tuple, buffers: tuple):
        """The set of ``plan`` binding ``uniform_size`` bytes of ``uniform_buffer`` from
        ``uniform_offset`` (none when 0) and ``buffers[i]`` at ``bindings[i] = (binding, read,
        write)`` (a :class:`Sampler` binds its image); made and bound on the first lookup."""
        key = (plan, uniform_offset, uniform_size, bindings, tuple(map(id, buffers)))
        entry = self._sets.get(key)
        if entry is not None:
            return entry[1]
        return self._create(key, plan, uniform_buffer, uniform_offset, uniform_size, bindings,
                            buffers)

    def _create(self, key, plan, uniform_buffer, uniform_offset, uniform_size, bindings,
                buffers):
        native = plan.context.native_module.NativeDescriptorSet(plan._native)
        if uniform_size:
            native.bind_buffer(0, uniform_buffer._native, uniform_offset, uniform_size, True,
                               True, False)
        for (binding, read, write), resource in zip(bindings, buffers):
            if type(resource) is Sampler:
                native.bind_image(binding, resource.image._native, resource._native)
            else:
                native.bind_buffer(binding, resource._native, 0, 0, False, read, write)
        sets = self._sets
        if len(sets) >= self._limit:
            sets.pop(next(iter(sets)), None)  # the oldest; a recording using it keeps it alive
        # The callback runs while the buffer is being freed, before its id can be reused.
        refs = [weakref.ref(buffer, lambda _ref, key=key: sets.pop(key, None))
                for buffer in buffers]
        cached = CachedDescriptorSet(native)
        sets[key] = (refs, cached)
        return cached

    def clear(self) -> None:
        """Forgets every set (they are freed once no command list refers to them)."""
        self._sets.clear()
