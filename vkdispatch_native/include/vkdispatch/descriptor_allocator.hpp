#pragma once
// Descriptor sets of one plan's layout on one device, taken from the device's shared pools
// (DescriptorPools) and reused once released, so a new DescriptorSet usually costs a free-list
// pop. Every set goes back to the pools when the allocator is destroyed.
//
// Thread safety: allocate() and release() may be called from any thread (an internal mutex);
// release() may run inside a queue's deferred deletions.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "vkdispatch/descriptor_pools.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class DescriptorAllocator {
public:
    /// Sets of `layout` (which must outlive every allocate() call) needing `per_set`
    /// descriptors of each type, from `pools` (which must outlive the allocator); `label` names
    /// them in errors.
    DescriptorAllocator(DescriptorPools& pools, VkDescriptorSetLayout layout,
                        std::vector<VkDescriptorPoolSize> per_set, std::string label);
    /// Gives every set back to the pools: each must have been released.
    ~DescriptorAllocator();
    DescriptorAllocator(const DescriptorAllocator&) = delete;
    DescriptorAllocator& operator=(const DescriptorAllocator&) = delete;

    /// A set with undefined contents (a released one, or a new one from the pools).
    VkDescriptorSet allocate();
    /// Takes `set` back for reuse; the GPU must no longer use it.
    void release(VkDescriptorSet set);

    /// Sets taken from the pools so far (for tests).
    size_t setCount() const;

private:
    DescriptorPools& m_pools;
    VkDescriptorSetLayout m_layout;
    std::vector<VkDescriptorPoolSize> m_per_set;
    std::string m_label;
    mutable std::mutex m_mutex;
    std::vector<DescriptorPools::Allocation> m_owned;
    std::vector<VkDescriptorSet> m_released;
};

}  // namespace vkdispatch
