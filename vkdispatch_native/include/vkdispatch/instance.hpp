#pragma once
// The Vulkan instance: loads the loader (volk), enables validation in debug mode and enumerates
// the physical devices once.
//
// Thread safety: immutable after construction; safe to share.
#include <memory>
#include <vector>

#include "vkdispatch/device_info.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

struct InstanceOptions {
    bool debug = false;  // Khronos validation layer + debug-utils messenger (+ shader printf)
};

class Instance {
public:
    explicit Instance(const InstanceOptions& options);
    /// Uses an instance made elsewhere (it must outlive this object, which never destroys it).
    explicit Instance(VkInstance existing);
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    VkInstance handle() const noexcept { return m_instance; }
    bool debug() const noexcept { return m_debug; }
    const std::vector<DeviceInfo>& devices() const noexcept { return m_device_infos; }
    VkPhysicalDevice physicalDevice(int index) const;

private:
    static void loadLoader();  // volk: the loader's global functions
    void createInstance(const InstanceOptions& options);
    void createMessenger();
    void enumerateDevices();

    bool m_owned = true;
    bool m_debug = false;
    VkInstance m_instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT m_messenger = VK_NULL_HANDLE;
    std::vector<VkPhysicalDevice> m_physical_devices;
    std::vector<DeviceInfo> m_device_infos;
};

/// Reads every DeviceInfo field of one physical device.
DeviceInfo queryDeviceInfo(VkPhysicalDevice device, int index);

}  // namespace vkdispatch
