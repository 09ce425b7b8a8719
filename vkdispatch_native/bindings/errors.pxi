# Native errors as Python exceptions (included by wrapper.pyx first): the classes by native error
# kind that vkdispatch.base installs, the function C++ calls to raise one (error_translation.hpp),
# and the check for Ctrl-C that native waits run (a KeyboardInterrupt at the call that waited).
import threading

from cpython.exc cimport PyErr_Occurred

from c_errors cimport kInterrupted
from c_log cimport deliverDeferredLogs, takeValidationErrors


# Python exception classes by native error kind (see error_translation.hpp), plus "validation".
_error_classes = {}


def set_error_classes(classes):
    """Installs the exception classes: a dict from kind name to class."""
    _error_classes.clear()
    _error_classes.update(classes)


cdef object _class_for(str name):
    return _error_classes.get(name, RuntimeError)


_KIND_NAMES = ("runtime", "vulkan", "out_of_memory", "device_lost", "invalid_argument",
               "index_out_of_range", "interrupted", "unavailable")


cdef int _raise(int kind, const string& message, const string& result_name) except -1:
    deliverDeferredLogs()  # what was logged before the failure, before the error
    if kind == kInterrupted:
        if PyErr_Occurred():
            return -1  # the KeyboardInterrupt raised by the signal check propagates
        raise KeyboardInterrupt()
    text = message.decode("utf-8", "replace")
    # What the validation layer reported inside the failed call explains this error: raised
    # with it, not by the next, unrelated call (_check_validation runs only after successes).
    cdef vector[string] validation = takeValidationErrors()
    if validation.size():
        text += "\nVulkan validation errors during this call:\n" + "\n".join(
            e.decode("utf-8", "replace") for e in validation)
    error = _class_for(_KIND_NAMES[kind])(text)
    if result_name.size():
        error.result = result_name.decode()
    raise error


cdef int _invalid(str message) except -1:
    raise _class_for("invalid_argument")(message)


cdef extern from "Python.h":
    # Declared without an exception value on purpose: the KeyboardInterrupt it sets must stay
    # pending (to be raised by _raise once the native wait unwinds), not be reported here.
    int check_signals_leaving_error_set "PyErr_CheckSignals"()
    unsigned long PyThread_get_thread_ident() nogil


# Python runs signal handlers on the main thread only: elsewhere the check would always say no,
# and taking the GIL for it could deadlock a wait (a waiting submitter may hold a lock that a
# thread holding the GIL waits for).
cdef unsigned long _main_thread = threading.main_thread().ident


cdef cbool _interrupt_pending() noexcept nogil:
    if PyThread_get_thread_ident() != _main_thread:
        return False
    with gil:
        return check_signals_leaving_error_set() != 0
