#pragma once
// Move-only owner of one Vulkan handle, destroyed with its parent device (or instance).
#include <utility>

#include "vkdispatch/vk.hpp"

namespace vkdispatch {

template <typename Handle, typename Parent, void (*Destroy)(Parent, Handle)>
class UniqueHandle {
public:
    UniqueHandle() = default;
    UniqueHandle(Parent parent, Handle handle) : m_parent(parent), m_handle(handle) {}
    UniqueHandle(UniqueHandle&& other) noexcept
        : m_parent(other.m_parent), m_handle(std::exchange(other.m_handle, Handle{})) {}
    UniqueHandle& operator=(UniqueHandle&& other) noexcept {
        if (this != &other) {
            reset();
            m_parent = other.m_parent;
            m_handle = std::exchange(other.m_handle, Handle{});
        }
        return *this;
    }
    UniqueHandle(const UniqueHandle&) = delete;
    UniqueHandle& operator=(const UniqueHandle&) = delete;
    ~UniqueHandle() { reset(); }

    Handle get() const noexcept { return m_handle; }
    explicit operator bool() const noexcept { return m_handle != Handle{}; }
    void reset() noexcept {
        if (m_handle != Handle{}) Destroy(m_parent, std::exchange(m_handle, Handle{}));
    }

private:
    Parent m_parent{};
    Handle m_handle{};
};

namespace detail {
inline void destroyBuffer(VkDevice d, VkBuffer h) { vkDestroyBuffer(d, h, nullptr); }
inline void destroyImage(VkDevice d, VkImage h) { vkDestroyImage(d, h, nullptr); }
inline void destroyImageView(VkDevice d, VkImageView h) { vkDestroyImageView(d, h, nullptr); }
inline void destroySampler(VkDevice d, VkSampler h) { vkDestroySampler(d, h, nullptr); }
inline void freeMemory(VkDevice d, VkDeviceMemory h) { vkFreeMemory(d, h, nullptr); }
inline void destroySemaphore(VkDevice d, VkSemaphore h) { vkDestroySemaphore(d, h, nullptr); }
inline void destroyCommandPool(VkDevice d, VkCommandPool h) { vkDestroyCommandPool(d, h, nullptr); }
inline void destroyQueryPool(VkDevice d, VkQueryPool h) { vkDestroyQueryPool(d, h, nullptr); }
inline void destroyShaderModule(VkDevice d, VkShaderModule h) {
    vkDestroyShaderModule(d, h, nullptr);
}
inline void destroyDescriptorSetLayout(VkDevice d, VkDescriptorSetLayout h) {
    vkDestroyDescriptorSetLayout(d, h, nullptr);
}
inline void destroyPipelineLayout(VkDevice d, VkPipelineLayout h) {
    vkDestroyPipelineLayout(d, h, nullptr);
}
inline void destroyPipeline(VkDevice d, VkPipeline h) { vkDestroyPipeline(d, h, nullptr); }
inline void destroyPipelineCache(VkDevice d, VkPipelineCache h) {
    vkDestroyPipelineCache(d, h, nullptr);
}
inline void destroyDescriptorPool(VkDevice d, VkDescriptorPool h) {
    vkDestroyDescriptorPool(d, h, nullptr);
}
}  // namespace detail

using UniqueBuffer = UniqueHandle<VkBuffer, VkDevice, detail::destroyBuffer>;
using UniqueImage = UniqueHandle<VkImage, VkDevice, detail::destroyImage>;
using UniqueImageView = UniqueHandle<VkImageView, VkDevice, detail::destroyImageView>;
using UniqueSampler = UniqueHandle<VkSampler, VkDevice, detail::destroySampler>;
using UniqueMemory = UniqueHandle<VkDeviceMemory, VkDevice, detail::freeMemory>;
using UniqueSemaphore = UniqueHandle<VkSemaphore, VkDevice, detail::destroySemaphore>;
using UniqueCommandPool = UniqueHandle<VkCommandPool, VkDevice, detail::destroyCommandPool>;
using UniqueQueryPool = UniqueHandle<VkQueryPool, VkDevice, detail::destroyQueryPool>;
using UniqueShaderModule = UniqueHandle<VkShaderModule, VkDevice, detail::destroyShaderModule>;
using UniqueDescriptorSetLayout =
    UniqueHandle<VkDescriptorSetLayout, VkDevice, detail::destroyDescriptorSetLayout>;
using UniquePipelineLayout =
    UniqueHandle<VkPipelineLayout, VkDevice, detail::destroyPipelineLayout>;
using UniquePipeline = UniqueHandle<VkPipeline, VkDevice, detail::destroyPipeline>;
using UniquePipelineCache = UniqueHandle<VkPipelineCache, VkDevice, detail::destroyPipelineCache>;
using UniqueDescriptorPool =
    UniqueHandle<VkDescriptorPool, VkDevice, detail::destroyDescriptorPool>;

}  // namespace vkdispatch
