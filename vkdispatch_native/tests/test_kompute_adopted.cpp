// kp::Manager over Vulkan handles made by the program (Kompute's bring-your-own-Vulkan
// constructor): it computes on them, tracks nothing, and leaves the handles to their owner.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "compute_helpers.hpp"
#include "kompute/Kompute.hpp"
#include "own_vulkan.hpp"
#include "vkdispatch/log.hpp"

namespace {

const char* kSquare = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { float a[]; };
void main() { uint i = gl_GlobalInvocationID.x; a[i] = a[i] * a[i]; }
)";

}  // namespace

TEST(KomputeAdopted, AManagerOverTheProgramsHandlesComputesAndLeavesThem) {
    VKD_REQUIRE_DEVICE();
    vkdispatch::test::OwnVulkan own;
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
