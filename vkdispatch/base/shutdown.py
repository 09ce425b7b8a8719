"""What happens to the contexts still open when the interpreter exits.

Each is closed (its pipeline cache saved, its objects freed) once its queues finish, but the
exit waits for them at most :data:`EXIT_WAIT_SECONDS`, and not at all after a Ctrl-C ended the
script or during a second Ctrl-C: a context whose work would take longer is abandoned to the end
of the process, which stops that work. Work nobody waited for has no result anybody can read,
and a loop that kept a queue full (``graph.submit(instance_count=50)`` a thousand times queues
minutes of kernels) would otherwise keep the process alive long after Ctrl-C.

A CPU device (lavapipe) runs its queues in threads of this process, compiling shaders as they
run: left running while the process tears down its libraries, they crashed it (a segfault or
an LLVM abort after the script had finished). So the exit waits for all of a CPU device's work
unless Ctrl-C or ``VKDISPATCH_EXIT_WAIT_S`` cuts the wait short, and a process that abandons
such work ends at once (``os._exit``, status 130 after Ctrl-C, else 1), skipping the rest of
the interpreter's teardown.
"""
from __future__ import annotations

import atexit
import os
import sys

from vkdispatch.base.context import open_contexts
from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.base.environment import int_from_environment
from vkdispatch.base.log import logger

__all__ = ["EXIT_WAIT_SECONDS", "close_every_context"]

EXIT_WAIT_SECONDS = 2
"""How long the exit waits for a GPU context's queued work (a CPU device's: all of it;
``VKDISPATCH_EXIT_WAIT_S`` overrides both)."""


def _exit_wait_seconds(cpu: bool) -> float:
    configured = int_from_environment("VKDISPATCH_EXIT_WAIT_S", 0, 24 * 3600)
    if configured is not None:
        return configured
    return float("inf") if cpu else EXIT_WAIT_SECONDS


def _end_process_now(status: int) -> None:
    """Ends the process without the rest of its teardown (see the module text)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # closed or replaced streams
            pass
    os._exit(status)


def close_every_context() -> None:
    """Closes each open context whose queues finish within the exit's wait; abandons the rest."""
    interrupted = getattr(sys, "last_type", None) is KeyboardInterrupt  # ended with Ctrl-C
    abandoned_cpu_work = False
    for context in open_contexts():
        cpu = any(is_cpu_device(info) for info in context.device_infos)
        try:
            finished = context.finishes_within(0.0 if interrupted else _exit_wait_seconds(cpu))
        except KeyboardInterrupt:  # Ctrl-C again while the exit waits: stop waiting
            finished, interrupted = False, True
        if finished:
            context.close()
            continue
        logger.warning("exiting with work still queued on %r: not waiting for it (%s; "
                       "VKDISPATCH_EXIT_WAIT_S sets the wait)", context,
                       "the process ends now" if cpu else "it is stopped with the process")
        context.abandon()
        abandoned_cpu_work = abandoned_cpu_work or cpu
    if abandoned_cpu_work:
        _end_process_now(130 if interrupted else 1)


atexit.register(close_every_context)
