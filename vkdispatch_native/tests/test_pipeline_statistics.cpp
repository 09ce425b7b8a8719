#include <gtest/gtest.h>

#include <string>

#include "compute_helpers.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/pipeline_statistics.hpp"

using namespace vkdispatch;
using test::context;
using test::messageOf;

namespace {

// A shader whose shared memory (`floats` of them) the driver must report back.
std::string sharedArrayShader(int floats) {
    return "#version 450\nlayout(local_size_x = 64) in;\n"
           "layout(set = 0, binding = 0) buffer X { float x[]; };\n"
           "shared float staged[" + std::to_string(floats) + "];\n"
           "void main() {\n"
           "    uint i = gl_LocalInvocationID.x;\n"
           "    for (uint j = i; j < " + std::to_string(floats) + "u; j += 64u)\n"
           "        staged[j] = x[gl_WorkGroupID.x * " + std::to_string(floats) + "u + j];\n"
           "    barrier();\n"
           "    x[gl_GlobalInvocationID.x] = staged[" + std::to_string(floats) + "u - 1u - i];\n"
           "}\n";
}

std::vector<PipelineStatistic> statisticsOf(int floats) {
    return pipelineStatistics(context(), 0,
                              test::compileOrFail(sharedArrayShader(floats), "staged"),
                              {BindingType::StorageBuffer}, 0, "staged");
}

bool isNvidia() {
    return context().devices()[0]->info().device_name.find("NVIDIA") != std::string::npos;
}

}  // namespace

TEST(PipelineStatistics, DeviceIndexOutsideTheContextIsRejected) {
    VKD_REQUIRE_DEVICE();
    const auto spirv = test::compileOrFail(sharedArrayShader(64), "staged");
    const int count = static_cast<int>(context().devices().size());
    EXPECT_THROW(pipelineStatistics(context(), count, spirv, {BindingType::StorageBuffer}, 0, "s"),
                 IndexOutOfRangeError);
    EXPECT_THROW(pipelineStatistics(context(), -1, spirv, {BindingType::StorageBuffer}, 0, "s"),
                 IndexOutOfRangeError);
}

TEST(PipelineStatistics, ADriverWithoutTheExtensionIsNamed) {
    VKD_REQUIRE_DEVICE();
    const Device& device = *context().devices()[0];
    if (device.reportsPipelineStatistics()) GTEST_SKIP() << "the driver reports statistics";
    const std::string message = messageOf([] { statisticsOf(64); });
    EXPECT_NE(message.find("VK_KHR_pipeline_executable_properties"), std::string::npos)
        << message;
    EXPECT_NE(message.find(device.info().device_name), std::string::npos) << message;
    EXPECT_THROW(statisticsOf(64), InvalidArgumentError);
}

TEST(PipelineStatistics, NvidiaReportsTheSharedMemoryDeclared) {
    VKD_REQUIRE_DEVICE();
    if (!isNvidia()) GTEST_SKIP() << "the statistics' names are NVIDIA's";
    ASSERT_TRUE(context().devices()[0]->reportsPipelineStatistics());
    for (int floats : {96, 1000, 3000}) {
        double shared = -1, registers = -1;
        for (const PipelineStatistic& statistic : statisticsOf(floats)) {
            if (statistic.name == "Shared Memory Size") shared = statistic.value;
            if (statistic.name == "Register Count") registers = statistic.value;
        }
        EXPECT_EQ(shared, 4.0 * floats);
        EXPECT_GT(registers, 0);
        EXPECT_LE(registers, 255);
    }
}
