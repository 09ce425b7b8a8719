"""Transfers that run in the background: ``Buffer.write_async`` and ``Buffer.read_async`` hand
the copy to a worker thread of the buffer's context and return a :class:`PendingTransfer`
at once, so the caller can submit GPU work (to other queues, or other buffers) while the copy
runs. The native copies release the GIL, so the worker runs beside the calling thread.
"""
from __future__ import annotations

import concurrent.futures
import threading
from typing import Any, Callable

__all__ = ["PendingTransfer", "TransferWorkers", "wait_all"]


class PendingTransfer:
    """A background upload or download. :meth:`wait` blocks until it finished and returns its
    result (the array of a read, None for a write), raising its error if it failed;
    :meth:`done` tells without blocking."""

    def __init__(self, future: concurrent.futures.Future, what: str):
        self._future = future
        self._what = what

    def wait(self, timeout: float | None = None) -> Any:
        """The result; raises TimeoutError when ``timeout`` seconds pass first."""
        return self._future.result(timeout)

    def done(self) -> bool:
        return self._future.done()

    def __repr__(self) -> str:
        return f"PendingTransfer({self._what}, {'done' if self.done() else 'running'})"


class TransferWorkers:
    """The worker threads of one context (as many as it has queues, at least two), made on
    first use; :meth:`close` waits for the transfers still running."""

    def __init__(self, count: int):
        self._count = max(2, count)
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def start(self, work: Callable[[], Any], what: str, running: set) -> PendingTransfer:
        """Runs ``work`` in a worker; its future stays in ``running`` until it is done (what
        the owner of the memory waits for before freeing it, see :func:`wait_all`)."""
        with self._lock:
            if self._executor is None:
                self._executor = concurrent.futures.ThreadPoolExecutor(
                    self._count, thread_name_prefix="vkdispatch-transfer")
            future = self._executor.submit(work)
        running.add(future)
        future.add_done_callback(running.discard)
        return PendingTransfer(future, what)

    def close(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


def wait_all(pending: set) -> None:
    """Waits for the futures in ``pending`` (errors stay with their PendingTransfer)."""
    concurrent.futures.wait(list(pending))
