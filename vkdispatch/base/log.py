"""Logging through Python's :mod:`logging` (logger ``"vkdispatch"``).

Native messages (including Vulkan validation messages in debug mode) arrive in the same logger,
so handlers, filters and levels are configured the usual way, except those of a layer that
claimed a prefix for its own logger (the Kompute layer's ``kp::`` messages go to ``"kp"``).
:func:`set_log_level` sets the logger's level and the native threshold together; native messages
below the threshold are never formatted.
"""
from __future__ import annotations

import enum
import logging

__all__ = ["LogLevel", "logger", "log", "log_error", "log_warning", "log_info", "log_verbose",
           "set_log_level", "python_level", "attach_native", "claim_native_prefix",
           "refresh_native_threshold"]

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


def _native_level(python_logging_level: int) -> int:
    """The native threshold that lets through what a logger at that level would show."""
    for level in LogLevel:
        if python_level(level) >= python_logging_level:
            return level.value
    return LogLevel.ERROR.value


class NativeRouting:
    """Which logger receives each native message, and the native threshold.

    Native code of every layer logs through one sink; a layer with a logger of its own (``kp``)
    claims the prefix its messages start with, so its users' logging set-up sees them and
    vkdispatch's does not. The native threshold lets through what the most verbose of these
    loggers would show, as their levels were at the last :meth:`refresh` (a claim, loading the
    runtime and :func:`set_log_level` refresh it).
    """

    def __init__(self) -> None:
        self.set_native_level = None  # the runtime's setter, once it is loaded
        self.claims: dict[str, logging.Logger] = {}

    def logger_for(self, message: str) -> logging.Logger:
        for prefix, claimed in self.claims.items():
            if message.startswith(prefix):
                return claimed
        return logger

    def forward(self, level: int, message: str) -> None:
        self.logger_for(message).log(python_level(level), "%s", message)

    def attach(self, native) -> None:
        """Routes the messages of the loaded native runtime (idempotent)."""
        native.set_log_handler(self.forward)
        self.set_native_level = native.set_log_level
        self.refresh()

    def claim(self, prefix: str, target: logging.Logger) -> None:
        """Native messages starting with ``prefix`` go to ``target``."""
        self.claims[prefix] = target
        self.refresh()

    def refresh(self) -> None:
        if self.set_native_level is not None:
            routed = (logger, *self.claims.values())
            self.set_native_level(_native_level(min(r.getEffectiveLevel() for r in routed)))


native_routing = NativeRouting()  # the process's native runtime has one sink
attach_native = native_routing.attach
claim_native_prefix = native_routing.claim
refresh_native_threshold = native_routing.refresh


def set_log_level(level: LogLevel) -> None:
    """Shows messages at ``level`` and above, from Python and from the native runtime."""
    logger.setLevel(python_level(LogLevel(level)))
    refresh_native_threshold()


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
