# Native log messages and validation errors (included by wrapper.pyx after errors.pxi): the sink
# that hands messages to the Python handler, and the check after every native call that raises
# what the validation layer reported during it.
from c_log cimport LogLevel, log as native_log, setLogLevel
from c_log cimport deliverDeferredLogs
from c_log cimport recordValidationError, takeValidationErrors


cdef extern from "Python.h":
    int PyGILState_Check() nogil


_log_handler = None


cdef void _log_sink(int level, const char* message, void* user) noexcept with gil:
    handler = _log_handler
    if handler is None:
        return
    try:
        handler(level, message.decode("utf-8", "replace"))
    except BaseException:
        pass  # a failing log handler must never abort the native operation that logged


# A thread without the GIL defers its messages (see log.hpp): taking the GIL inside a Vulkan
# call deadlocked a debug-mode process on an H200, the layer's printf callback waiting for the
# GIL on the submitting thread while the main thread, GIL held, waited in the layer for a lock
# that callback held. _check_validation delivers them after the next native call.
cdef cbool _holds_gil() noexcept nogil:
    return PyGILState_Check() != 0


def set_log_handler(handler):
    """Routes native log messages to ``handler(level: int, message: str)``."""
    global _log_handler
    _log_handler = handler


def set_log_level(int level):
    """Native messages below ``level`` (0 verbose .. 3 error) are dropped before formatting."""
    setLogLevel(<LogLevel>level)


def log(int level, str message):
    native_log(<LogLevel>level, message.encode())


cdef int _check_validation() except -1:
    """Raises the ``validation`` class if the validation layer reported errors since last time.

    Called after every native operation, so the error surfaces at the call that caused it;
    delivers the log messages that other threads (or this one, without the GIL) deferred.
    """
    deliverDeferredLogs()
    cdef vector[string] errors = takeValidationErrors()
    if errors.size():
        raise _class_for("validation")(
            "Vulkan validation error:\n" + "\n".join(e.decode("utf-8", "replace") for e in errors))
    return 0


def inject_validation_error(str message):
    """Records a fake validation error (fault injection for tests of the reporting path)."""
    recordValidationError(message.encode())
