# Declarations of bindings/error_translation.hpp.
from libcpp.string cimport string

cdef extern from "error_translation.hpp" namespace "vkdispatch::bindings":
    cdef enum ErrorKind:
        kRuntime
        kVulkan
        kOutOfMemory
        kDeviceLost
        kInvalidArgument
        kIndexOutOfRange
        kInterrupted
        kUnavailable

    cdef cppclass CaughtError:
        int kind
        string message
        string result_name

    CaughtError classifyCurrentException()

    ctypedef int (*RaiseFunction)(int kind, const string& message,
                                  const string& result_name) except -1
    void setRaiseFunction(RaiseFunction function)
    int raiseNativeError() except *
