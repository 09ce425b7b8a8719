"""Where a shader call records its dispatch.

The shader layer defines the interface it records into (:class:`DispatchTarget`) and the hook
that gives the default target (:data:`default_target`); the execution pipeline above implements
the interface (``CommandGraph``) and installs the hook (the thread's global graph) when it is
imported, which ``import vkdispatch`` always does. So this layer never imports the one above it.
"""
from __future__ import annotations

from typing import Callable

from vkdispatch.base.context import Context
from vkdispatch.errors import InvalidStateError

__all__ = ["DispatchTarget", "default_target", "set_default_target_provider"]


class DispatchTarget:
    """Receives the dispatches of shader calls (``graph=`` of a call must be one).

    An interface: subclasses set ``context`` and implement :meth:`record_dispatch` (shader calls)
    and :meth:`record_command` (everything else the GPU does). It is a plain
    class rather than an ``abc.ABC`` on purpose: every call with ``graph=`` checks
    ``isinstance(graph, DispatchTarget)``, which ABCMeta routes through a Python-level
    ``__instancecheck__`` (several times the cost of the C check a plain class gets).

    Attributes:
        context: the Context whose devices run the dispatches (its limits bound the launch).
    """

    context: Context

    def record_dispatch(self, plan, shader_description, blocks, buffers: tuple, bindings: tuple,
                        uniform: bytes, pc) -> None:
        """Takes one dispatch of ``plan``: workgroup counts ``blocks``, ``buffers[i]`` bound at
        ``bindings[i] = (binding, read, write)``, the packed uniform block, and the push
        constants as bytes or as a dict of member values (``bind_var`` names among them)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement record_dispatch")

    def record_command(self, command) -> None:
        """Takes any other command, in order with the dispatches: a value of
        :mod:`vkdispatch.base.commands` (buffer copy, fill or update, barrier)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement record_command")


def _no_default_target() -> DispatchTarget:
    raise InvalidStateError("no default dispatch target is installed: import vkdispatch "
                            "(its execution pipeline installs the per-thread graphs)")


default_target: Callable[[], DispatchTarget] = _no_default_target
"""Gives the target of a call made without ``graph=``. It is the installed provider itself (one
call on the hot path), so read it through this module (``dispatch_target.default_target()``):
:func:`set_default_target_provider` rebinds it and a name imported from here would go stale."""


def set_default_target_provider(provider: Callable[[], DispatchTarget]) -> None:
    """Installs the function giving the target of calls made without ``graph=``."""
    global default_target
    default_target = provider
