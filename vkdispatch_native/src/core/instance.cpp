#include "vkdispatch/instance.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "debug_printf.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/log.hpp"
#include "vkdispatch/vulkan_list.hpp"

namespace vkdispatch {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

// What to install when Vulkan cannot run (a pip-installed wheel brings neither loader nor driver).
constexpr const char* kLoaderPackages =
    "the Vulkan loader (package libvulkan1 on Debian and Ubuntu, vulkan-loader on Fedora, "
    "vulkan-icd-loader on Arch)";
constexpr const char* kDriverPackages =
    "mesa-vulkan-drivers (Mesa's drivers for AMD and Intel GPUs, and lavapipe, which runs on the "
    "CPU) or your GPU vendor's driver";

// The loader's variable that replaces its driver search (VK_DRIVER_FILES wins over the older
// VK_ICD_FILENAMES), named in the errors it can explain.
std::string driverOverride() {
    for (const char* name : {"VK_DRIVER_FILES", "VK_ICD_FILENAMES"}) {
        const char* value = std::getenv(name);
        if (value != nullptr && *value != '\0')
            return std::string("; the loader looks only at ") + name + "=" + value;
    }
    return "";
}

// `what` went wrong; the rest of the message says what may explain it and what to install.
[[noreturn]] void throwNoDriver(const std::string& what) {
    throw VulkanUnavailableError(
        what + driverOverride() + ": install a Vulkan driver: " + kDriverPackages +
        "; `VK_LOADER_DEBUG=all python -m vkdispatch` shows where the loader looked");
}

bool hasLayer(const char* name) {
    const auto layers = detail::listOf(VkLayerProperties{}, "listing instance layers",
                                       vkEnumerateInstanceLayerProperties);
    for (const auto& layer : layers)
        if (std::strcmp(layer.layerName, name) == 0) return true;
    return false;
}

bool hasInstanceExtension(const char* name, const char* layer) {
    const auto extensions = detail::listOf(VkExtensionProperties{}, "listing instance extensions",
                                           vkEnumerateInstanceExtensionProperties, layer);
    for (const auto& ext : extensions)
        if (std::strcmp(ext.extensionName, name) == 0) return true;
    return false;
}

bool isShaderPrintf(const VkDebugUtilsMessengerCallbackDataEXT* data) {
    return data->pMessageIdName != nullptr &&
           std::strstr(data->pMessageIdName, "DEBUG-PRINTF") != nullptr;
}

VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    const std::string message = data->pMessage != nullptr ? data->pMessage : "";
    if (isShaderPrintf(data)) {
        logShaderPrintf(severity, message);
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        recordValidationError(message);
        log(LogLevel::Error, "validation: " + message);
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        log(LogLevel::Warning, "validation: " + message);
    } else {
        log(LogLevel::Verbose, "validation: " + message);
    }
    return VK_FALSE;  // the Vulkan call itself must proceed
}

// The loader unloads the drivers with the last instance and loads them again with the next, and
// NVIDIA's driver fails to load after about 30 such cycles in one process (its libnvidia-tls
// takes static TLS each time: "cannot allocate memory in static TLS block", then
// VK_ERROR_INCOMPATIBLE_DRIVER). A bare instance kept for the life of the process keeps the
// drivers loaded, so instances (one per kp::Manager, for one) can come and go. Never destroyed:
// at exit the loader may already be torn down.
void keepDriversLoaded() {
    static const VkInstance pinned = [] {
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.apiVersion = VK_API_VERSION_1_2;
        VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        info.pApplicationInfo = &app;
        VkInstance instance = VK_NULL_HANDLE;
        // A failure here shows again, with its message, when the real instance is created.
        if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) return VkInstance{};
        return instance;
    }();
    (void)pinned;
}

}  // namespace

void Instance::loadLoader() {
    if (volkInitialize() != VK_SUCCESS) {
        const char* reason = dlerror();  // volk's last dlopen() failure
        const std::string detail =
            reason != nullptr ? std::string(" (dlopen: ") + reason + ")" : std::string();
        throw VulkanUnavailableError("the Vulkan loader libvulkan.so.1 could not be loaded" +
                                     detail + ": install " + kLoaderPackages +
                                     " and a Vulkan driver: " + kDriverPackages);
    }
    if (volkGetInstanceVersion() < VK_API_VERSION_1_2)
        throw Error("the Vulkan loader supports only Vulkan " +
                    std::to_string(VK_API_VERSION_MAJOR(volkGetInstanceVersion())) + "." +
                    std::to_string(VK_API_VERSION_MINOR(volkGetInstanceVersion())) +
                    "; vkdispatch needs 1.2 or newer");
}

Instance::Instance(const InstanceOptions& options) {
    loadLoader();
    keepDriversLoaded();
    createInstance(options);
    volkLoadInstance(m_instance);
    if (m_debug) createMessenger();
    enumerateDevices();
}

Instance::Instance(VkInstance existing) : m_owned(false), m_instance(existing) {
    if (existing == VK_NULL_HANDLE) throw InvalidArgumentError("instance: the handle is null");
    loadLoader();
    volkLoadInstance(m_instance);
    enumerateDevices();
}

void Instance::enumerateDevices() {
    const VkResult listed =
        detail::listInto(m_physical_devices, {}, vkEnumeratePhysicalDevices, m_instance);
    // The loader's answer when every driver it found reports no device (e.g. only Mesa's Intel
    // driver, on a machine without an Intel GPU).
    if (listed == VK_ERROR_INITIALIZATION_FAILED)
        throwNoDriver("the Vulkan drivers found report no device (vkEnumeratePhysicalDevices "
                      "returned VK_ERROR_INITIALIZATION_FAILED)");
    VK_CHECK(listed, "listing physical devices");
    for (size_t i = 0; i < m_physical_devices.size(); ++i)
        m_device_infos.push_back(queryDeviceInfo(m_physical_devices[i], static_cast<int>(i)));
}

void Instance::createInstance(const InstanceOptions& options) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkdispatch";
    app.pEngineName = "vkdispatch";
    // 1.3 where the loader has it: core 1.3 features (e.g. non-semantic info for shader printf)
    // are then available on 1.3 drivers that no longer list them as extensions.
    app.apiVersion = volkGetInstanceVersion() >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3
                                                                   : VK_API_VERSION_1_2;

    std::vector<const char*> layers;
    std::vector<const char*> extensions;
    if (options.debug) {
        if (hasLayer(kValidationLayer) &&
            hasInstanceExtension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME, nullptr)) {
            layers.push_back(kValidationLayer);
            extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
            m_debug = true;
        } else {
            log(LogLevel::Warning,
                "debug mode asked for, but the Khronos validation layer or VK_EXT_debug_utils is "
                "missing (Debian package vulkan-validationlayers); continuing without validation");
        }
    }

    // Synchronization validation reports hazards our barrier planning missed (lavapipe runs
    // commands in order, so a missing barrier would otherwise go unnoticed on CPU devices).
    VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_DEBUG_PRINTF_EXT,
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 2;
    features.pEnabledValidationFeatures = enables;

    std::optional<PrintfBufferSetting> printf_buffer;
    if (m_debug) printf_buffer.emplace();

    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pNext = m_debug ? &features : nullptr;
    info.pApplicationInfo = &app;
    info.enabledLayerCount = static_cast<uint32_t>(layers.size());
    info.ppEnabledLayerNames = layers.data();
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    const VkResult created = vkCreateInstance(&info, nullptr, &m_instance);
    if (created == VK_ERROR_INCOMPATIBLE_DRIVER)
        throwNoDriver("the Vulkan loader found no usable driver (vkCreateInstance returned "
                      "VK_ERROR_INCOMPATIBLE_DRIVER)");
    VK_CHECK(created, "creating the Vulkan instance");
}

void Instance::createMessenger() {
    VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType =
        VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    info.pfnUserCallback = onValidationMessage;
    VK_CHECK(vkCreateDebugUtilsMessengerEXT(m_instance, &info, nullptr, &m_messenger),
             "creating the debug messenger");
}

Instance::~Instance() {
    if (m_messenger != VK_NULL_HANDLE)
        vkDestroyDebugUtilsMessengerEXT(m_instance, m_messenger, nullptr);
    if (m_owned && m_instance != VK_NULL_HANDLE) vkDestroyInstance(m_instance, nullptr);
}

VkPhysicalDevice Instance::physicalDevice(int index) const {
    if (m_physical_devices.empty()) throwNoDriver("the Vulkan drivers found report no device");
    if (index < 0 || index >= static_cast<int>(m_physical_devices.size()))
        throw IndexOutOfRangeError("device index " + std::to_string(index) + " is out of range (" +
                                   std::to_string(m_physical_devices.size()) + " devices)");
    return m_physical_devices[index];
}

}  // namespace vkdispatch
