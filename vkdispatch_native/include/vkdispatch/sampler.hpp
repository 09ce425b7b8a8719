#pragma once
// How shaders sample an image: filters, address mode, level-of-detail range and border colour,
// as a VkSampler on each device of a context (normalized coordinates, no anisotropy).
//
// Thread safety: the object may be shared; last-use values are atomic.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "vkdispatch/handle.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class Context;

struct SamplerSpec {
    VkFilter mag_filter = VK_FILTER_LINEAR;
    VkFilter min_filter = VK_FILTER_LINEAR;
    VkSamplerMipmapMode mip_mode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
    VkSamplerAddressMode address_mode = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;  // u, v and w
    float mip_lod_bias = 0.0f;
    float min_lod = 0.0f;
    float max_lod = 0.0f;
    VkBorderColor border_color = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
};

class Sampler {
public:
    /// Throws InvalidArgumentError for min_lod > max_lod; the context must outlive it.
    Sampler(Context& context, const SamplerSpec& spec);
    /// Each device's sampler goes once every queue has finished the last work that used it.
    ~Sampler();
    Sampler(const Sampler&) = delete;
    Sampler& operator=(const Sampler&) = delete;

    Context& context() const noexcept { return m_context; }
    const SamplerSpec& spec() const noexcept { return m_spec; }
    /// The sampler of the device of queue `queue_index`.
    VkSampler forQueue(int queue_index) const;
    /// Records that submission `value` on queue `queue_index` uses this sampler.
    void markUsed(int queue_index, uint64_t value) noexcept;

private:
    Context& m_context;
    SamplerSpec m_spec;
    std::vector<std::shared_ptr<UniqueSampler>> m_devices;  // by device index in the context
    std::unique_ptr<std::atomic<uint64_t>[]> m_last_use;    // by queue
};

}  // namespace vkdispatch
