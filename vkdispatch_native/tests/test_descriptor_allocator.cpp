// DescriptorAllocator: released sets are reused before new ones are taken, plans share the
// device's pools, and a destroyed plan gives its sets back.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <vector>

#include "compute_helpers.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_allocator.hpp"
#include "vkdispatch/descriptor_pools.hpp"
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

TEST(DescriptorAllocator, ReleasedSetsComeBackBeforeNewOnesAreTaken) {
    VKD_REQUIRE_DEVICE();
    const auto plan = copyPlan();
    DescriptorAllocator& allocator = *plan->forQueue(0).descriptors;
    std::vector<VkDescriptorSet> sets;
    for (int i = 0; i < 40; ++i) sets.push_back(allocator.allocate());
    EXPECT_EQ(std::set<VkDescriptorSet>(sets.begin(), sets.end()).size(), sets.size());
    EXPECT_EQ(allocator.setCount(), 40u);
    const std::set<VkDescriptorSet> released(sets.begin(), sets.begin() + 10);
    for (VkDescriptorSet set : released) allocator.release(set);
    std::set<VkDescriptorSet> again;
    for (int i = 0; i < 10; ++i) again.insert(allocator.allocate());
    EXPECT_EQ(again, released);
    EXPECT_EQ(allocator.setCount(), 40u);
    for (VkDescriptorSet set : sets) allocator.release(set);
}

TEST(DescriptorAllocator, PlansShareTheDevicePoolsAndGiveTheirSetsBack) {
    VKD_REQUIRE_DEVICE();
    DescriptorPools& pools = context().devices()[0]->descriptorPools();
    const size_t before = pools.poolCount();
    for (int round = 0; round < 3; ++round) {
        {
            // 6 plans with 300 sets each: more sets than a pool of 1024 holds.
            std::vector<std::unique_ptr<ComputePlan>> plans;
            std::vector<std::unique_ptr<DescriptorSet>> sets;
            for (int p = 0; p < 6; ++p) {
                plans.push_back(copyPlan());
                for (int i = 0; i < 300; ++i)
                    sets.push_back(std::make_unique<DescriptorSet>(*plans.back()));
            }
            EXPECT_GT(pools.poolCount(), before) << "round " << round;
        }
        context().waitIdle(-1);
        EXPECT_EQ(pools.poolCount(), before) << "round " << round;
    }
}

TEST(DescriptorAllocator, DescriptorSetsMadeAndDroppedInALoopReuseTheirSets) {
    VKD_REQUIRE_DEVICE();
    const auto plan = copyPlan();
    auto churn = [&] {
        for (int i = 0; i < 300; ++i) DescriptorSet set(*plan);
        context().waitIdle(-1);
    };
    churn();
    const size_t sets = plan->forQueue(0).descriptors->setCount();
    EXPECT_GE(sets, 1u);
    for (int round = 0; round < 3; ++round) churn();
    EXPECT_EQ(plan->forQueue(0).descriptors->setCount(), sets);
}
