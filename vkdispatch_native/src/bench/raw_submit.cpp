#include "vkdispatch/raw_submit.hpp"

#include <chrono>
#include <vector>

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compiler.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/handle.hpp"

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
          m_device(m_queue.device()) {
        m_set.bindBuffer(0, m_buffer, 0, 0, false, true, true);
        m_queue.waitIdle();
        VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pool_info.queueFamilyIndex = m_queue.family();
        VK_CHECK(vkCreateCommandPool(m_device, &pool_info, nullptr, &m_pool), "command pool");
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = m_pool;
        alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        alloc.commandBufferCount = 1;
        VK_CHECK(vkAllocateCommandBuffers(m_device, &alloc, &m_cb), "command buffer");
        VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VK_CHECK(vkCreateFence(m_device, &fence_info, nullptr, &m_fence), "fence");
    }
    ~RawKernel() {
        vkDestroyFence(m_device, m_fence, nullptr);
        vkDestroyCommandPool(m_device, m_pool, nullptr);
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
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &m_cb;
        VK_CHECK(vkQueueSubmit(m_queue.handle(), 1, &submit, m_fence), "submit");
        if (poll) {
            VkResult status;
            while ((status = vkGetFenceStatus(m_device, m_fence)) == VK_NOT_READY) {
            }
            VK_CHECK(status, "fence status");
        } else {
            VK_CHECK(vkWaitForFences(m_device, 1, &m_fence, VK_TRUE, UINT64_MAX), "wait");
        }
        VK_CHECK(vkResetFences(m_device, 1, &m_fence), "reset fence");
    }

    /// Submits the command buffer `submissions` times in a row, `per_submit` copies per
    /// vkQueueSubmit (each submission signalling the next value of a timeline semaphore, as the
    /// runtime's do), then waits for the last.
    void submitBackToBack(int submissions, int per_submit) {
        VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
        type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
        VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        info.pNext = &type;
        VkSemaphore timeline;
        VK_CHECK(vkCreateSemaphore(m_device, &info, nullptr, &timeline), "timeline");
        UniqueSemaphore owner(m_device, timeline);
        const std::vector<VkCommandBuffer> cbs(static_cast<size_t>(per_submit), m_cb);
        uint64_t value = 0;
        VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
        values.signalSemaphoreValueCount = 1;
        values.pSignalSemaphoreValues = &value;
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        submit.pNext = &values;
        submit.commandBufferCount = static_cast<uint32_t>(cbs.size());
        submit.pCommandBuffers = cbs.data();
        submit.signalSemaphoreCount = 1;
        submit.pSignalSemaphores = &timeline;
        for (int i = 0; i < submissions; ++i) {
            ++value;
            VK_CHECK(vkQueueSubmit(m_queue.handle(), 1, &submit, VK_NULL_HANDLE), "submit");
        }
        VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
        wait.semaphoreCount = 1;
        wait.pSemaphores = &timeline;
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
    VkCommandPool m_pool = VK_NULL_HANDLE;
    VkCommandBuffer m_cb = VK_NULL_HANDLE;  // freed with the pool
    VkFence m_fence = VK_NULL_HANDLE;
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

}  // namespace vkdispatch
