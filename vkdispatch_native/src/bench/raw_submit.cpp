#include "vkdispatch/raw_submit.hpp"

#include <chrono>
#include <cstring>
#include <vector>

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compiler.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/handle.hpp"
#include "vkdispatch/memory_type.hpp"
#include "raw_vulkan.hpp"

namespace vkdispatch {
namespace {

constexpr const char* kIncrement = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { float data[]; } buf;
void main() { buf.data[gl_GlobalInvocationID.x] += 1.0; }
)";

// The increment kernel bound to a 64-float buffer, with its own command pool, command buffer and
// fence on queue 0: everything a plain Vulkan program would set up once.
class RawKernel {
public:
    explicit RawKernel(Context& context)
        : m_queue(context.queue(0)),
          m_plan(context, compile(), {BindingType::StorageBuffer}, 0, "raw_submit"),
          m_buffer(context, 64 * sizeof(float)),
          m_set(m_plan),
          m_device(m_queue.device()),
          m_commands(m_queue),
          m_cb(m_commands.cb()) {
        m_set.bindBuffer(0, m_buffer, 0, 0, false, true, true);
        m_queue.waitIdle();
    }
    RawKernel(const RawKernel&) = delete;
    RawKernel& operator=(const RawKernel&) = delete;

    /// Records `count` dispatches, each after a barrier on the previous one's writes (or, when
    /// not `barriers`, with none between them: the driver's cost of a dispatch alone). With
    /// `repeated`, the first dispatch also waits for the buffer's earlier writes, so the command
    /// buffer may run several times in a row.
    void record(int count, bool barriers, bool repeated = false) {
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        if (repeated) begin.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
        VK_CHECK(vkBeginCommandBuffer(m_cb, &begin), "begin");
        const auto& objects = m_plan.forQueue(0);
        VkDescriptorSet descriptor = m_set.handle(0);
        vkCmdBindPipeline(m_cb, VK_PIPELINE_BIND_POINT_COMPUTE, objects.pipeline.get());
        vkCmdBindDescriptorSets(m_cb, VK_PIPELINE_BIND_POINT_COMPUTE, objects.layout.get(), 0, 1,
                                &descriptor, 0, nullptr);
        for (int i = 0; i < count; ++i) {
            if ((i > 0 && barriers) || (i == 0 && repeated)) {
                VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
                barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
                barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
                vkCmdPipelineBarrier(m_cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0,
                                     nullptr, 0, nullptr);
            }
            vkCmdDispatch(m_cb, 1, 1, 1);
        }
        VK_CHECK(vkEndCommandBuffer(m_cb), "end");
    }

    /// Submits the command buffer and waits on its fence (blocking, or polling its status).
    void submitAndWait(bool poll) {
        if (poll) return bench::submitAndPollFence(m_queue, m_cb, m_commands.fence());
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &m_cb;
        const VkFence fence = m_commands.fence();
        VK_CHECK(vkQueueSubmit(m_queue.handle(), 1, &submit, fence), "submit");
        VK_CHECK(vkWaitForFences(m_device, 1, &fence, VK_TRUE, UINT64_MAX), "wait");
        VK_CHECK(vkResetFences(m_device, 1, &fence), "reset fence");
    }

    /// Submits the command buffer signalling the next value of `timeline` and spins on the
    /// semaphore's counter until it gets there: the runtime's kind of wait, without its
    /// bookkeeping (compare with a fence, submitAndWait(true)).
    void submitAndPollTimeline(VkSemaphore timeline, uint64_t value) {
        bench::submitSignalling(m_queue.handle(), &m_cb, 1, timeline, value);
        bench::spinUntil(m_device, timeline, value);
    }

    /// Submits the command buffer `submissions` times in a row, `per_submit` copies per
    /// vkQueueSubmit (each submission signalling the next value of a timeline semaphore, as the
    /// runtime's do), then waits for the last.
    void submitBackToBack(int submissions, int per_submit) {
        const UniqueSemaphore timeline = bench::createTimeline(m_device);
        const std::vector<VkCommandBuffer> cbs(static_cast<size_t>(per_submit), m_cb);
        uint64_t value = 0;
        for (int i = 0; i < submissions; ++i)
            bench::submitSignalling(m_queue.handle(), cbs.data(),
                                    static_cast<uint32_t>(cbs.size()), timeline.get(), ++value);
        VkSemaphore sem = timeline.get();
        VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
        wait.semaphoreCount = 1;
        wait.pSemaphores = &sem;
        wait.pValues = &value;
        VK_CHECK(vkWaitSemaphores(m_device, &wait, UINT64_MAX), "wait");
    }

private:
    static std::vector<uint32_t> compile() {
        const CompileResult compiled = Compiler().compileCompute(kIncrement, "raw_submit");
        if (!compiled.ok) throw Error("raw submit benchmark shader: " + compiled.log);
        return compiled.spirv;
    }

    Queue& m_queue;
    ComputePlan m_plan;
    Buffer m_buffer;
    DescriptorSet m_set;
    VkDevice m_device;
    bench::RawCommandBuffer m_commands;
    VkCommandBuffer m_cb;
};

// A host read of `bytes` of a device buffer as a plain Vulkan program does it: a copy into
// host-visible staging memory, a barrier making it visible to the host, a fence polled, a
// memcpy out. With `rerecord` the command buffer is recorded for every read (as a runtime that
// records each transfer afresh), else once.
class RawRead {
public:
    RawRead(Context& context, uint64_t bytes)
        : m_queue(context.queue(0)),
          m_buffer(context, bytes),
          m_staging(createBoundBuffer(context.deviceOfQueue(0), bytes,
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                      VK_MEMORY_PROPERTY_HOST_CACHED_BIT)),
          m_out(bytes),
          m_commands(m_queue),
          m_cb(m_commands.cb()) {
        m_queue.waitIdle();
        record();
    }
    RawRead(const RawRead&) = delete;
    RawRead& operator=(const RawRead&) = delete;

    void read(bool rerecord) {
        if (rerecord) record();
        bench::submitAndPollFence(m_queue, m_cb, m_commands.fence());
        std::memcpy(m_out.data(), m_staging.memory.mapped(), m_out.size());
    }

private:
    void record() {
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        VK_CHECK(vkBeginCommandBuffer(m_cb, &begin), "begin");
        VkBufferCopy region{0, 0, m_out.size()};
        vkCmdCopyBuffer(m_cb, m_buffer.replica(0).storage.buffer.get(),
                        m_staging.buffer.get(), 1, &region);
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(m_cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                             1, &barrier, 0, nullptr, 0, nullptr);
        VK_CHECK(vkEndCommandBuffer(m_cb), "end");
    }

    Queue& m_queue;
    Buffer m_buffer;
    BoundBuffer m_staging;
    std::vector<uint8_t> m_out;
    bench::RawCommandBuffer m_commands;
    VkCommandBuffer m_cb;
};

template <typename Action>
double meanMicroseconds(int iterations, Action action) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) action();
    const std::chrono::duration<double, std::micro> elapsed =
        std::chrono::steady_clock::now() - start;
    return elapsed.count() / iterations;
}

void checkPositive(int value, const char* name) {
    if (value < 1) throw InvalidArgumentError(std::string(name) + " must be at least 1");
}

}  // namespace

double rawBackToBackMicroseconds(Context& context, int dispatches, int per_submit) {
    checkPositive(dispatches, "dispatches");
    checkPositive(per_submit, "per_submit");
    RawKernel kernel(context);
    kernel.record(1, true, true);
    kernel.submitBackToBack(1, per_submit);  // warm-up
    const int submissions = (dispatches + per_submit - 1) / per_submit;
    return meanMicroseconds(1, [&] { kernel.submitBackToBack(submissions, per_submit); }) /
           (double(submissions) * per_submit);
}

double rawSubmitWaitMicroseconds(Context& context, int iterations, bool poll) {
    checkPositive(iterations, "iterations");
    RawKernel kernel(context);
    kernel.record(1, true);
    kernel.submitAndWait(poll);  // warm-up
    return meanMicroseconds(iterations, [&] { kernel.submitAndWait(poll); });
}

double rawDependentDispatchMicroseconds(Context& context, int count, bool barriers) {
    checkPositive(count, "count");
    RawKernel kernel(context);
    kernel.record(count, barriers);
    kernel.submitAndWait(false);  // warm-up
    return meanMicroseconds(1, [&] { kernel.submitAndWait(false); }) / count;
}

double rawTimelineSubmitWaitMicroseconds(Context& context, int iterations) {
    checkPositive(iterations, "iterations");
    RawKernel kernel(context);
    kernel.record(1, true);
    const UniqueSemaphore owner = bench::createTimeline(context.queue(0).device());
    const VkSemaphore timeline = owner.get();
    uint64_t value = 0;
    kernel.submitAndPollTimeline(timeline, ++value);  // warm-up
    return meanMicroseconds(iterations, [&] { kernel.submitAndPollTimeline(timeline, ++value); });
}

double rawReadMicroseconds(Context& context, int iterations, uint64_t bytes, bool rerecord) {
    checkPositive(iterations, "iterations");
    if (bytes == 0) throw InvalidArgumentError("bytes must be at least 1");
    RawRead reader(context, bytes);
    reader.read(rerecord);  // warm-up
    return meanMicroseconds(iterations, [&] { reader.read(rerecord); });
}

}  // namespace vkdispatch
