#pragma once
// The plain Vulkan objects of the benchmarks' reference loops (raw_submit.cpp,
// queue_phases.cpp), owned here so that each loop shows only the calls it times.

#include <cstdint>

#include "vkdispatch/errors.hpp"
#include "vkdispatch/handle.hpp"
#include "vkdispatch/queue.hpp"

namespace vkdispatch::bench {

/// A command pool of the queue's family (its buffers resettable one by one) with one primary
/// command buffer, and a fence (unsignalled).
class RawCommandBuffer {
public:
    explicit RawCommandBuffer(const Queue& queue) : m_device(queue.device()) {
        VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pool_info.queueFamilyIndex = queue.family();
        VkCommandPool pool;
        VK_CHECK(vkCreateCommandPool(m_device, &pool_info, nullptr, &pool), "command pool");
        m_pool = UniqueCommandPool(m_device, pool);
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = pool;
        alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        alloc.commandBufferCount = 1;
        VK_CHECK(vkAllocateCommandBuffers(m_device, &alloc, &m_cb), "command buffer");
        VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VK_CHECK(vkCreateFence(m_device, &fence_info, nullptr, &m_fence), "fence");
    }
    ~RawCommandBuffer() { vkDestroyFence(m_device, m_fence, nullptr); }
    RawCommandBuffer(const RawCommandBuffer&) = delete;
    RawCommandBuffer& operator=(const RawCommandBuffer&) = delete;

    VkCommandBuffer cb() const noexcept { return m_cb; }
    VkFence fence() const noexcept { return m_fence; }

private:
    VkDevice m_device;
    UniqueCommandPool m_pool;
    VkCommandBuffer m_cb = VK_NULL_HANDLE;  // freed with the pool
    VkFence m_fence = VK_NULL_HANDLE;
};

inline UniqueSemaphore createTimeline(VkDevice device) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    info.pNext = &type;
    VkSemaphore timeline;
    VK_CHECK(vkCreateSemaphore(device, &info, nullptr, &timeline), "timeline");
    return UniqueSemaphore(device, timeline);
}

/// Submits `count` command buffers, the submission signalling `value` on `timeline`.
inline void submitSignalling(VkQueue queue, const VkCommandBuffer* cbs, uint32_t count,
                             VkSemaphore timeline, uint64_t value) {
    VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    values.signalSemaphoreValueCount = 1;
    values.pSignalSemaphoreValues = &value;
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.pNext = &values;
    submit.commandBufferCount = count;
    submit.pCommandBuffers = cbs;
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &timeline;
    VK_CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE), "submit");
}

/// Spins on the timeline's counter until it reaches `value`.
inline void spinUntil(VkDevice device, VkSemaphore timeline, uint64_t value) {
    uint64_t reached = 0;
    while (reached < value)
        VK_CHECK(vkGetSemaphoreCounterValue(device, timeline, &reached), "timeline counter");
}

/// Submits `cb` with `fence` and spins on the fence until it signals, then resets it.
inline void submitAndPollFence(const Queue& queue, VkCommandBuffer cb, VkFence fence) {
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    VK_CHECK(vkQueueSubmit(queue.handle(), 1, &submit, fence), "submit");
    VkResult status;
    while ((status = vkGetFenceStatus(queue.device(), fence)) == VK_NOT_READY) {
    }
    VK_CHECK(status, "fence status");
    VK_CHECK(vkResetFences(queue.device(), 1, &fence), "reset fence");
}

}  // namespace vkdispatch::bench
