"""Where a shader call records its dispatch.

The shader layer defines the interface it records into (:class:`DispatchTarget`) and asks a
provider for the default target; the execution pipeline above implements the interface
(``CommandGraph``) and installs the provider (the thread's global graph), so this layer never
imports the one above it.
"""
from __future__ import annotations

import abc
from typing import Callable

from vkdispatch.errors import InvalidStateError

__all__ = ["DispatchTarget", "default_target", "set_default_target_provider"]


class DispatchTarget(abc.ABC):
    """Receives the dispatches of shader calls (``graph=`` of a call must be one).

    Attributes:
        context: the Context whose devices run the dispatches (its limits bound the launch).
    """

    @abc.abstractmethod
    def record_dispatch(self, plan, shader_description, blocks, buffers: tuple,
                        bindings: tuple, uniform: bytes, pc) -> None:
        """Takes one dispatch of ``plan``: workgroup counts ``blocks``, ``buffers[i]`` bound at
        ``bindings[i] = (binding, read, write)``, the packed uniform block, and the push
        constants as bytes or as a dict of member values (``bind_var`` names among them)."""


_provider: Callable[[], DispatchTarget] | None = None


def set_default_target_provider(provider: Callable[[], DispatchTarget]) -> None:
    """Installs the function giving the target of calls made without ``graph=``."""
    global _provider
    _provider = provider


def default_target() -> DispatchTarget:
    """The target of a call made without ``graph=``."""
    if _provider is None:
        raise InvalidStateError("no default dispatch target is installed: import vkdispatch "
                                "(its execution pipeline installs the per-thread graphs)")
    return _provider()
