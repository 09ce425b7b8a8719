#include "vkdispatch/command.hpp"

namespace vkdispatch {
namespace {

constexpr VkPipelineStageFlags kStageFlags[kStageCount] = {
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
    VK_PIPELINE_STAGE_HOST_BIT};
// A compute read may come through a uniform or a storage binding.
constexpr VkAccessFlags kReadFlags[kStageCount] = {
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_UNIFORM_READ_BIT, VK_ACCESS_TRANSFER_READ_BIT,
    VK_ACCESS_HOST_READ_BIT};
constexpr VkAccessFlags kWriteFlags[kStageCount] = {
    VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_WRITE_BIT};

}  // namespace

VkPipelineStageFlags vulkanStages(AccessMask mask) noexcept {
    VkPipelineStageFlags flags = 0;
    for (int s = 0; s < kStageCount; ++s)
        if (touchesStage(mask, static_cast<Stage>(s))) flags |= kStageFlags[s];
    return flags;
}

VkAccessFlags vulkanAccess(AccessMask mask) noexcept {
    VkAccessFlags flags = 0;
    for (int s = 0; s < kStageCount; ++s) {
        if (mask & accessBit(static_cast<Stage>(s), false)) flags |= kReadFlags[s];
        if (mask & accessBit(static_cast<Stage>(s), true)) flags |= kWriteFlags[s];
    }
    return flags;
}

void recordBarrier(VkCommandBuffer cb, const Barrier& barrier) {
    VkMemoryBarrier memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    // Earlier reads need only the execution dependency; earlier writes must be made available.
    memory.srcAccessMask = vulkanAccess(writeBits(barrier.src));
    memory.dstAccessMask = vulkanAccess(barrier.dst);
    vkCmdPipelineBarrier(cb, vulkanStages(barrier.src), vulkanStages(barrier.dst), 0, 1, &memory,
                         0, nullptr, 0, nullptr);
}

void recordAlone(VkCommandBuffer cb, Command& command, int queue_index) {
    RecordState state;
    state.queue_index = queue_index;
    std::vector<uint8_t> scratch;
    state.scratch = &scratch;
    command.record(cb, state, nullptr);
}

}  // namespace vkdispatch
