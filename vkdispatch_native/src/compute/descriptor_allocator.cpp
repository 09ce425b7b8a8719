#include "vkdispatch/descriptor_allocator.hpp"

#include <algorithm>
#include <utility>

#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

constexpr uint32_t kFirstPoolSets = 16;
constexpr uint32_t kLargestPoolSets = 1024;

}  // namespace

DescriptorAllocator::DescriptorAllocator(VkDevice device, VkDescriptorSetLayout layout,
                                         std::vector<VkDescriptorPoolSize> per_set,
                                         std::string label)
    : m_device(device),
      m_layout(layout),
      m_per_set(std::move(per_set)),
      m_label(std::move(label)) {}

uint32_t DescriptorAllocator::poolCapacity(size_t index) noexcept {
    const size_t doublings = std::min<size_t>(index, 6);  // 16 << 6 = 1024
    return std::min(kLargestPoolSets, kFirstPoolSets << doublings);
}

size_t DescriptorAllocator::poolCount() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_pools.size();
}

VkDescriptorSet DescriptorAllocator::allocate() {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_released.empty()) {
        const VkDescriptorSet set = m_released.back();
        m_released.pop_back();
        return set;
    }
    // Pools are sized exactly, so counting sets keeps every allocation within a pool's limits
    // (some drivers never report an exhausted pool).
    if (!m_pools.empty() && m_sets_in_last_pool < poolCapacity(m_pools.size() - 1)) {
        VkDescriptorSet set = VK_NULL_HANDLE;
        const VkResult result = allocateFrom(m_pools.back().get(), &set);
        if (result == VK_SUCCESS) {
            ++m_sets_in_last_pool;
            return set;
        }
        if (result != VK_ERROR_OUT_OF_POOL_MEMORY && result != VK_ERROR_FRAGMENTED_POOL)
            VK_CHECK(result, "allocating a descriptor set for " + m_label);
    }
    return allocateFromNewPool();
}

VkDescriptorSet DescriptorAllocator::allocateFromNewPool() {
    const uint32_t sets = poolCapacity(m_pools.size());
    std::vector<VkDescriptorPoolSize> sizes = m_per_set;
    for (VkDescriptorPoolSize& size : sizes) size.descriptorCount *= sets;
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = sets;
    pool_info.poolSizeCount = static_cast<uint32_t>(sizes.size());
    pool_info.pPoolSizes = sizes.data();
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorPool(m_device, &pool_info, nullptr, &pool),
             "creating a descriptor pool for " + m_label);
    m_pools.emplace_back(m_device, pool);
    m_sets_in_last_pool = 0;
    VkDescriptorSet set = VK_NULL_HANDLE;
    VK_CHECK(allocateFrom(pool, &set), "allocating a descriptor set for " + m_label);
    m_sets_in_last_pool = 1;
    return set;
}

VkResult DescriptorAllocator::allocateFrom(VkDescriptorPool pool, VkDescriptorSet* set) const {
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &m_layout;
    return vkAllocateDescriptorSets(m_device, &alloc, set);
}

void DescriptorAllocator::release(VkDescriptorSet set) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_released.push_back(set);
}

}  // namespace vkdispatch
