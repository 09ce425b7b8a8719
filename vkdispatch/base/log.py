"""Logging through Python's :mod:`logging` (logger ``"vkdispatch"``).

Native messages (including Vulkan validation messages in debug mode) arrive in the same logger,
so handlers, filters and levels are configured the usual way. :func:`set_log_level` sets the
logger's level and the native threshold together; messages below it are never formatted.
"""
from __future__ import annotations

import enum
import logging

__all__ = ["LogLevel", "logger", "log", "log_error", "log_warning", "log_info", "log_verbose",
           "set_log_level", "python_level"]

logger = logging.getLogger("vkdispatch")


class LogLevel(enum.Enum):
    """Severity of a log message; ``WARNING`` is the default threshold."""

    VERBOSE = 0
    INFO = 1
    WARNING = 2
    ERROR = 3


_PYTHON_LEVELS = {
    LogLevel.VERBOSE: logging.DEBUG,
    LogLevel.INFO: logging.INFO,
    LogLevel.WARNING: logging.WARNING,
    LogLevel.ERROR: logging.ERROR,
}


def python_level(level: LogLevel | int) -> int:
    """The :mod:`logging` level of a :class:`LogLevel` (or of its integer value)."""
    return _PYTHON_LEVELS[LogLevel(level)]


class _NativeThreshold:
    """Where set_log_level forwards the native threshold once the runtime is loaded."""

    setter = None


native_threshold = _NativeThreshold()


def set_log_level(level: LogLevel) -> None:
    """Shows messages at ``level`` and above, from Python and from the native runtime."""
    level = LogLevel(level)
    logger.setLevel(python_level(level))
    if native_threshold.setter is not None:
        native_threshold.setter(level.value)


def log(text: str, end: str = "\n", level: LogLevel = LogLevel.ERROR, stack_offset: int = 1) -> None:
    """Logs ``text`` at ``level``, attributed to the caller ``stack_offset`` frames up.

    The text is never interpreted as a format string. ``end`` is appended unless it is the
    default newline (logging ends every record with one already).
    """
    message = text if end == "\n" else text + end
    logger.log(python_level(level), "%s", message, stacklevel=stack_offset + 1)


def log_error(text: str, end: str = "\n") -> None:
    """Logs ``text`` at ERROR level, attributed to the caller."""
    log(text, end, LogLevel.ERROR, stack_offset=2)


def log_warning(text: str, end: str = "\n") -> None:
    """Logs ``text`` at WARNING level, attributed to the caller."""
    log(text, end, LogLevel.WARNING, stack_offset=2)


def log_info(text: str, end: str = "\n") -> None:
    """Logs ``text`` at INFO level, attributed to the caller."""
    log(text, end, LogLevel.INFO, stack_offset=2)


def log_verbose(text: str, end: str = "\n") -> None:
    """Logs ``text`` at VERBOSE (logging.DEBUG) level, attributed to the caller."""
    log(text, end, LogLevel.VERBOSE, stack_offset=2)
