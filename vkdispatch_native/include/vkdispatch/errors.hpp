#pragma once
// The native exception hierarchy. Every failure throws one of these; the Cython bridge maps each
// class onto the matching Python exception, so no error is ever polled or left sticky.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace vkdispatch {

/// Root of every native error.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A Vulkan call returned a failure code.
class VulkanError : public Error {
public:
    VulkanError(int32_t result, const std::string& operation, const char* file, int line);
    int32_t result() const noexcept { return m_result; }
    const std::string& resultName() const noexcept { return m_result_name; }
    const std::string& operation() const noexcept { return m_operation; }

private:
    int32_t m_result;
    std::string m_result_name;
    std::string m_operation;
};

/// Host or device memory ran out (VK_ERROR_OUT_OF_{HOST,DEVICE}_MEMORY).
class OutOfMemoryError : public VulkanError {
public:
    using VulkanError::VulkanError;
};

/// The device was lost (driver reset, hang, removal).
class DeviceLostError : public VulkanError {
public:
    using VulkanError::VulkanError;
};

/// The caller passed a value outside its allowed range; maps to ValueError.
class InvalidArgumentError : public Error {
public:
    using Error::Error;
};

/// An index (queue, device) was out of range; maps to IndexError.
class IndexOutOfRangeError : public Error {
public:
    using Error::Error;
};

/// Vulkan cannot run at all: the loader (libvulkan.so.1) is missing, or it finds no driver or
/// no device. The message says what to install.
class VulkanUnavailableError : public Error {
public:
    using Error::Error;
};

/// A wait was interrupted because the host process received a signal (Ctrl-C).
class InterruptedError : public Error {
public:
    InterruptedError() : Error("interrupted") {}
};

/// The name of a VkResult code, e.g. "VK_ERROR_DEVICE_LOST".
std::string resultName(int32_t result);

/// Throws the VulkanError subclass that matches `result`.
[[noreturn]] void throwVulkanError(int32_t result, const std::string& operation, const char* file,
                                   int line);

}  // namespace vkdispatch

/// Checks a VkResult; on failure throws a VulkanError naming `what` (the operation attempted).
#define VK_CHECK(expr, what)                                                                   \
    do {                                                                                       \
        const int32_t vkdispatch_result_ = static_cast<int32_t>(expr);                        \
        if (vkdispatch_result_ < 0)                                                            \
            ::vkdispatch::throwVulkanError(vkdispatch_result_, (what), __FILE__, __LINE__);   \
    } while (0)
