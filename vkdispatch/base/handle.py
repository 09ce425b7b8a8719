"""Lifetime of objects that own native resources (buffers, images, plans, ...)."""
from __future__ import annotations

import threading
import weakref

__all__ = ["Handle", "HandleRegistry"]


class HandleRegistry:
    """The live handles of one context, held weakly, so the context can free them all first."""

    def __init__(self) -> None:
        # Re-entrant: garbage collection may run a finalizer while the lock is held.
        self._lock = threading.RLock()
        self._live: weakref.WeakSet[Handle] = weakref.WeakSet()

    def add(self, handle: Handle) -> None:
        with self._lock:
            self._live.add(handle)

    def discard(self, handle: Handle) -> None:
        with self._lock:
            self._live.discard(handle)

    def snapshot(self) -> list[Handle]:
        with self._lock:
            return list(self._live)

    def __len__(self) -> int:
        with self._lock:
            return len(self._live)


class Handle:
    """Base class of objects owning native resources.

    ``destroy()`` is idempotent and also runs at garbage collection; it never blocks on the GPU
    (the native side frees memory once the device has finished with it).
    """

    _destroyed = True  # until a subclass finishes construction

    def _register(self, registry: HandleRegistry) -> None:
        self._registry = registry
        self._destroyed = False
        registry.add(self)

    def _destroy(self) -> None:
        """Releases the native resources (subclasses)."""

    def destroy(self) -> None:
        """Releases the native resources now (idempotent)."""
        if self._destroyed:
            return
        self._destroyed = True
        self._registry.discard(self)
        self._destroy()

    @property
    def destroyed(self) -> bool:
        """Whether :meth:`destroy` has run."""
        return self._destroyed

    def __del__(self) -> None:
        # The registry holds the handle weakly and forgets it by itself; a finalizer must not
        # take its lock (it may run from inside the registry, when an add triggers the GC).
        if self._destroyed:
            return
        self._destroyed = True
        try:
            self._destroy()
        except Exception:  # interpreter shutdown: modules may already be torn down
            pass
