#pragma once
// Vulkan handles a Kompute program makes itself, for the Manager that adopts them.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "kompute/Kompute.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch::test {

// What a Kompute program makes itself: an instance, and a device with one compute queue and
// the timelineSemaphore feature.
struct OwnVulkan {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;

    OwnVulkan() {
        EXPECT_EQ(volkInitialize(), VK_SUCCESS);
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.apiVersion = VK_API_VERSION_1_2;
        VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        instance_info.pApplicationInfo = &app;
        EXPECT_EQ(vkCreateInstance(&instance_info, nullptr, &instance), VK_SUCCESS);
        volkLoadInstance(instance);
        uint32_t count = 1;
        vkEnumeratePhysicalDevices(instance, &count, &physical);
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
        std::vector<VkQueueFamilyProperties> properties(families);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, properties.data());
        uint32_t compute = 0;
        while (!(properties[compute].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++compute;
        const float priority = 1.0f;
        VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        queue.queueFamilyIndex = compute;
        queue.queueCount = 1;
        queue.pQueuePriorities = &priority;
        VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        v12.timelineSemaphore = VK_TRUE;
        VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        device_info.pNext = &v12;
        device_info.queueCreateInfoCount = 1;
        device_info.pQueueCreateInfos = &queue;
        EXPECT_EQ(vkCreateDevice(physical, &device_info, nullptr, &device), VK_SUCCESS);
    }
    ~OwnVulkan() {
        vkDestroyDevice(device, nullptr);
        vkDestroyInstance(instance, nullptr);
    }

    /// A kp::Manager over these handles (they must outlive it and its objects).
    std::unique_ptr<kp::Manager> manager() const {
        return std::make_unique<kp::Manager>(std::make_shared<vk::Instance>(instance),
                                             std::make_shared<vk::PhysicalDevice>(physical),
                                             std::make_shared<vk::Device>(device));
    }
};

}  // namespace vkdispatch::test
