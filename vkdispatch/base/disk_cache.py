"""The on-disk cache shared by compiled SPIR-V, generated Python code, VkFFT kernels and the
drivers' pipeline caches: ``$XDG_CACHE_HOME/vkdispatch`` (``~/.cache/vkdispatch`` by default);
``VKDISPATCH_CACHE=0`` disables it.

Entries are written atomically (a temporary file renamed into place), so concurrent processes
never read a partial entry, and a cache that cannot be read or written only costs the work it
would have saved. Each entry starts with a format tag and the SHA-256 of its payload: a
truncated, garbled or foreign file is discarded (removed, and logged) and read as a miss, so
its bytes never reach ``marshal.loads`` or a driver (a flipped byte in marshalled code could
crash the interpreter; a truncated SPIR-V module made the driver fail). Paths are plain strings: a new kernel looks up two entries, and building
``pathlib`` paths for them cost more than reading them.

The cache stays under a size bound (:func:`cache_size_limit`: 256 MiB unless
``VKDISPATCH_CACHE_SIZE`` or :func:`set_cache_size_limit` says otherwise). Each read or write
stamps the entry's modification time with the time of use; when a write takes the cache over
the bound, the least recently used files go until it is at 7/8 of it, so the next trim is
``bound / 8`` bytes of writes away. Processes sharing the directory each trim it; a file another
process removed between the listing and its use is skipped (for a reader it is a miss).
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import tempfile
import threading
import time

from vkdispatch.errors import InvalidArgumentError

__all__ = ["cache_directory", "disk_cache_enabled", "entry_path", "read_entry", "write_entry",
           "cache_size_limit", "set_cache_size_limit", "DEFAULT_CACHE_SIZE_LIMIT",
           "ENTRY_OVERHEAD"]

DEFAULT_CACHE_SIZE_LIMIT = 256 * 1024 * 1024
# The entry format: this tag, the payload's SHA-256, the payload. The keys of the entries carry
# the versions of what produced them (compiler, interpreter bytecode, VkFFT, driver).
_TAG = b"vkdcache1\n"
_DIGEST = hashlib.sha256().digest_size
_HEADER = len(_TAG) + _DIGEST
ENTRY_OVERHEAD = _HEADER  # bytes an entry's file holds beyond its payload
_logger = logging.getLogger("vkdispatch")
_SIZE_VARIABLE = "VKDISPATCH_CACHE_SIZE"
_SIZE_TEXT = re.compile(r"\s*(\d+)\s*([kmg]?)(?:i?b)?\s*", re.IGNORECASE)
_UNIT_BYTES = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}


def cache_directory() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "vkdispatch")


def disk_cache_enabled() -> bool:
    return os.environ.get("VKDISPATCH_CACHE", "1") != "0"


def entry_path(kind: str, name: str) -> str:
    """Where the entry ``name`` of the cache part ``kind`` (a folder) lives."""
    return os.path.join(cache_directory(), kind, name)


def read_entry(path: str) -> bytes | None:
    """The payload of the entry at ``path``; None when it is missing, unreadable or damaged
    (a damaged one is removed)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    payload = data[_HEADER:]
    if not data.startswith(_TAG) or hashlib.sha256(payload).digest() != \
            data[len(_TAG):_HEADER]:
        _logger.info("discarded the damaged cache entry %s (it is made again)", path)
        with contextlib.suppress(OSError):
            os.unlink(path)
        return None
    _stamp(path)
    return payload


def write_entry(path: str, data: bytes) -> None:
    """Stores ``data`` at ``path``, replacing any entry there, then keeps the cache under its
    bound; failures to write are ignored."""
    temporary = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=os.path.dirname(path), delete=False) as handle:
            temporary = handle.name
            handle.write(_TAG + hashlib.sha256(data).digest())
            handle.write(data)
        os.replace(temporary, path)
    except OSError:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        return
    _stamp(path)
    _budget.written(ENTRY_OVERHEAD + len(data))


def _stamp(path: str) -> None:
    # Nanoseconds from Python: the kernel stamps writes with a clock that ticks every few ms.
    now = time.time_ns()
    with contextlib.suppress(OSError):  # gone already, or a read-only cache
        os.utime(path, ns=(now, now))


def _parse_size(text: str) -> int:
    match = _SIZE_TEXT.fullmatch(text)
    size = int(match.group(1)) * _UNIT_BYTES[match.group(2).lower()] if match else 0
    if size <= 0:
        raise InvalidArgumentError(f"{_SIZE_VARIABLE} must be a positive size in bytes, optionally "
                                   f"with K, M or G (e.g. 512M), got {text!r}")
    return size


def cache_size_limit() -> int:
    """The cache's bound in bytes: the one :func:`set_cache_size_limit` set, else
    ``VKDISPATCH_CACHE_SIZE`` (bytes, or with a K, M or G suffix, e.g. ``1G``), else 256 MiB.

    Raises:
        InvalidArgumentError: ``VKDISPATCH_CACHE_SIZE`` is not a positive size.
    """
    if _budget.limit is not None:
        return _budget.limit
    text = os.environ.get(_SIZE_VARIABLE, "")
    return _parse_size(text) if text else DEFAULT_CACHE_SIZE_LIMIT


def set_cache_size_limit(size: int | None) -> None:
    """Bounds the on-disk cache to ``size`` bytes (``None``: back to ``VKDISPATCH_CACHE_SIZE`` or
    the default) for this process, and trims it to the new bound now. Thread-safe.

    Raises:
        InvalidArgumentError: ``size`` is not a positive int.
    """
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size <= 0):
        raise InvalidArgumentError(f"size must be a positive number of bytes or None, got "
                                   f"{size!r}")
    _budget.limit = size
    if disk_cache_enabled():
        _budget.trim()


def _listing(folder: str) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _used_files(directory: str) -> list[tuple[int, int, str]]:
    """``(last use in ns, bytes, path)`` of the files at the top of the cache and one folder
    down (where every part keeps its entries)."""
    files = []
    for entry in _listing(directory):
        inner = _listing(entry.path) if entry.is_dir(follow_symlinks=False) else [entry]
        for item in inner:
            try:
                if not item.is_file(follow_symlinks=False):
                    continue
                info = item.stat(follow_symlinks=False)
            except OSError:  # removed by another process since the listing
                continue
            files.append((info.st_mtime_ns, info.st_size, item.path))
    return files


def _trim(directory: str, limit: int) -> int:
    """Removes the least recently used files while the cache is over ``limit``, down to 7/8 of
    it; returns the bytes left."""
    files = sorted(_used_files(directory))
    total = sum(size for _, size, _ in files)
    if total <= limit:
        return total
    for _, size, path in files:
        if total <= limit - limit // 8:
            break
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass  # another process trimmed it first
        except OSError:
            continue
        total -= size
    return total


class _Budget:
    """What this process knows of the cache's size: the bytes its last listing found plus those it
    wrote since. Other processes' writes show at the next listing, which comes when this estimate
    passes the bound or after ``bound / 8`` bytes of writes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.limit: int | None = None  # set_cache_size_limit's
        self.directory: str | None = None
        self.estimate = 0
        self.since_listing = 0

    def written(self, size: int) -> None:
        limit = cache_size_limit()
        with self.lock:
            self.estimate += size
            self.since_listing += size
            if (self.directory != cache_directory() or self.estimate > limit
                    or self.since_listing > limit // 8):
                self._relist(limit)

    def trim(self) -> None:
        limit = cache_size_limit()
        with self.lock:
            self._relist(limit)

    def _relist(self, limit: int) -> None:
        self.directory = cache_directory()
        self.estimate = _trim(self.directory, limit)
        self.since_listing = 0


_budget = _Budget()
