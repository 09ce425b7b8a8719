#include "vkdispatch/replica_dispatch.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_allocator.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/queue.hpp"
#include "vkdispatch/replica_submission.hpp"

namespace vkdispatch {
namespace {

// The replicas bound, checked against the plan and the queue.
std::vector<Buffer::Replica*> replicasOf(const ComputePlan& plan, const Queue& queue,
                                         const std::vector<ReplicaBinding>& bindings) {
    if (bindings.empty() || bindings.size() != plan.bindings().size())
        throw InvalidArgumentError("bindings: plan '" + plan.name() + "' has " +
                                   std::to_string(plan.bindings().size()) + " bindings, got " +
                                   std::to_string(bindings.size()));
    std::vector<Buffer::Replica*> replicas;
    for (size_t i = 0; i < bindings.size(); ++i) {
        const std::string what = "bindings: binding " + std::to_string(i);
        if (plan.bindings()[i] != BindingType::StorageBuffer)
            throw InvalidArgumentError(what + " of plan '" + plan.name() +
                                       "' is not a storage buffer");
        Buffer& buffer = *bindings[i].buffer;
        if (&buffer.context() != &plan.context())
            throw InvalidArgumentError(what + " is a buffer of another context");
        Buffer::Replica& replica = buffer.replica(bindings[i].replica);
        if (replica.queue->device() != queue.device())
            throw InvalidArgumentError(what + ": replica " + std::to_string(bindings[i].replica) +
                                       " is on another device than the queue");
        replicas.push_back(&replica);
    }
    return replicas;
}

}  // namespace

void dispatchOnReplicas(ComputePlan& plan, int queue_index,
                        const std::vector<ReplicaBinding>& bindings,
                        const std::vector<uint8_t>& push_constants, uint32_t groups_x) {
    if (push_constants.size() != plan.pushConstantSize())
        throw InvalidArgumentError("push_constants: plan '" + plan.name() + "' takes " +
                                   std::to_string(plan.pushConstantSize()) + " bytes, got " +
                                   std::to_string(push_constants.size()));
    Queue& queue = plan.context().queue(queue_index);
    const std::vector<Buffer::Replica*> replicas = replicasOf(plan, queue, bindings);
    const ComputePlan::DeviceObjects& objects = plan.forQueue(queue_index);
    std::shared_ptr<DescriptorAllocator> allocator = objects.descriptors;
    const VkDescriptorSet set = allocator->allocate();
    std::vector<VkDescriptorBufferInfo> infos(replicas.size());
    std::vector<VkWriteDescriptorSet> writes(replicas.size());
    for (size_t i = 0; i < replicas.size(); ++i) {
        infos[i] = {replicas[i]->storage.buffer.get(), 0, VK_WHOLE_SIZE};
        writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = set;
        writes[i].dstBinding = static_cast<uint32_t>(i);
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(queue.device(), static_cast<uint32_t>(writes.size()), writes.data(), 0,
                           nullptr);
    std::vector<uint8_t> pc(pushConstantRangeSize(plan.pushConstantSize()), 0);
    std::copy(push_constants.begin(), push_constants.end(), pc.begin());
    auto record = [&](VkCommandBuffer cb) {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, objects.pipeline.get());
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, objects.layout.get(), 0, 1,
                                &set, 0, nullptr);
        if (!pc.empty())
            vkCmdPushConstants(cb, objects.layout.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                               static_cast<uint32_t>(pc.size()), pc.data());
        vkCmdDispatch(cb, groups_x, 1, 1);
    };
    uint64_t value = 0;
    try {
        value = submitOnReplicas(queue, replicas, record);
    } catch (...) {
        allocator->release(set);
        throw;
    }
    plan.markUsed(queue_index, value);
    queue.retire(value, [allocator, set] { allocator->release(set); });
}

}  // namespace vkdispatch
