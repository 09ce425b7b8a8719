#pragma once
// What tensors and images both record: a barrier on one buffer, and their descriptor write.
#include "kompute/Core.hpp"

namespace kp::detail {

inline void bufferBarrier(const vk::CommandBuffer& cb, VkBuffer buffer, uint64_t bytes,
                          vk::AccessFlagBits src_access, vk::AccessFlagBits dst_access,
                          vk::PipelineStageFlagBits src_stage,
                          vk::PipelineStageFlagBits dst_stage) {
    const vk::BufferMemoryBarrier barrier(src_access, dst_access, VK_QUEUE_FAMILY_IGNORED,
                                          VK_QUEUE_FAMILY_IGNORED, vk::Buffer(buffer), 0, bytes);
    cb.pipelineBarrier(src_stage, dst_stage, {}, nullptr, barrier, nullptr);
}

/// Writes one descriptor of `type` (a buffer's or an image's info) into `binding` of `set`.
inline void writeDescriptor(VkDevice device, VkDescriptorSet set, uint32_t binding,
                            VkDescriptorType type, const VkDescriptorBufferInfo* buffer,
                            const VkDescriptorImageInfo* image) {
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = binding;
    write.descriptorCount = 1;
    write.descriptorType = type;
    write.pBufferInfo = buffer;
    write.pImageInfo = image;
    vkUpdateDescriptorSets(device, 1, &write, 0, nullptr);
}

}  // namespace kp::detail
