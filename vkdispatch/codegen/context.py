"""Per-thread tracing state: which builder is tracing, and printing defaults."""
from __future__ import annotations

import threading

from vkdispatch.codegen.builder import ShaderBuilder
from vkdispatch.errors import InvalidStateError

__all__ = ["get_builder", "active_builder", "set_builder", "clear_builder",
           "set_shader_print_line_numbers", "get_shader_print_line_numbers"]


class _ThreadState(threading.local):
    builder: ShaderBuilder | None = None
    print_line_numbers: bool = False


_state = _ThreadState()


def get_builder() -> ShaderBuilder:
    """The builder tracing in this thread; raises outside of tracing."""
    if _state.builder is None:
        raise InvalidStateError("No global ShaderBuilder is set for the current thread! Shader "
                                "operations only work while a @vd.shader function is traced.")
    return _state.builder


def active_builder() -> ShaderBuilder | None:
    return _state.builder


def set_builder(builder: ShaderBuilder | None) -> None:
    """Installs ``builder`` for this thread (None clears); one at a time."""
    if builder is not None and _state.builder is not None:
        raise InvalidStateError("A global ShaderBuilder is already set for the current thread! "
                                "Shaders cannot be traced inside another shader's trace.")
    _state.builder = builder


def clear_builder() -> None:
    _state.builder = None


def set_shader_print_line_numbers(value: bool) -> None:
    """Default of ``line_numbers`` for ``get_src``/``print_src`` in this thread."""
    _state.print_line_numbers = bool(value)


def get_shader_print_line_numbers() -> bool:
    return _state.print_line_numbers
