#pragma once
// ReplicatedImage in the shape Cython can declare: Vulkan's enums as ints. Only wrapper.pyx's
// translation unit includes this header.
#include <memory>

#include "vkdispatch/context.hpp"
#include "vkdispatch/replicated_image.hpp"

namespace vkdispatch::bindings {

inline ReplicatedImage* makeImage(Context& context, int view_type, int format, uint32_t width,
                                  uint32_t height, uint32_t depth, uint32_t layers) {
    ImageSpec spec;
    spec.view_type = static_cast<VkImageViewType>(view_type);
    spec.format = static_cast<VkFormat>(format);
    spec.extent = {width, height, depth};
    spec.layers = layers;
    return new ReplicatedImage(context, spec);
}

}  // namespace vkdispatch::bindings
