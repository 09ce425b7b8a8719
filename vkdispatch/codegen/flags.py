"""Options of a traced shader."""
from __future__ import annotations

import enum

__all__ = ["ShaderFlags"]


class ShaderFlags(enum.IntFlag):
    """Options of a traced shader."""

    NONE = 0
    NO_SUBGROUP_OPS = 1  #: omit the subgroup extension line
    NO_PRINTF = 2  #: omit the debug-printf extension line
    NO_EXEC_BOUNDS = 4  #: no ``exec_count`` uniform and no bounds guard
