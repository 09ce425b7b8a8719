"""VkFFTNativePlan: a native VkFFT plan (kernels built on every device of the current context)
from a geometry in VkFFT's terms; vd.vkfft's VkFFTPlan builds on it.

The kernels VkFFT compiles for a plan (glslang, 0.1-1 s) are stored in the disk cache under a
key made of the geometry, VkFFT's version and each device's identity and driver, so the same
plan in a new process loads them instead. An entry carries a checksum: a damaged one is ignored,
never handed to VkFFT.
"""
from __future__ import annotations

import hashlib

from vkdispatch.base.context import get_context
from vkdispatch.base.disk_cache import disk_cache_enabled, entry_path, read_entry, write_entry
from vkdispatch.base.handle import Handle

__all__ = ["VkFFTNativePlan"]


def _verified(entry: bytes | None) -> bytes | None:
    """The binary of a cache entry (checksummed by the disk cache) if it is whole words."""
    return entry if entry and len(entry) % 4 == 0 else None


# Kernels saved by an earlier build that configured VkFFT otherwise must not load: raised
# whenever vkfft_application.cpp (describeTransform, ...) changes what VkFFT generates.
# 2: real transforms keep batch lines apart (disableMergeSequencesR2C).
CONFIGURATION_REVISION = 2


class VkFFTNativePlan(Handle):
    """A VkFFT plan built from ``geometry``: the keyword arguments of the native plan
    (``dimensions``, ``size`` and ``omitted`` in VkFFT's order, ``batches``,
    ``double_precision``, ``r2c``, ``normalize``, padding and convolution fields)."""

    def __init__(self, geometry: dict):
        self.context = get_context()
        self._geometry = dict(geometry)
        self._native = self._build(bool(geometry.get("keep_shader_code")))
        self._register(self.context.handles)

    def _cache_paths(self) -> list[str]:
        key = repr(sorted(self._geometry.items())).encode()
        version = self.context.native_module.vkfft_version()
        paths = []
        for info in self.context.device_infos:
            identity = b"%d|%d|%d|%d|%s|" % (version, CONFIGURATION_REVISION,
                                             info.driver_version, info.device_id,
                                             (info.uuid or b"").hex().encode())
            paths.append(entry_path("vkfft", hashlib.sha256(identity + key).hexdigest()))
        return paths

    def _build(self, keep_shader_code: bool):
        module = self.context.native_module
        # A plan printing its kernels must generate them, so it never loads them from disk.
        cached = disk_cache_enabled() and not keep_shader_code
        paths = self._cache_paths() if cached else []
        binaries = [_verified(read_entry(path)) for path in paths]
        if any(blob is None for blob in binaries):
            binaries = []
        native = module.NativeVkfftPlan(self.context.native, binaries=binaries,
                                        cache=self.context.pipeline_cache(), **self._geometry)
        if cached and not binaries:
            for path, blob in zip(paths, native.binaries()):
                write_entry(path, blob)
        return native

    @property
    def buffer_bytes(self) -> int:
        """Bytes of the buffer a run reads and writes."""
        return self._native.buffer_bytes

    @property
    def kernel_bytes(self) -> int:
        """Bytes of the kernel a convolution run multiplies by (0 for other plans)."""
        return self._native.kernel_bytes

    def _release(self) -> None:
        self._native.close()
