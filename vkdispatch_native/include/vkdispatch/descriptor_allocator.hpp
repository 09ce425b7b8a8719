#pragma once
// Descriptor sets of one layout, carved from a growing list of pools and reused once freed, so a
// new DescriptorSet costs a free-list pop or one vkAllocateDescriptorSets rather than a pool of
// its own.
//
// Thread safety: allocate() and release() may be called from any thread (an internal mutex);
// release() may run inside a queue's deferred deletions.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "vkdispatch/handle.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class DescriptorAllocator {
public:
    /// Sets of `layout` (which must outlive every allocate() call) needing `per_set`
    /// descriptors of each type; `label` names them in errors.
    DescriptorAllocator(VkDevice device, VkDescriptorSetLayout layout,
                        std::vector<VkDescriptorPoolSize> per_set, std::string label);
    DescriptorAllocator(const DescriptorAllocator&) = delete;
    DescriptorAllocator& operator=(const DescriptorAllocator&) = delete;

    /// A set with undefined contents (a released one, or a new one from a pool).
    VkDescriptorSet allocate();
    /// Takes `set` back for reuse; the GPU must no longer use it.
    void release(VkDescriptorSet set);

    /// Pools created so far (for tests).
    size_t poolCount() const;
    /// Capacity in sets of the `index`-th pool: pools double from 16 to 1024 sets.
    static uint32_t poolCapacity(size_t index) noexcept;

private:
    VkDescriptorSet allocateFromNewPool();  // m_mutex held
    // One set of m_layout from `pool`.
    VkResult allocateFrom(VkDescriptorPool pool, VkDescriptorSet* set) const;

    VkDevice m_device;
    VkDescriptorSetLayout m_layout;
    std::vector<VkDescriptorPoolSize> m_per_set;
    std::string m_label;
    mutable std::mutex m_mutex;
    std::vector<UniqueDescriptorPool> m_pools;  // sets are freed with their pool
    uint32_t m_sets_in_last_pool = 0;
    std::vector<VkDescriptorSet> m_released;
};

}  // namespace vkdispatch
