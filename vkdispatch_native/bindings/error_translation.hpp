#pragma once
// Classifies the C++ exception being handled so the bridge can raise the matching Python class.
// Used only from inside a catch block (Cython's `except +handler`), hence the bare `throw;`.
// Only wrapper.pyx's translation unit includes this header.
#include <string>

#include "vkdispatch/errors.hpp"

namespace vkdispatch::bindings {

enum ErrorKind : int {
    kRuntime = 0,
    kVulkan = 1,
    kOutOfMemory = 2,
    kDeviceLost = 3,
    kInvalidArgument = 4,
    kIndexOutOfRange = 5,
    kInterrupted = 6,
    kUnavailable = 7,
};

struct CaughtError {
    int kind = kRuntime;
    std::string message;
    std::string result_name;
};

inline CaughtError classifyCurrentException() {
    CaughtError out;
    try {
        throw;
    } catch (const InterruptedError& e) {
        out = {kInterrupted, e.what(), ""};
    } catch (const OutOfMemoryError& e) {
        out = {kOutOfMemory, e.what(), e.resultName()};
    } catch (const DeviceLostError& e) {
        out = {kDeviceLost, e.what(), e.resultName()};
    } catch (const VulkanError& e) {
        out = {kVulkan, e.what(), e.resultName()};
    } catch (const VulkanUnavailableError& e) {
        out = {kUnavailable, e.what(), ""};
    } catch (const InvalidArgumentError& e) {
        out = {kInvalidArgument, e.what(), ""};
    } catch (const IndexOutOfRangeError& e) {
        out = {kIndexOutOfRange, e.what(), ""};
    } catch (const std::bad_alloc&) {
        out = {kOutOfMemory, "out of host memory", ""};
    } catch (const std::exception& e) {
        out = {kRuntime, e.what(), ""};
    } catch (...) {
        out = {kRuntime, "unknown native error", ""};
    }
    return out;
}

/// Raises the Python exception for (kind, message, result name); returns -1 with it set.
using RaiseFunction = int (*)(int kind, const std::string& message, const std::string& result_name);

inline RaiseFunction& raiseFunction() {
    static RaiseFunction function = nullptr;
    return function;
}

inline void setRaiseFunction(RaiseFunction function) { raiseFunction() = function; }

/// Cython's `except +raiseNativeError` handler: runs inside the catch block of a native call.
inline int raiseNativeError() {
    const CaughtError error = classifyCurrentException();
    return raiseFunction()(error.kind, error.message, error.result_name);
}

}  // namespace vkdispatch::bindings
