#include "vkdispatch/errors.hpp"

#include "vkdispatch/vk.hpp"

namespace vkdispatch {

std::string resultName(int32_t result) {
    switch (static_cast<VkResult>(result)) {
#define VKDISPATCH_RESULT_NAME(name) \
    case name:                       \
        return #name;
        VKDISPATCH_RESULT_NAME(VK_SUCCESS)
        VKDISPATCH_RESULT_NAME(VK_NOT_READY)
        VKDISPATCH_RESULT_NAME(VK_TIMEOUT)
        VKDISPATCH_RESULT_NAME(VK_EVENT_SET)
        VKDISPATCH_RESULT_NAME(VK_EVENT_RESET)
        VKDISPATCH_RESULT_NAME(VK_INCOMPLETE)
        VKDISPATCH_RESULT_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
        VKDISPATCH_RESULT_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        VKDISPATCH_RESULT_NAME(VK_ERROR_INITIALIZATION_FAILED)
        VKDISPATCH_RESULT_NAME(VK_ERROR_DEVICE_LOST)
        VKDISPATCH_RESULT_NAME(VK_ERROR_MEMORY_MAP_FAILED)
        VKDISPATCH_RESULT_NAME(VK_ERROR_LAYER_NOT_PRESENT)
        VKDISPATCH_RESULT_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
        VKDISPATCH_RESULT_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
        VKDISPATCH_RESULT_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
        VKDISPATCH_RESULT_NAME(VK_ERROR_TOO_MANY_OBJECTS)
        VKDISPATCH_RESULT_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
        VKDISPATCH_RESULT_NAME(VK_ERROR_FRAGMENTED_POOL)
        VKDISPATCH_RESULT_NAME(VK_ERROR_UNKNOWN)
        VKDISPATCH_RESULT_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
        VKDISPATCH_RESULT_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        VKDISPATCH_RESULT_NAME(VK_ERROR_FRAGMENTATION)
        VKDISPATCH_RESULT_NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        VKDISPATCH_RESULT_NAME(VK_PIPELINE_COMPILE_REQUIRED)
#undef VKDISPATCH_RESULT_NAME
        default:
            return "VkResult(" + std::to_string(result) + ")";
    }
}

namespace {
std::string describe(int32_t result, const std::string& operation, const char* file, int line) {
    return operation + " failed with " + resultName(result) + " (" + std::to_string(result) +
           ") [" + file + ":" + std::to_string(line) + "]";
}
}  // namespace

VulkanError::VulkanError(int32_t result, const std::string& operation, const char* file, int line)
    : Error(describe(result, operation, file, line)),
      m_result(result),
      m_result_name(::vkdispatch::resultName(result)),
      m_operation(operation) {}

void throwVulkanError(int32_t result, const std::string& operation, const char* file, int line) {
    switch (static_cast<VkResult>(result)) {
        case VK_ERROR_OUT_OF_HOST_MEMORY:
        case VK_ERROR_OUT_OF_DEVICE_MEMORY:
            throw OutOfMemoryError(result, operation, file, line);
        case VK_ERROR_DEVICE_LOST:
            throw DeviceLostError(result, operation, file, line);
        default:
            throw VulkanError(result, operation, file, line);
    }
}

}  // namespace vkdispatch
