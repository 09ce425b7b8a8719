#include "vkdispatch/descriptor_pools.hpp"

#include <algorithm>

#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

// Descriptors of each type per set, on average, in a pool of the default size.
constexpr VkDescriptorPoolSize kAverageSet[] = {
    {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4},
    {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1},
    {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1},
};

uint32_t countOf(const std::vector<VkDescriptorPoolSize>& sizes, VkDescriptorType type) {
    for (const VkDescriptorPoolSize& size : sizes)
        if (size.type == type) return size.descriptorCount;
    return 0;
}

}  // namespace

struct DescriptorPools::Pool {
    UniqueDescriptorPool handle;
    uint32_t sets = 0;                       // capacity
    uint32_t sets_left = 0;
    std::vector<VkDescriptorPoolSize> left;  // descriptors not allocated, per type

    bool fits(const std::vector<VkDescriptorPoolSize>& per_set) const {
        if (sets_left == 0) return false;
        for (const VkDescriptorPoolSize& need : per_set)
            if (countOf(left, need.type) < need.descriptorCount) return false;
        return true;
    }
    /// One set of `info`'s layout from this pool, counted when the driver gives it.
    VkResult allocate(VkDevice device, VkDescriptorSetAllocateInfo info,
                      const std::vector<VkDescriptorPoolSize>& per_set, VkDescriptorSet* set) {
        info.descriptorPool = handle.get();
        const VkResult result = vkAllocateDescriptorSets(device, &info, set);
        if (result != VK_SUCCESS) return result;
        --sets_left;
        for (VkDescriptorPoolSize& entry : left)
            entry.descriptorCount -= countOf(per_set, entry.type);
        return result;
    }
    void giveBack(const std::vector<VkDescriptorPoolSize>& per_set) {
        ++sets_left;
        for (VkDescriptorPoolSize& entry : left)
            entry.descriptorCount += countOf(per_set, entry.type);
    }
    bool empty() const { return sets_left == sets; }
};

DescriptorPools::DescriptorPools(VkDevice device, uint32_t sets_per_pool)
    : m_device(device), m_sets_per_pool(std::max<uint32_t>(1, sets_per_pool)) {
    createPool({});
    allocateAndFreeOneSet();
}

void DescriptorPools::allocateAndFreeOneSet() {
    VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                         VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = 1;
    info.pBindings = &binding;
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorSetLayout(m_device, &info, nullptr, &layout),
             "creating a descriptor-set layout");
    const UniqueDescriptorSetLayout owner(m_device, layout);
    const std::vector<VkDescriptorPoolSize> per_set = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}};
    free(allocate(layout, per_set, "the first descriptor set"), per_set);
}

DescriptorPools::~DescriptorPools() = default;

DescriptorPools::Pool& DescriptorPools::createPool(
        const std::vector<VkDescriptorPoolSize>& per_set) {
    auto pool = std::make_unique<Pool>();
    pool->sets = pool->sets_left = m_sets_per_pool;
    std::vector<VkDescriptorPoolSize> size;
    for (const VkDescriptorPoolSize& average : kAverageSet)
        size.push_back({average.type, std::max(average.descriptorCount * m_sets_per_pool,
                                               countOf(per_set, average.type))});
    for (const VkDescriptorPoolSize& need : per_set)  // a type no average set has
        if (countOf(size, need.type) == 0)
            size.push_back({need.type, need.descriptorCount * m_sets_per_pool});
    pool->left = size;
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    info.maxSets = pool->sets;
    info.poolSizeCount = static_cast<uint32_t>(size.size());
    info.pPoolSizes = size.data();
    VkDescriptorPool handle = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorPool(m_device, &info, nullptr, &handle),
             "creating a descriptor pool");
    pool->handle = UniqueDescriptorPool(m_device, handle);
    m_pools.push_back(std::move(pool));
    return *m_pools.back();
}

DescriptorPools::Allocation DescriptorPools::allocate(
        VkDescriptorSetLayout layout, const std::vector<VkDescriptorPoolSize>& per_set,
        const std::string& label) {
    VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorSetCount = 1;
    info.pSetLayouts = &layout;
    std::lock_guard<std::mutex> lock(m_mutex);
    VkDescriptorSet set = VK_NULL_HANDLE;
    // First fit, so that later pools empty out and are destroyed.
    for (const auto& pool : m_pools) {
        if (!pool->fits(per_set)) continue;
        const VkResult result = pool->allocate(m_device, info, per_set, &set);
        if (result == VK_SUCCESS) return {set, pool.get()};
        if (result != VK_ERROR_OUT_OF_POOL_MEMORY && result != VK_ERROR_FRAGMENTED_POOL)
            VK_CHECK(result, "allocating a descriptor set for " + label);
    }
    Pool& pool = createPool(per_set);
    VK_CHECK(pool.allocate(m_device, info, per_set, &set),
             "allocating a descriptor set for " + label);
    return {set, &pool};
}

void DescriptorPools::free(const Allocation& allocation,
                           const std::vector<VkDescriptorPoolSize>& per_set) {
    std::lock_guard<std::mutex> lock(m_mutex);
    Pool& pool = *allocation.pool;
    // Only fails on a lost device, where the set is gone with the pool anyway.
    vkFreeDescriptorSets(m_device, pool.handle.get(), 1, &allocation.set);
    pool.giveBack(per_set);
    if (pool.empty() && &pool != m_pools.front().get()) {
        m_pools.erase(std::find_if(m_pools.begin(), m_pools.end(),
                                   [&](const auto& p) { return p.get() == &pool; }));
    }
}

size_t DescriptorPools::poolCount() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_pools.size();
}

}  // namespace vkdispatch
