"""GLSL -> SPIR-V compilation with two caches: in-process and on disk.

The disk cache lives in ``$XDG_CACHE_HOME/vkdispatch/spirv`` (``~/.cache`` by default), keyed
by a hash of the source, the compile options and the compiler version; set
``VKDISPATCH_CACHE=0`` to disable it. Files are written atomically, so concurrent processes
never read a partial entry.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from pathlib import Path

from vkdispatch.errors import ShaderBuildError

__all__ = ["cache_directory", "disk_cache_enabled", "compile_glsl", "numbered"]

OPTIMIZATION = 0  # the driver optimises SPIR-V again; skipping glslang's pass halves compile time


def cache_directory() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "vkdispatch"


def disk_cache_enabled() -> bool:
    return os.environ.get("VKDISPATCH_CACHE", "1") != "0"


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


def _read_disk(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if len(data) >= 20 and len(data) % 4 == 0 else None


def _write_disk(path: Path, spirv: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
            handle.write(spirv)
        os.replace(handle.name, path)
    except OSError:
        pass  # an unwritable cache only costs a recompilation next time


def compile_glsl(native, source: str, name: str) -> bytes:
    """SPIR-V of ``source``; raises ShaderBuildError with the log and numbered source."""
    key = _key(source, native.compiler_version())
    with _MemoryCache.lock:
        cached = _MemoryCache.entries.get(key)
    if cached is not None:
        return cached
    path = cache_directory() / "spirv" / f"{key}.spv"
    spirv = _read_disk(path) if disk_cache_enabled() else None
    if spirv is None:
        ok, spirv, log = native.compile_glsl(source, name, OPTIMIZATION)
        if not ok:
            raise ShaderBuildError(f"Failed to build shader '{name}':\n{log.rstrip()}\n\n"
                                   f"Source:\n{numbered(source)}", shader_source=source,
                                   compiler_log=log)
        if disk_cache_enabled():
            _write_disk(path, spirv)
    with _MemoryCache.lock:
        _MemoryCache.entries[key] = spirv
    return spirv
