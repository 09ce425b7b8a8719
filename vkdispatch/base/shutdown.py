"""What happens to the contexts still open when the interpreter exits.

Each is closed (its pipeline cache saved, its objects freed) once its queues finish, but the
exit waits for them at most :data:`EXIT_WAIT_SECONDS`, and not at all after a Ctrl-C ended the
script or during a second Ctrl-C: a context whose work would take longer is abandoned to the end
of the process, which stops that work. Work nobody waited for has no result anybody can read,
and a loop that kept a queue full (``graph.submit(instance_count=50)`` a thousand times queues
minutes of kernels) would otherwise keep the process alive long after Ctrl-C.
"""
from __future__ import annotations

import atexit
import sys

from vkdispatch.base.context import open_contexts
from vkdispatch.base.environment import int_from_environment
from vkdispatch.base.log import logger

__all__ = ["EXIT_WAIT_SECONDS", "close_every_context"]

EXIT_WAIT_SECONDS = 2
"""How long the exit waits for a context's queued work (``VKDISPATCH_EXIT_WAIT_S`` overrides)."""


def _exit_wait_seconds() -> float:
    if getattr(sys, "last_type", None) is KeyboardInterrupt:  # the script ended with Ctrl-C
        return 0.0
    configured = int_from_environment("VKDISPATCH_EXIT_WAIT_S", 0, 24 * 3600)
    return EXIT_WAIT_SECONDS if configured is None else configured


def close_every_context() -> None:
    """Closes each open context whose queues finish within the exit's wait; abandons the rest."""
    wait = _exit_wait_seconds()
    for context in open_contexts():
        try:
            finished = context.finishes_within(wait)
        except KeyboardInterrupt:  # Ctrl-C again while the exit waits: stop waiting
            finished, wait = False, 0.0
        if finished:
            context.close()
        else:
            logger.warning("exiting with work still queued on %r: not waiting for it (it is "
                           "stopped with the process; VKDISPATCH_EXIT_WAIT_S sets the wait)",
                           context)
            context.abandon()


atexit.register(close_every_context)
