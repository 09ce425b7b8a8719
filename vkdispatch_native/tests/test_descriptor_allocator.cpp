// DescriptorAllocator: pools grow geometrically, released sets are reused, and descriptor sets
// made and dropped in a loop do not keep adding pools.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <vector>

#include "compute_helpers.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_allocator.hpp"
#include "vkdispatch/descriptor_set.hpp"

using namespace vkdispatch;
using test::context;

namespace {

const char* kCopy = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer S { float src[]; };
layout(set = 0, binding = 1) writeonly buffer D { float dst[]; };
layout(set = 0, binding = 2) uniform U { float k; };
void main() { dst[gl_GlobalInvocationID.x] = src[gl_GlobalInvocationID.x] * k; }
)";

std::unique_ptr<ComputePlan> copyPlan() {
    return std::make_unique<ComputePlan>(
        context(), test::compileOrFail(kCopy, "copy"),
        std::vector<BindingType>{BindingType::StorageBuffer, BindingType::StorageBuffer,
                                 BindingType::UniformBuffer},
        0, "copy");
}

}  // namespace

TEST(DescriptorAllocatorPure, PoolsDoubleFrom16To1024Sets) {
    const std::vector<uint32_t> expected = {16, 32, 64, 128, 256, 512, 1024, 1024, 1024};
    for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(DescriptorAllocator::poolCapacity(i), expected[i]) << "pool " << i;
}

TEST(DescriptorAllocator, SetsAreDistinctPoolsGrowAndReleasedSetsComeBack) {
    VKD_REQUIRE_DEVICE();
    const auto plan = copyPlan();
    DescriptorAllocator& allocator = *plan->forQueue(0).descriptors;
    EXPECT_EQ(allocator.poolCount(), 0u);
    std::vector<VkDescriptorSet> sets;
    for (int i = 0; i < 40; ++i) sets.push_back(allocator.allocate());
    EXPECT_EQ(std::set<VkDescriptorSet>(sets.begin(), sets.end()).size(), sets.size());
    EXPECT_EQ(allocator.poolCount(), 2u);  // 16 + 32 sets
    const std::set<VkDescriptorSet> released(sets.begin(), sets.begin() + 10);
    for (VkDescriptorSet set : released) allocator.release(set);
    std::set<VkDescriptorSet> again;
    for (int i = 0; i < 10; ++i) again.insert(allocator.allocate());
    EXPECT_EQ(again, released);
    EXPECT_EQ(allocator.poolCount(), 2u);
    for (VkDescriptorSet set : sets) allocator.release(set);
}

TEST(DescriptorAllocator, DescriptorSetsMadeAndDroppedInALoopReuseTheirPools) {
    VKD_REQUIRE_DEVICE();
    const auto plan = copyPlan();
    auto churn = [&] {
        for (int i = 0; i < 300; ++i) DescriptorSet set(*plan);
        context().waitIdle(-1);
    };
    churn();
    const size_t pools = plan->forQueue(0).descriptors->poolCount();
    EXPECT_GE(pools, 1u);
    for (int round = 0; round < 3; ++round) churn();
    EXPECT_EQ(plan->forQueue(0).descriptors->poolCount(), pools);
}
