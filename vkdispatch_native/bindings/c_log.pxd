# Declarations of vkdispatch/log.hpp and vkdispatch/interrupt.hpp.
from libcpp cimport bool
from libcpp.string cimport string
from libcpp.vector cimport vector

cdef extern from "vkdispatch/log.hpp" namespace "vkdispatch":
    ctypedef void (*LogSink)(int level, const char* message, void* user) noexcept
    cdef enum class LogLevel(int):
        Verbose
        Info
        Warning
        Error
    void setLogSink(LogSink sink, void* user)
    ctypedef bool (*DeliveryCheck)() noexcept
    void setDeliveryCheck(DeliveryCheck check)
    void deliverDeferredLogs() except +
    void setLogLevel(LogLevel level)
    void log(LogLevel level, const string& message)
    void recordValidationError(const string& message)
    vector[string] takeValidationErrors()

cdef extern from "vkdispatch/interrupt.hpp" namespace "vkdispatch":
    ctypedef bool (*InterruptCheck)() noexcept
    void setInterruptCheck(InterruptCheck check)
