// kp::Manager over Vulkan handles made by the program (Kompute's bring-your-own-Vulkan
// constructor): it computes on them, tracks nothing, and leaves the handles to their owner.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "compute_helpers.hpp"
#include "kompute/Kompute.hpp"
#include "vkdispatch/log.hpp"

namespace {

const char* kSquare = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { float a[]; };
void main() { uint i = gl_GlobalInvocationID.x; a[i] = a[i] * a[i]; }
)";

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
};

}  // namespace

TEST(KomputeAdopted, AManagerOverTheProgramsHandlesComputesAndLeavesThem) {
    VKD_REQUIRE_DEVICE();
    OwnVulkan own;
    ASSERT_NE(own.device, VK_NULL_HANDLE);
    std::shared_ptr<kp::Tensor> kept;  // outlives the manager
    {
        kp::Manager mgr(std::make_shared<vk::Instance>(own.instance),
                        std::make_shared<vk::PhysicalDevice>(own.physical),
                        std::make_shared<vk::Device>(own.device));
        auto tensor = mgr.tensor({1.5f, -2.0f, 3.0f, 4.0f});
        auto algorithm = mgr.algorithm({tensor}, kp::Shader::compileSource(kSquare));
        mgr.sequence()
            ->record<kp::OpSyncDevice>({tensor})
            ->record<kp::OpAlgoDispatch>(algorithm)
            ->record<kp::OpSyncLocal>({tensor})
            ->eval();
        EXPECT_EQ(tensor->vector(), (std::vector<float>{2.25f, 4.0f, 9.0f, 16.0f}));
        kept = tensor;
        mgr.destroy();  // tracks nothing: the tensor stays usable
        EXPECT_TRUE(kept->isInit());
    }
    EXPECT_EQ(kept->vector<float>()[3], 16.0f);
    kept.reset();
    // The handles are still the program's: its device works after the manager is gone.
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = 64;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateBuffer(own.device, &info, nullptr, &buffer), VK_SUCCESS);
    vkDestroyBuffer(own.device, buffer, nullptr);
    for (const auto& error : vkdispatch::takeValidationErrors()) ADD_FAILURE() << error;
}
