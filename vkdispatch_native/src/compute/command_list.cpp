#include "vkdispatch/command_list.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "atomic_max.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

constexpr size_t kUpdateChunk = 65536;  // vkCmdUpdateBuffer's maximum size per call

void computeBarrier(VkCommandBuffer cb) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask =
        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                         nullptr);
}

void transferToComputeBarrier(VkCommandBuffer cb) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_UNIFORM_READ_BIT | VK_ACCESS_SHADER_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         0, 1, &barrier, 0, nullptr, 0, nullptr);
}

uint64_t paddedTo4(uint64_t size) { return (size + 3) & ~uint64_t(3); }

}  // namespace

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

int leastBusyQueue(const std::vector<uint64_t>& outstanding) {
    if (outstanding.empty()) return -1;
    return static_cast<int>(std::min_element(outstanding.begin(), outstanding.end()) -
                            outstanding.begin());
}

CommandList::CommandList(Context& context)
    : m_context(context), m_kept(static_cast<size_t>(context.queueCount())) {
    m_max_blocks.fill(UINT32_MAX);
    for (const auto& device : context.devices())
        for (int axis = 0; axis < 3; ++axis)
            m_max_blocks[axis] =
                std::min(m_max_blocks[axis], device->info().max_workgroup_count[axis]);
}

CommandList::~CommandList() {
    for (size_t q = 0; q < m_kept.size(); ++q)
        if (m_kept[q].cb != VK_NULL_HANDLE)
            m_context.queue(static_cast<int>(q)).recycle(m_kept[q].cb, m_kept[q].last_use);
}

void CommandList::recordDispatch(ComputePlan& plan, DescriptorSet& set,
                                 std::array<uint32_t, 3> blocks) {
    if (&plan.context() != &m_context)
        throw InvalidArgumentError("plan: '" + plan.name() +
                                   "' belongs to another context than the command list");
    if (&set.plan() != &plan)
        throw InvalidArgumentError("descriptor_set: the set was made for '" + set.plan().name() +
                                   "', not for '" + plan.name() + "'");
    checkWorkgroupCounts(blocks, m_max_blocks);
    m_dispatches.push_back({&plan, &set, blocks, m_instance_size});
    m_instance_size += plan.pushConstantSize();
    ++m_generation;
}

void CommandList::reset() noexcept {
    m_dispatches.clear();
    m_instance_size = 0;
    ++m_generation;
}

void CommandList::checkSubmission(size_t size, uint32_t instance_count,
                                  const UniformUpload& upload) const {
    if (instance_count == 0)
        throw InvalidArgumentError("instance_count: expected at least 1, got 0");
    const uint64_t expected = uint64_t(m_instance_size) * instance_count;
    if (size != expected)
        throw InvalidArgumentError(
            "push_constants: expected " + std::to_string(expected) + " bytes (instance size " +
            std::to_string(m_instance_size) + " x instance_count " +
            std::to_string(instance_count) + "), got " + std::to_string(size));
    if (upload.size > 0) {
        if (upload.buffer == nullptr)
            throw InvalidArgumentError("uniform_buffer: " + std::to_string(upload.size) +
                                       " bytes of uniform data need a buffer to go to");
        if (upload.data == nullptr)
            throw InvalidArgumentError("uniform_data: no data for " + std::to_string(upload.size) +
                                       " bytes");
        if (paddedTo4(upload.size) > upload.buffer->size())
            throw InvalidArgumentError("uniform_data: " + std::to_string(upload.size) +
                                       " bytes (padded to " +
                                       std::to_string(paddedTo4(upload.size)) +
                                       ") do not fit the uniform buffer of " +
                                       std::to_string(upload.buffer->size()) + " bytes");
        if (upload.buffer->replicaCount() != m_context.queueCount() ||
            upload.buffer->replica(0).queue != &m_context.queue(0))
            throw InvalidArgumentError("uniform_buffer: the buffer belongs to another context");
    }
    for (const Dispatch& d : m_dispatches) d.set->checkComplete();
}

std::vector<int> CommandList::targetQueues(int queue_index) const {
    if (queue_index == kAllQueues) {
        std::vector<int> all(m_context.queueCount());
        for (int q = 0; q < m_context.queueCount(); ++q) all[q] = q;
        return all;
    }
    if (queue_index == kLeastBusyQueue) {
        std::vector<uint64_t> outstanding;
        for (int q = 0; q < m_context.queueCount(); ++q) {
            Queue& queue = m_context.queue(q);
            const uint64_t submitted = queue.lastSubmitted();
            outstanding.push_back(submitted - std::min(submitted, queue.completedValue()));
        }
        return {leastBusyQueue(outstanding)};
    }
    if (queue_index < 0)
        throw IndexOutOfRangeError("queue_index: " + std::to_string(queue_index) +
                                   " is neither a queue nor -1 (least busy) or -2 (all queues)");
    m_context.queue(queue_index, "queue_index");  // throws IndexOutOfRangeError naming the range
    return {queue_index};
}

void CommandList::recordUniformUpload(VkCommandBuffer cb, int queue_index,
                                      const UniformUpload& upload) {
    const VkBuffer target = upload.buffer->replica(queue_index).storage.buffer.get();
    for (size_t offset = 0; offset < upload.size; offset += kUpdateChunk) {
        const size_t size = std::min(kUpdateChunk, upload.size - offset);
        const uint8_t* data = upload.data + offset;
        size_t padded = size;
        if (size % 4 != 0) {  // only the last chunk: Vulkan updates whole 4-byte words
            padded = paddedTo4(size);
            m_scratch.assign(padded, 0);
            std::memcpy(m_scratch.data(), data, size);
            data = m_scratch.data();
        }
        vkCmdUpdateBuffer(cb, target, offset, padded, data);
    }
    transferToComputeBarrier(cb);
}

void CommandList::record(VkCommandBuffer cb, int queue_index, const uint8_t* push_constants,
                         uint32_t instance_count) {
    m_tracker.reset();  // Queue::submit starts every command buffer with a full barrier
    VkPipeline bound_pipeline = VK_NULL_HANDLE;
    VkDescriptorSet bound_set = VK_NULL_HANDLE;
    for (uint32_t instance = 0; instance < instance_count; ++instance) {
        const uint8_t* instance_data = push_constants + size_t(instance) * m_instance_size;
        for (const Dispatch& d : m_dispatches) {
            if (m_tracker.admit(d.set->accesses())) computeBarrier(cb);
            const ComputePlan::DeviceObjects& objects = d.plan->forQueue(queue_index);
            const VkPipeline pipeline = objects.pipeline.get();
            const VkPipelineLayout layout = objects.layout.get();
            const bool new_pipeline = pipeline != bound_pipeline;
            if (new_pipeline) {
                vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
                bound_pipeline = pipeline;
            }
            const VkDescriptorSet set = d.set->handle(queue_index);
            if (set != VK_NULL_HANDLE && (new_pipeline || set != bound_set)) {
                vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0,
                                        nullptr);
                bound_set = set;
            }
            const uint32_t pc_size = d.plan->pushConstantSize();
            if (pc_size > 0) {
                const uint8_t* data = instance_data + d.push_constant_offset;
                const uint32_t range = pushConstantRangeSize(pc_size);
                if (range != pc_size) {
                    m_scratch.assign(range, 0);
                    std::memcpy(m_scratch.data(), data, pc_size);
                    data = m_scratch.data();
                }
                vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, range, data);
            }
            vkCmdDispatch(cb, d.blocks[0], d.blocks[1], d.blocks[2]);
        }
    }
}

void CommandList::markUsed(int queue_index, uint64_t value, const UniformUpload& upload) {
    const ComputePlan* last_plan = nullptr;
    const DescriptorSet* last_set = nullptr;
    for (const Dispatch& d : m_dispatches) {  // consecutive repeats are marked once
        if (d.plan != last_plan) {
            d.plan->markUsed(queue_index, value);
            last_plan = d.plan;
        }
        if (d.set != last_set) {
            d.set->markUsed(queue_index, value);
            for (const DescriptorSet::BufferBinding& bound : d.set->bindings())
                if (bound.buffer != nullptr)
                    detail::raiseTo(bound.buffer->replica(queue_index).last_use, value);
            last_set = d.set;
        }
    }
    if (upload.size > 0) detail::raiseTo(upload.buffer->replica(queue_index).last_use, value);
}

uint64_t CommandList::newestSetVersion() const noexcept {
    uint64_t newest = 0;
    for (const Dispatch& d : m_dispatches) newest = std::max(newest, d.set->version());
    return newest;
}

bool CommandList::matches(const KeptRecording& kept, uint64_t set_version,
                          const uint8_t* push_constants, size_t size,
                          uint32_t instance_count) const noexcept {
    return kept.cb != VK_NULL_HANDLE && kept.generation == m_generation &&
           kept.set_version == set_version && kept.instance_count == instance_count &&
           kept.push_constants.size() == size &&
           (size == 0 || std::memcmp(kept.push_constants.data(), push_constants, size) == 0);
}

CommandList::KeptRecording& CommandList::keptFor(int queue_index, uint64_t set_version,
                                                 const uint8_t* push_constants, size_t size,
                                                 uint32_t instance_count) {
    KeptRecording& kept = m_kept[queue_index];
    if (matches(kept, set_version, push_constants, size, instance_count)) return kept;
    Queue& queue = m_context.queue(queue_index);
    if (kept.cb != VK_NULL_HANDLE) queue.recycle(kept.cb, kept.last_use);
    kept = KeptRecording{};
    // Submitted again while earlier submissions of it may still run.
    VkCommandBuffer cb = queue.record(VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
                                      [&](VkCommandBuffer target) {
                                          record(target, queue_index, push_constants,
                                                 instance_count);
                                      });
    kept = KeptRecording{cb, 0, m_generation, set_version, instance_count,
                         std::vector<uint8_t>(push_constants, push_constants + size)};
    return kept;
}

uint64_t CommandList::submitOn(int queue_index, KeptRecording& kept, const UniformUpload& upload) {
    Queue& queue = m_context.queue(queue_index);
    if (upload.size == 0) {
        kept.last_use = queue.submitRecorded(kept.cb);
    } else {
        kept.last_use = queue.submit(
            [&](VkCommandBuffer cb) { recordUniformUpload(cb, queue_index, upload); }, kept.cb);
    }
    return kept.last_use;
}

uint64_t CommandList::submit(const uint8_t* push_constants, size_t size, uint32_t instance_count,
                             int queue_index, Buffer* uniform_buffer, const uint8_t* uniform_data,
                             size_t uniform_size) {
    const UniformUpload upload{uniform_buffer, uniform_data, uniform_size};
    checkSubmission(size, instance_count, upload);
    if (size > 0 && push_constants == nullptr)
        throw InvalidArgumentError("push_constants: no data for " + std::to_string(size) +
                                   " bytes");
    const uint64_t set_version = newestSetVersion();
    uint64_t value = 0;
    for (int q : targetQueues(queue_index)) {
        value = submitOn(q, keptFor(q, set_version, push_constants, size, instance_count), upload);
        markUsed(q, value, upload);
    }
    return value;
}

}  // namespace vkdispatch
