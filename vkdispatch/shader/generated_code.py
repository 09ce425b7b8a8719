"""Python expressions generated when a shader is built (block packers, launch expressions),
compiled once per distinct text: kernels with the same parameter shapes share the code object,
so only the first of them pays Python's compiler (tens of microseconds per expression)."""
from __future__ import annotations

import functools
from types import CodeType
from typing import Any

__all__ = ["evaluate"]


@functools.lru_cache(maxsize=1024)
def _compiled(source: str) -> CodeType:
    return compile(source, "<vkdispatch generated>", "eval")


def evaluate(source: str, namespace: dict[str, Any]) -> Any:
    """``eval(source, namespace)`` with the compiled code reused; raises SyntaxError as eval."""
    return eval(_compiled(source), namespace)  # noqa: S307 - see the callers for what enters
