"""Lifetime of objects that own native resources (buffers, images, plans, ...)."""
from __future__ import annotations

import itertools
import threading
import weakref

from vkdispatch.errors import InvalidArgumentError, InvalidStateError, VkDispatchError

__all__ = ["Handle", "HandleRegistry", "new_identity"]

# itertools.count is advanced under the GIL in one C call, so concurrent registrations never
# get the same number; numbers are never reused, unlike id(), which a new object may inherit.
new_identity = itertools.count(1).__next__
"""A new int identity: the ``_handle`` of a Handle or a Context (unique in the process)."""


class HandleRegistry:
    """The live handles of one context, held weakly, so the context can free them all first."""

    def __init__(self) -> None:
        # Re-entrant: garbage collection may run a finalizer while the lock is held.
        self._lock = threading.RLock()
        self._live: weakref.WeakSet[Handle] = weakref.WeakSet()
        self.closed = False

    def add(self, handle: Handle) -> None:
        with self._lock:
            if self.closed:  # a creation racing with Context.close() in another thread
                raise InvalidStateError(f"cannot create a {type(handle).__name__}: its context "
                                        "was closed")
            self._live.add(handle)

    def discard(self, handle: Handle) -> None:
        with self._lock:
            self._live.discard(handle)

    def snapshot(self) -> list[Handle]:
        with self._lock:
            return list(self._live)

    def close(self) -> list[Handle]:
        """Refuses further handles; returns the live ones (for the context to destroy)."""
        with self._lock:
            self.closed = True
            return list(self._live)

    def __len__(self) -> int:
        with self._lock:
            return len(self._live)


class Handle:
    """Base class of objects owning native resources.

    ``destroy()`` is idempotent and also runs at garbage collection; it never blocks on the GPU
    (the native side frees memory once the device has finished with it). Closing the context
    destroys every handle it still has.

    Attributes:
        _handle: an int identifying the object, stable for its life and never reused in the
            process (user code keys caches with it, as with vkdispatch 0.1.0).
    """

    _destroyed = True  # until a subclass finishes construction

    def _register(self, registry: HandleRegistry) -> None:
        self._registry = registry
        self._handle = new_identity()
        self._destroyed = False
        try:
            registry.add(self)
        except InvalidStateError:
            self.destroy()  # free the native object made for a context closed meanwhile
            raise

    def _release(self) -> None:
        """Releases the native resources (subclasses)."""

    def _destroy(self) -> None:
        """Releases the native resources now and marks the object destroyed: what
        :meth:`destroy` runs, and vkdispatch 0.1.0's hook of the same name, which scripts call
        directly (later uses then raise the documented error, not the native one)."""
        if self._destroyed:
            return
        self._destroyed = True
        self._release()

    def destroy(self) -> None:
        """Releases the native resources now (idempotent)."""
        if self._destroyed:
            return
        self._registry.discard(self)
        self._destroy()

    @property
    def destroyed(self) -> bool:
        """Whether :meth:`destroy` has run (also true once the context was closed)."""
        return self._destroyed

    def unusable_error(self, what: str) -> VkDispatchError:
        """The error to raise when a destroyed handle is used: ``what`` (e.g. "this buffer")
        belongs to a closed context (InvalidStateError), or was destroyed (ValueError)."""
        registry = getattr(self, "_registry", None)  # None: its construction failed
        if registry is not None and registry.closed:
            return InvalidStateError(f"{what} belongs to a context that was closed (Context."
                                     "close() or destroy_context()) and can no longer be used; "
                                     "create it again in an open context")
        return InvalidArgumentError(f"{what} was destroyed and can no longer be used")

    def __del__(self) -> None:
        # The registry holds the handle weakly and forgets it by itself; a finalizer must not
        # take its lock (it may run from inside the registry, when an add triggers the GC).
        try:
            self._destroy()
        except Exception:  # interpreter shutdown: modules may already be torn down
            pass
