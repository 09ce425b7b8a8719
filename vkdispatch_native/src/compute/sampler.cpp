#include "vkdispatch/sampler.hpp"

#include <cmath>
#include <string>

#include "vkdispatch/atomic_max.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"

namespace vkdispatch {

Sampler::Sampler(Context& context, const SamplerSpec& spec)
    : m_context(context),
      m_spec(spec),
      m_last_use(new std::atomic<uint64_t>[static_cast<size_t>(context.queueCount())]) {
    if (spec.min_lod > spec.max_lod)
        throw InvalidArgumentError("min_lod: " + std::to_string(spec.min_lod) +
                                   " is above max_lod " + std::to_string(spec.max_lod));
    for (int q = 0; q < context.queueCount(); ++q) m_last_use[q] = 0;
    VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    info.magFilter = spec.mag_filter;
    info.minFilter = spec.min_filter;
    info.mipmapMode = spec.mip_mode;
    info.addressModeU = info.addressModeV = info.addressModeW = spec.address_mode;
    info.mipLodBias = spec.mip_lod_bias;
    info.minLod = spec.min_lod;
    info.maxLod = spec.max_lod;
    info.borderColor = spec.border_color;
    for (const auto& device : context.devices()) {
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(device->physical(), &properties);
        if (!(std::fabs(spec.mip_lod_bias) <= properties.limits.maxSamplerLodBias))
            throw InvalidArgumentError(
                "mip_lod_bias: " + std::to_string(spec.mip_lod_bias) + " is beyond device '" +
                device->info().device_name + "'s maxSamplerLodBias of " +
                std::to_string(properties.limits.maxSamplerLodBias));
        if (spec.address_mode == VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE &&
            !device->mirrorClampToEdge())
            throw InvalidArgumentError("address_mode: device '" + device->info().device_name +
                                       "' does not offer MIRROR_CLAMP_TO_EDGE");
        VkSampler sampler = VK_NULL_HANDLE;
        VK_CHECK(vkCreateSampler(device->handle(), &info, nullptr, &sampler),
                 "creating a sampler on '" + device->info().device_name + "'");
        m_devices.push_back(std::make_shared<UniqueSampler>(device->handle(), sampler));
    }
}

Sampler::~Sampler() {
    for (int q = 0; q < m_context.queueCount(); ++q) {
        // Each queue's deleter holds the device's sampler; the last one to run frees it.
        std::shared_ptr<UniqueSampler> held = m_devices[m_context.deviceIndexOfQueue(q)];
        try {
            m_context.queue(q).retire(m_last_use[q].load(), [held] {});
        } catch (...) {
            // Device lost or memory exhausted: the sampler is freed when `held` goes.
        }
    }
}

VkSampler Sampler::forQueue(int queue_index) const {
    return m_devices[m_context.deviceIndexOfQueue(queue_index)]->get();
}

void Sampler::markUsed(int queue_index, uint64_t value) noexcept {
    detail::raiseTo(m_last_use[queue_index], value);
}

}  // namespace vkdispatch
