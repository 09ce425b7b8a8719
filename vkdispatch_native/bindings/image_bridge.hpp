#pragma once
// ReplicatedImage and Sampler in the shape Cython can declare: Vulkan's enums as ints. Only wrapper.pyx's
// translation unit includes this header.
#include <memory>

#include "vkdispatch/context.hpp"
#include "vkdispatch/replicated_image.hpp"
#include "vkdispatch/sampler.hpp"

namespace vkdispatch::bindings {

inline ReplicatedImage* makeImage(Context& context, int view_type, int format, uint32_t width,
                                  uint32_t height, uint32_t depth, uint32_t layers,
                                  uint32_t mip_levels) {
    ImageSpec spec;
    spec.view_type = static_cast<VkImageViewType>(view_type);
    spec.format = static_cast<VkFormat>(format);
    spec.extent = {width, height, depth};
    spec.layers = layers;
    spec.mip_levels = mip_levels;
    return new ReplicatedImage(context, spec);
}

inline Sampler* makeSampler(Context& context, int mag_filter, int min_filter, int mip_mode,
                            int address_mode, float mip_lod_bias, float min_lod, float max_lod,
                            int border_color) {
    SamplerSpec spec;
    spec.mag_filter = static_cast<VkFilter>(mag_filter);
    spec.min_filter = static_cast<VkFilter>(min_filter);
    spec.mip_mode = static_cast<VkSamplerMipmapMode>(mip_mode);
    spec.address_mode = static_cast<VkSamplerAddressMode>(address_mode);
    spec.mip_lod_bias = mip_lod_bias;
    spec.min_lod = min_lod;
    spec.max_lod = max_lod;
    spec.border_color = static_cast<VkBorderColor>(border_color);
    return new Sampler(context, spec);
}

}  // namespace vkdispatch::bindings
