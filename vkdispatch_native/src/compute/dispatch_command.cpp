#include "vkdispatch/dispatch_command.hpp"

#include <cstring>
#include <string>

#include "vkdispatch/atomic_max.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/replicated_image.hpp"
#include "vkdispatch/sampler.hpp"

namespace vkdispatch {

void checkWorkgroupCounts(const std::array<uint32_t, 3>& blocks,
                          const std::array<uint32_t, 3>& limits) {
    static const char* const kAxes[3] = {"x", "y", "z"};
    for (int axis = 0; axis < 3; ++axis) {
        if (blocks[axis] == 0 || blocks[axis] > limits[axis])
            throw InvalidArgumentError(
                std::string("blocks: ") + kAxes[axis] + " = " + std::to_string(blocks[axis]) +
                " workgroups; expected 1.." + std::to_string(limits[axis]) +
                " (maxComputeWorkGroupCount[" + std::to_string(axis) + "])");
    }
}

DispatchCommand::DispatchCommand(ComputePlan& plan, DescriptorSet& set,
                                 std::array<uint32_t, 3> blocks)
    : Command(plan.context()), m_plan(plan), m_set(set), m_blocks(blocks) {
    if (&set.plan() != &plan)
        throw InvalidArgumentError("descriptor_set: the set was made for '" + set.plan().name() +
                                   "', not for '" + plan.name() + "'");
    checkWorkgroupCounts(blocks, plan.context().maxWorkgroupCount());
}

const std::vector<ResourceAccess>& DispatchCommand::accesses() const noexcept {
    return m_set.accesses();
}

uint32_t DispatchCommand::pushConstantSize() const noexcept { return m_plan.pushConstantSize(); }

void DispatchCommand::checkReady() const { m_set.checkComplete(); }

uint64_t DispatchCommand::version() const noexcept { return m_set.version(); }

void DispatchCommand::record(VkCommandBuffer cb, RecordState& state,
                             const uint8_t* push_constants) {
    const ComputePlan::DeviceObjects& objects = m_plan.forQueue(state.queue_index);
    const VkPipeline pipeline = objects.pipeline.get();
    const VkPipelineLayout layout = objects.layout.get();
    const bool new_pipeline = pipeline != state.bound_pipeline;
    if (new_pipeline) {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        state.bound_pipeline = pipeline;
    }
    const VkDescriptorSet set = m_set.handle(state.queue_index);
    if (set != VK_NULL_HANDLE && (new_pipeline || set != state.bound_set)) {
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0,
                                nullptr);
        state.bound_set = set;
    }
    const uint32_t pc_size = m_plan.pushConstantSize();
    if (pc_size > 0) {
        const uint8_t* data = push_constants;
        const uint32_t range = pushConstantRangeSize(pc_size);
        if (range != pc_size) {
            state.scratch->assign(range, 0);
            std::memcpy(state.scratch->data(), data, pc_size);
            data = state.scratch->data();
        }
        vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, range, data);
    }
    vkCmdDispatch(cb, m_blocks[0], m_blocks[1], m_blocks[2]);
}

void DispatchCommand::markUsed(int queue_index, uint64_t value) noexcept {
    m_plan.markUsed(queue_index, value);
    m_set.markUsed(queue_index, value);
    for (const DescriptorSet::BufferBinding& bound : m_set.bindings()) {
        if (bound.buffer != nullptr)
            detail::raiseTo(bound.buffer->replica(queue_index).last_use, value);
        if (bound.image != nullptr) {
            detail::raiseTo(bound.image->replica(queue_index).last_use, value);
            bound.sampler->markUsed(queue_index, value);
        }
    }
}

std::string DispatchCommand::label() const { return m_plan.name(); }

}  // namespace vkdispatch
