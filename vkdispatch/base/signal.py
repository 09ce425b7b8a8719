"""A point on one queue's timeline: "everything submitted to queue q up to value v"."""
from __future__ import annotations

__all__ = ["Signal"]


class Signal:
    """Completion marker of submitted work; :meth:`wait` blocks until the GPU passed it.

    Obtained from :meth:`vkdispatch.base.context.Context.signal`; waits release the GIL and
    can be interrupted with Ctrl-C.
    """

    def __init__(self, native_context, queue_index: int, value: int):
        self._native = native_context
        self.queue_index = queue_index
        self.value = value

    def try_wait(self) -> bool:
        """Whether the work has finished, without blocking."""
        return self._native is None or self._native.completed(self.queue_index, self.value)

    def wait(self) -> None:
        """Blocks until the work has finished on the GPU."""
        if self._native is not None:
            self._native.wait(self.queue_index, self.value)

    def __repr__(self) -> str:
        return f"Signal(queue={self.queue_index}, value={self.value})"
