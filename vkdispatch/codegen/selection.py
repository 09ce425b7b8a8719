"""Which code generator new shaders use in this thread (GLSL in this build)."""
from __future__ import annotations

import threading

from vkdispatch.codegen.context import active_builder
from vkdispatch.codegen.glsl import CodeGenBackend, CUDABackend, GLSLBackend, OpenCLBackend
from vkdispatch.errors import InvalidArgumentError

__all__ = ["set_codegen_backend", "get_codegen_backend"]

_BY_NAME = {"glsl": GLSLBackend, "cuda": CUDABackend, "opencl": OpenCLBackend}


class _Selection(threading.local):
    backend: CodeGenBackend | None = None


_selection = _Selection()


def set_codegen_backend(backend) -> None:
    """Chooses the code generator: "glsl", a CodeGenBackend instance, or None (default)."""
    if backend is None or isinstance(backend, CodeGenBackend):
        _selection.backend = backend
        return
    if not isinstance(backend, str) or backend.strip().lower() not in _BY_NAME:
        raise InvalidArgumentError(f"Unknown codegen backend {backend!r}. Expected one of: "
                                   + ", ".join(_BY_NAME))
    _selection.backend = _BY_NAME[backend.strip().lower()]()


def get_codegen_backend() -> CodeGenBackend:
    """The active builder's backend while tracing, else this thread's choice (GLSL)."""
    builder = active_builder()
    if builder is not None:
        return builder.backend
    if _selection.backend is None:
        _selection.backend = GLSLBackend()
    return _selection.backend
