#include "vkdispatch/raw_submit.hpp"

#include <chrono>

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compiler.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

constexpr const char* kIncrement = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { float data[]; } buf;
void main() { buf.data[gl_GlobalInvocationID.x] += 1.0; }
)";

struct FenceAndPool {
    VkDevice device;
    VkFence fence = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    ~FenceAndPool() {
        if (fence != VK_NULL_HANDLE) vkDestroyFence(device, fence, nullptr);
        if (pool != VK_NULL_HANDLE) vkDestroyCommandPool(device, pool, nullptr);
    }
};

}  // namespace

double rawSubmitWaitMicroseconds(Context& context, int iterations) {
    if (iterations < 1) throw InvalidArgumentError("iterations must be at least 1");
    const CompileResult compiled = Compiler().compileCompute(kIncrement, "raw_submit");
    if (!compiled.ok) throw Error("raw submit benchmark shader: " + compiled.log);
    ComputePlan plan(context, compiled.spirv, {BindingType::StorageBuffer}, 0, "raw_submit");
    Buffer buffer(context, 64 * sizeof(float));
    DescriptorSet set(plan);
    set.bindBuffer(0, buffer, 0, 0, false, true, true);
    Queue& queue = context.queue(0);
    queue.waitIdle();

    FenceAndPool owned{queue.device()};
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = queue.family();
    VK_CHECK(vkCreateCommandPool(owned.device, &pool_info, nullptr, &owned.pool), "command pool");
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = owned.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cb;
    VK_CHECK(vkAllocateCommandBuffers(owned.device, &alloc, &cb), "command buffer");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(cb, &begin), "begin");
    const auto& objects = plan.forQueue(0);
    VkDescriptorSet descriptor = set.handle(0);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, objects.pipeline.get());
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, objects.layout.get(), 0, 1,
                            &descriptor, 0, nullptr);
    vkCmdDispatch(cb, 1, 1, 1);
    VK_CHECK(vkEndCommandBuffer(cb), "end");
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(owned.device, &fence_info, nullptr, &owned.fence), "fence");

    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    auto run_once = [&] {
        VK_CHECK(vkQueueSubmit(queue.handle(), 1, &submit, owned.fence), "submit");
        VK_CHECK(vkWaitForFences(owned.device, 1, &owned.fence, VK_TRUE, UINT64_MAX), "wait");
        VK_CHECK(vkResetFences(owned.device, 1, &owned.fence), "reset fence");
    };
    run_once();  // warm-up
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) run_once();
    const std::chrono::duration<double, std::micro> elapsed =
        std::chrono::steady_clock::now() - start;
    return elapsed.count() / iterations;
}

}  // namespace vkdispatch
