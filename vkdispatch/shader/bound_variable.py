"""BoundVariableName: a ``Var`` argument bound by name, its value set later with ``set_var``."""
from __future__ import annotations

import dataclasses

__all__ = ["BoundVariableName"]


@dataclasses.dataclass(frozen=True)
class BoundVariableName:
    """What ``graph.bind_var(name)`` returns: a placeholder value for a ``Var`` argument."""

    name: str

    def __call__(self, *_args):
        # Callable like vkdispatch 0.1.0's bind_var result, so code testing callable() still works.
        return self.name
