#include "vkdispatch/queue_phases.hpp"

#include <chrono>
#include <string>

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/handle.hpp"
#include "vkdispatch/queue.hpp"
#include "raw_vulkan.hpp"

namespace vkdispatch {
namespace {

using Clock = std::chrono::steady_clock;
constexpr VkDeviceSize kFillBytes = 256;

double microsecondsSince(Clock::time_point& start) {
    const Clock::time_point now = Clock::now();
    const double us = std::chrono::duration<double, std::micro>(now - start).count();
    start = now;
    return us;
}

void checkIterations(int iterations) {
    if (iterations < 1)
        throw InvalidArgumentError("iterations: expected at least 1, got " +
                                   std::to_string(iterations));
}

void recordEntry(VkCommandBuffer cb, RawEntry entry) {
    if (entry == RawEntry::Runtime) return recordEntryBarrier(cb);
    if (entry == RawEntry::Full)
        recordFullBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                          VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
}

QueuePhases meanOf(QueuePhases sum, int iterations) {
    return {sum.record / iterations, sum.submit / iterations, sum.device / iterations,
            sum.wait / iterations};
}

}  // namespace

QueuePhases runtimeQueuePhases(Context& context, int iterations) {
    checkIterations(iterations);
    Queue& queue = context.queue(0);
    Buffer buffer(context, kFillBytes);
    const VkBuffer target = buffer.replica(0).storage.buffer.get();
    auto fill = [&](VkCommandBuffer cb) { vkCmdFillBuffer(cb, target, 0, kFillBytes, 1); };
    queue.wait(queue.submit(fill));  // warm-up
    QueuePhases sum;
    for (int i = 0; i < iterations; ++i) {
        Clock::time_point mark = Clock::now();
        const uint64_t value = queue.submit(fill);
        sum.submit += microsecondsSince(mark);
        queue.flushThrough(value);  // a no-op after a wait: the call after one is sent at once
        while (!queue.completed(value)) {
        }
        sum.device += microsecondsSince(mark);
        queue.wait(value);
        sum.wait += microsecondsSince(mark);
    }
    return meanOf(sum, iterations);
}

QueuePhases rawQueuePhases(Context& context, int iterations, RawEntry entry) {
    checkIterations(iterations);
    Queue& queue = context.queue(0);
    queue.waitIdle();
    const VkDevice device = queue.device();
    Buffer buffer(context, kFillBytes);
    const bench::RawCommandBuffer commands(queue);
    const VkCommandBuffer cb = commands.cb();
    const UniqueSemaphore timeline = bench::createTimeline(device);
    uint64_t value = 0;
    auto once = [&](QueuePhases& sum) {
        Clock::time_point mark = Clock::now();
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vkBeginCommandBuffer(cb, &begin), "begin");
        recordEntry(cb, entry);
        vkCmdFillBuffer(cb, buffer.replica(0).storage.buffer.get(), 0, kFillBytes, 1);
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                             &barrier, 0, nullptr, 0, nullptr);
        VK_CHECK(vkEndCommandBuffer(cb), "end");
        sum.record += microsecondsSince(mark);
        bench::submitSignalling(queue.handle(), &cb, 1, timeline.get(), ++value);
        sum.submit += microsecondsSince(mark);
        bench::spinUntil(device, timeline.get(), value);
        sum.device += microsecondsSince(mark);
    };
    QueuePhases warm_up;
    once(warm_up);
    QueuePhases sum;
    for (int i = 0; i < iterations; ++i) once(sum);
    return meanOf(sum, iterations);
}

}  // namespace vkdispatch
