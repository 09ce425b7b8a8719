// DescriptorPools and DescriptorAllocator: plans share a device's pools, pools grow when full
// and empty extra pools go away, released sets are reused, and a destroyed plan gives its sets
// back.
#include <gtest/gtest.h>

#include <memory>
#include <random>
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

const std::vector<VkDescriptorPoolSize> kCopySet = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2},
                                                    {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1}};

std::unique_ptr<ComputePlan> copyPlan() {
    return std::make_unique<ComputePlan>(
        context(), test::compileOrFail(kCopy, "copy"),
        std::vector<BindingType>{BindingType::StorageBuffer, BindingType::StorageBuffer,
                                 BindingType::UniformBuffer},
        0, "copy");
}

VkDevice device() { return context().devices()[0]->handle(); }

/// A layout of `count` storage buffers.
UniqueDescriptorSetLayout storageLayout(uint32_t count) {
    std::vector<VkDescriptorSetLayoutBinding> bindings(count);
    for (uint32_t j = 0; j < count; ++j)
        bindings[j] = {j, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
                       nullptr};
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = count;
    info.pBindings = bindings.data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateDescriptorSetLayout(device(), &info, nullptr, &layout), VK_SUCCESS);
    return UniqueDescriptorSetLayout(device(), layout);
}

}  // namespace

TEST(DescriptorPools, FirstPoolExistsFromTheStartAndFullPoolsAddPools) {
    VKD_REQUIRE_DEVICE();
    const auto plan = copyPlan();
    const VkDescriptorSetLayout layout = plan->forQueue(0).set_layout.get();
    DescriptorPools pools(device(), 4);
    EXPECT_EQ(pools.poolCount(), 1u);
    std::vector<DescriptorPools::Allocation> taken;
    for (int i = 0; i < 10; ++i) taken.push_back(pools.allocate(layout, kCopySet, "copy"));
    std::set<VkDescriptorSet> distinct;
    for (const auto& a : taken) distinct.insert(a.set);
    EXPECT_EQ(distinct.size(), taken.size());
    EXPECT_EQ(pools.poolCount(), 3u);  // 4 + 4 + 2 sets
    for (size_t i = 4; i < taken.size(); ++i) pools.free(taken[i], kCopySet);
    EXPECT_EQ(pools.poolCount(), 1u) << "emptied extra pools are destroyed";
    for (size_t i = 0; i < 4; ++i) pools.free(taken[i], kCopySet);
    EXPECT_EQ(pools.poolCount(), 1u) << "the first pool stays";
}

TEST(DescriptorPools, DescriptorCountsAreKeptWithinEachPool) {
    VKD_REQUIRE_DEVICE();
    // 4 sets of 16 storage buffers need 64 descriptors: a default pool of 8 sets holds 32.
    const UniqueDescriptorSetLayout layout = storageLayout(16);
    const std::vector<VkDescriptorPoolSize> per_set = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 16}};
    DescriptorPools pools(device(), 8);
    std::vector<DescriptorPools::Allocation> taken;
    for (int i = 0; i < 4; ++i) taken.push_back(pools.allocate(layout.get(), per_set, "wide"));
    EXPECT_EQ(pools.poolCount(), 2u);
    // A set needing more than a whole default pool gets a pool sized for it.
    const UniqueDescriptorSetLayout huge = storageLayout(40);
    const std::vector<VkDescriptorPoolSize> huge_set = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 40}};
    taken.push_back(pools.allocate(huge.get(), huge_set, "huge"));
    EXPECT_EQ(pools.poolCount(), 3u);
    pools.free(taken.back(), huge_set);
    taken.pop_back();
    for (const auto& a : taken) pools.free(a, per_set);
    EXPECT_EQ(pools.poolCount(), 1u);
}

TEST(DescriptorPools, RandomAllocationsAndFreesOfTwoLayoutsEndWithOnePool) {
    VKD_REQUIRE_DEVICE();
    const auto plan = copyPlan();
    const UniqueDescriptorSetLayout wide = storageLayout(6);
    struct Kind {
        VkDescriptorSetLayout layout;
        std::vector<VkDescriptorPoolSize> per_set;
    };
    const Kind kinds[] = {{plan->forQueue(0).set_layout.get(), kCopySet},
                          {wide.get(), {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 6}}}};
    DescriptorPools pools(device(), 16);
    std::mt19937 rng(7);
    std::vector<std::pair<DescriptorPools::Allocation, int>> live;
    size_t most_pools = 0;
    for (int step = 0; step < 2000; ++step) {
        if (!live.empty() && rng() % 100 < 45) {
            const size_t i = rng() % live.size();
            pools.free(live[i].first, kinds[live[i].second].per_set);
            live[i] = live.back();
            live.pop_back();
        } else {
            const int k = static_cast<int>(rng() % 2);
            live.emplace_back(pools.allocate(kinds[k].layout, kinds[k].per_set, "random"), k);
        }
        most_pools = std::max(most_pools, pools.poolCount());
    }
    EXPECT_GT(most_pools, 2u);
    for (const auto& [allocation, k] : live) pools.free(allocation, kinds[k].per_set);
    EXPECT_EQ(pools.poolCount(), 1u);
}

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
