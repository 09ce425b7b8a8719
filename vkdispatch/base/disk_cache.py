"""The on-disk cache shared by compiled SPIR-V, generated Python code and the drivers' pipeline
caches: ``$XDG_CACHE_HOME/vkdispatch`` (``~/.cache/vkdispatch`` by default);
``VKDISPATCH_CACHE=0`` disables it.

Entries are written atomically (a temporary file renamed into place), so concurrent processes
never read a partial entry, and a cache that cannot be read or written only costs the work it
would have saved. Paths are plain strings: a new kernel looks up two entries, and building
``pathlib`` paths for them cost more than reading them.
"""
from __future__ import annotations

import contextlib
import os
import tempfile

__all__ = ["cache_directory", "disk_cache_enabled", "entry_path", "read_entry", "write_entry"]


def cache_directory() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "vkdispatch")


def disk_cache_enabled() -> bool:
    return os.environ.get("VKDISPATCH_CACHE", "1") != "0"


def entry_path(kind: str, name: str) -> str:
    """Where the entry ``name`` of the cache part ``kind`` (a folder) lives."""
    return os.path.join(cache_directory(), kind, name)


def read_entry(path: str) -> bytes | None:
    """The bytes of the entry at ``path``; None when it is missing or unreadable."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def write_entry(path: str, data: bytes) -> None:
    """Stores ``data`` at ``path``, replacing any entry there; failures are ignored."""
    temporary = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=os.path.dirname(path), delete=False) as handle:
            temporary = handle.name
            handle.write(data)
        os.replace(temporary, path)
    except OSError:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
