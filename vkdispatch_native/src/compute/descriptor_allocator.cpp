#include "vkdispatch/descriptor_allocator.hpp"

#include <algorithm>
#include <utility>

namespace vkdispatch {

DescriptorAllocator::DescriptorAllocator(DescriptorPools& pools, VkDescriptorSetLayout layout,
                                         std::vector<VkDescriptorPoolSize> per_set,
                                         std::string label)
    : m_pools(pools),
      m_layout(layout),
      m_per_set(std::move(per_set)),
      m_label(std::move(label)) {}

DescriptorAllocator::~DescriptorAllocator() {
    for (const DescriptorPools::Allocation& allocation : m_owned)
        m_pools.free(allocation, m_per_set);
}

size_t DescriptorAllocator::setCount() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_owned.size();
}

VkDescriptorSet DescriptorAllocator::allocate() {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_released.empty()) {
        const VkDescriptorSet set = m_released.back();
        m_released.pop_back();
        return set;
    }
    // Room first, so that a set taken from the pools is never lost to a failed push_back.
    if (m_owned.size() == m_owned.capacity())
        m_owned.reserve(std::max<size_t>(16, 2 * m_owned.size()));
    m_owned.push_back(m_pools.allocate(m_layout, m_per_set, m_label));
    return m_owned.back().set;
}

void DescriptorAllocator::release(VkDescriptorSet set) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_released.push_back(set);
}

}  // namespace vkdispatch
