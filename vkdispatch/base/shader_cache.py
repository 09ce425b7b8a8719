"""GLSL -> SPIR-V compilation with two caches: in-process and on disk.

On disk, entries live in ``spirv/`` of the cache directory (``disk_cache.py``), keyed by a
hash of the source, the compile options and the compiler version.
"""
from __future__ import annotations

import hashlib
import threading

from vkdispatch.base.disk_cache import disk_cache_enabled, entry_path, read_entry, write_entry
from vkdispatch.errors import ShaderBuildError

__all__ = ["compile_glsl", "numbered"]

OPTIMIZATION = 0  # the driver optimises SPIR-V again; skipping glslang's pass halves compile time


def numbered(source: str) -> str:
    """The source with 1-based line numbers, as compiler messages refer to them."""
    return "\n".join(f"{i:4d}: {line}" for i, line in enumerate(source.splitlines(), 1))


class _MemoryCache:
    lock = threading.Lock()
    entries: dict[str, bytes] = {}


def _key(source: str, compiler_version: str) -> str:
    digest = hashlib.sha256()
    for part in (compiler_version, f"opt{OPTIMIZATION}", source):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _read_spirv(path: str) -> bytes | None:
    data = read_entry(path)
    return data if data is not None and len(data) >= 20 and len(data) % 4 == 0 else None


def compile_glsl(native, source: str, name: str) -> bytes:
    """SPIR-V of ``source``; raises ShaderBuildError with the log and numbered source."""
    key = _key(source, native.compiler_version())
    with _MemoryCache.lock:
        cached = _MemoryCache.entries.get(key)
    if cached is not None:
        return cached
    path = entry_path("spirv", f"{key}.spv")
    spirv = _read_spirv(path) if disk_cache_enabled() else None
    if spirv is None:
        ok, spirv, log = native.compile_glsl(source, name, OPTIMIZATION)
        if not ok:
            raise ShaderBuildError(f"Failed to build shader '{name}':\n{log.rstrip()}\n\n"
                                   f"Source:\n{numbered(source)}", shader_source=source,
                                   compiler_log=log)
        if disk_cache_enabled():
            write_entry(path, spirv)
    with _MemoryCache.lock:
        _MemoryCache.entries[key] = spirv
    return spirv
