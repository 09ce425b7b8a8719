#pragma once
// A device's descriptor pools, shared by the descriptor sets of every plan. Owned by the Device,
// which creates the first pool with itself and allocates (and frees) one set from it: NVIDIA's
// first descriptor-set allocation of a process costs 0.17-0.2 ms (later ones 3-5 us), which
// would otherwise land on the first kernel; and a pool of each plan's own would cost every new
// kernel a vkCreateDescriptorPool.
//
// Pools are created with VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT so that a plan's sets
// go back when the plan is destroyed. Each pool's remaining sets and descriptors are counted, so
// no allocation exceeds a pool's limits (some drivers never report an exhausted pool); an empty
// pool other than the first is destroyed.
//
// Thread safety: allocate() and free() may run on any thread (an internal mutex).
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vkdispatch/handle.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class DescriptorPools {
    struct Pool;

public:
    /// One set and the pool it came from (to give it back).
    struct Allocation {
        VkDescriptorSet set = VK_NULL_HANDLE;
        Pool* pool = nullptr;
    };

    /// Pools of `sets_per_pool` sets, with 4 storage buffers, 1 uniform buffer and 1 sampler
    /// per set on average; a set needing more than a whole pool gets a pool sized for it.
    explicit DescriptorPools(VkDevice device, uint32_t sets_per_pool = 1024);
    ~DescriptorPools();
    DescriptorPools(const DescriptorPools&) = delete;
    DescriptorPools& operator=(const DescriptorPools&) = delete;

    /// A set of `layout` needing `per_set` descriptors of each type. Throws VulkanError (naming
    /// `label`) when the driver cannot create a pool or allocate from a fresh one.
    Allocation allocate(VkDescriptorSetLayout layout,
                        const std::vector<VkDescriptorPoolSize>& per_set,
                        const std::string& label);
    /// Gives `allocation` (made with these `per_set` counts) back; the GPU must no longer use it.
    void free(const Allocation& allocation, const std::vector<VkDescriptorPoolSize>& per_set);

    /// Pools alive now (for tests).
    size_t poolCount() const;

private:
    Pool& createPool(const std::vector<VkDescriptorPoolSize>& per_set);  // m_mutex held
    void allocateAndFreeOneSet();  // the driver's one-time set-up, at construction

    VkDevice m_device;
    uint32_t m_sets_per_pool;
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Pool>> m_pools;  // m_pools[0] lives as long as this object
};

}  // namespace vkdispatch
