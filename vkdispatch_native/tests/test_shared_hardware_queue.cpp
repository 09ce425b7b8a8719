// Queues that share one hardware queue (a context asking for more queues than a family has):
// concurrent submissions from several threads, each to its own logical queue, stay exact, and
// the validation layer's thread-safety checks (where the layer is installed) see no unguarded
// concurrent use of the VkQueue.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <cstring>
#include <random>
#include <thread>

#include "compute_helpers.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/device_selection.hpp"
#include "vkdispatch/instance.hpp"
#include "vkdispatch/log.hpp"

using namespace vkdispatch;

namespace {

const char* kAddPc = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer D { uint data[]; };
layout(push_constant) uniform PC { uint add; } pc;
void main() { data[gl_GlobalInvocationID.x] += pc.add; }
)";

}  // namespace

TEST(SharedHardwareQueue, ThreadsSubmittingToQueuesOfOneHardwareQueueStayExact) {
    auto& env = test::deviceEnvironment();
    if (!env.context) GTEST_SKIP() << env.skip_reason;
    const int device_index = env.context->devices()[0]->info().index;
    const Instance validated(InstanceOptions{true});  // debug: validation where installed
    const DeviceInfo& info = validated.devices()[device_index];
    const int family = computeQueueFamily(info);
    const int queues = static_cast<int>(info.queue_families[family].queue_count) + 2;
    Context shared(validated, {device_index}, {std::vector<int>(queues, family)});
    ASSERT_EQ(shared.queueCount(), queues);
    // Every submit its own vkQueueSubmit at once: batched in submission windows, the threads'
    // submissions overlap too rarely for the validation layer to see an unguarded one.
    shared.setSubmitWindow(std::chrono::microseconds(0));
    TransferEngine engine(shared);

    ComputePlan plan(shared, test::compileOrFail(kAddPc, "add_pc"), {BindingType::StorageBuffer},
                     4, "add_pc");
    Buffer data(shared, 64 * 4);
    std::vector<std::vector<uint32_t>> start(queues);
    std::mt19937 rng(5);
    for (int q = 0; q < queues; ++q) {
        start[q].resize(64);
        for (auto& v : start[q]) v = rng() % 100000;
        engine.write(data, start[q].data(), 64 * 4, 0, q);
    }
    DescriptorSet set(plan);
    set.bindBuffer(0, data, 0, 0, false, true, true);
    // A list per thread: nothing but the hardware queue's lock serialises their submissions.
    std::vector<std::unique_ptr<CommandList>> lists;
    for (int q = 0; q < queues; ++q) {
        lists.push_back(std::make_unique<CommandList>(shared));
        lists.back()->recordDispatch(plan, set, {1, 1, 1});
    }

    std::vector<uint64_t> added(queues, 0);
    std::vector<std::vector<std::string>> reported(queues);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int q = 0; q < queues; ++q) {
        threads.emplace_back([&, q] {
            try {
                for (uint32_t i = 1; i <= 50; ++i) {
                    const uint32_t add = i * (q + 1);
                    uint8_t pc[4];
                    std::memcpy(pc, &add, 4);
                    lists[q]->submit(pc, 4, 1, q, nullptr, nullptr, 0);
                    added[q] += add;
                }
                reported[q] = takeValidationErrors();  // this thread's calls only
            } catch (...) {
                ++failures;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    shared.waitIdle(-1);
    EXPECT_EQ(failures.load(), 0);
    for (int q = 0; q < queues; ++q)
        EXPECT_TRUE(reported[q].empty()) << "thread of queue " << q << ": " << reported[q][0];
    for (int q = 0; q < queues; ++q) {
        std::vector<uint32_t> got(64);
        engine.read(data, got.data(), 64 * 4, 0, q);
        for (int i = 0; i < 64; ++i)
            ASSERT_EQ(got[i], start[q][i] + added[q]) << "queue " << q << ", element " << i;
    }
}
