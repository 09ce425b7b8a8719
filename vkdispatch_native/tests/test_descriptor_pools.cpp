// DescriptorPools: the first pool exists from the start, pools grow when full and emptied extra
// pools go away, and each pool's descriptor counts are respected.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "compute_helpers.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_pools.hpp"

using namespace vkdispatch;
using test::context;

namespace {

VkDevice device() { return context().devices()[0]->handle(); }

/// A layout of `storage` storage buffers followed by `uniform` uniform buffers, with the
/// matching per-set descriptor counts.
struct Layout {
    UniqueDescriptorSetLayout handle;
    std::vector<VkDescriptorPoolSize> per_set;
};

Layout makeLayout(uint32_t storage, uint32_t uniform = 0) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (uint32_t j = 0; j < storage + uniform; ++j)
        bindings.push_back({j, j < storage ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                                           : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                            1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = static_cast<uint32_t>(bindings.size());
    info.pBindings = bindings.data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateDescriptorSetLayout(device(), &info, nullptr, &layout), VK_SUCCESS);
    Layout out{UniqueDescriptorSetLayout(device(), layout), {}};
    if (storage) out.per_set.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, storage});
    if (uniform) out.per_set.push_back({VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, uniform});
    return out;
}

}  // namespace

TEST(DescriptorPools, FirstPoolExistsFromTheStartAndFullPoolsAddPools) {
    VKD_REQUIRE_DEVICE();
    const Layout copy = makeLayout(2, 1);
    DescriptorPools pools(device(), 4);
    EXPECT_EQ(pools.poolCount(), 1u);
    std::vector<DescriptorPools::Allocation> taken;
    for (int i = 0; i < 10; ++i)
        taken.push_back(pools.allocate(copy.handle.get(), copy.per_set, "copy"));
    std::set<VkDescriptorSet> distinct;
    for (const auto& a : taken) distinct.insert(a.set);
    EXPECT_EQ(distinct.size(), taken.size());
    EXPECT_EQ(pools.poolCount(), 3u);  // 4 + 4 + 2 sets
    for (size_t i = 4; i < taken.size(); ++i) pools.free(taken[i], copy.per_set);
    EXPECT_EQ(pools.poolCount(), 1u) << "emptied extra pools are destroyed";
    for (size_t i = 0; i < 4; ++i) pools.free(taken[i], copy.per_set);
    EXPECT_EQ(pools.poolCount(), 1u) << "the first pool stays";
}

TEST(DescriptorPools, DescriptorCountsAreKeptWithinEachPool) {
    VKD_REQUIRE_DEVICE();
    // 4 sets of 16 storage buffers need 64 descriptors: a default pool of 8 sets holds 32.
    const Layout wide = makeLayout(16);
    DescriptorPools pools(device(), 8);
    std::vector<DescriptorPools::Allocation> taken;
    for (int i = 0; i < 4; ++i)
        taken.push_back(pools.allocate(wide.handle.get(), wide.per_set, "wide"));
    EXPECT_EQ(pools.poolCount(), 2u);
    // A set needing more than a whole default pool gets a pool sized for it.
    const Layout huge = makeLayout(40);
    const auto big = pools.allocate(huge.handle.get(), huge.per_set, "huge");
    EXPECT_EQ(pools.poolCount(), 3u);
    pools.free(big, huge.per_set);
    for (const auto& a : taken) pools.free(a, wide.per_set);
    EXPECT_EQ(pools.poolCount(), 1u);
}

TEST(DescriptorPools, RandomAllocationsAndFreesOfTwoLayoutsEndWithOnePool) {
    VKD_REQUIRE_DEVICE();
    const Layout kinds[] = {makeLayout(2, 1), makeLayout(6)};
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
            live.emplace_back(pools.allocate(kinds[k].handle.get(), kinds[k].per_set, "random"),
                              k);
        }
        most_pools = std::max(most_pools, pools.poolCount());
    }
    EXPECT_GT(most_pools, 2u);
    for (const auto& [allocation, k] : live) pools.free(allocation, kinds[k].per_set);
    EXPECT_EQ(pools.poolCount(), 1u);
}
