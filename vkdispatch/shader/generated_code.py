"""Python expressions generated when a shader is built (block packers, launch expressions),
compiled once per distinct text and kept like compiled SPIR-V: in the process, so kernels with
the same parameter shapes share the code object, and in ``python/`` of the on-disk cache
(``base/disk_cache.py``), so a new process loads the code instead of running Python's compiler
(0.2 ms for the first kernel of a process on an H100 host: the compiler's first use costs more).

An entry is the marshalled ``(source, code)`` pair, keyed by a hash of the source and the
interpreter's bytecode version, and used only when its source equals the one asked for.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import marshal
from types import CodeType
from typing import Any

from vkdispatch.base.disk_cache import disk_cache_enabled, entry_path, read_entry, write_entry

__all__ = ["evaluate"]

_FILENAME = "<vkdispatch generated>"


def _entry_path(source: str) -> str:
    digest = hashlib.sha256(importlib.util.MAGIC_NUMBER + b"\0" + source.encode())
    return entry_path("python", f"{digest.hexdigest()}.marshal")


def _load(path: str, source: str) -> CodeType | None:
    data = read_entry(path)
    if data is None:
        return None
    try:
        stored_source, code = marshal.loads(data)
    except (EOFError, ValueError, TypeError):  # a damaged or foreign entry
        return None
    return code if stored_source == source and isinstance(code, CodeType) else None


@functools.lru_cache(maxsize=1024)
def _compiled(source: str) -> CodeType:
    if not disk_cache_enabled():
        return compile(source, _FILENAME, "eval")
    path = _entry_path(source)
    code = _load(path, source)
    if code is None:
        code = compile(source, _FILENAME, "eval")
        write_entry(path, marshal.dumps((source, code)))
    return code


def evaluate(source: str, namespace: dict[str, Any]) -> Any:
    """``eval(source, namespace)`` with the compiled code reused; raises SyntaxError as eval."""
    return eval(_compiled(source), namespace)  # noqa: S307 - see the callers for what enters
