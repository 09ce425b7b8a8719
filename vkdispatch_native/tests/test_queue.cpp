// Queue: timeline bookkeeping and waits, with and without polling before blocking.
#include <gtest/gtest.h>

#include <chrono>

#include "device_fixture.hpp"
#include "vkdispatch/device.hpp"
#include "vkdispatch/device_info.hpp"
#include "vkdispatch/queue.hpp"

namespace vkdispatch {
namespace {

TEST(PollBeforeBlocking, CpuDevicesNeverPollAndGpusPollBriefly) {
    EXPECT_EQ(pollBeforeBlocking(DeviceType::Cpu).count(), 0);
    for (DeviceType gpu : {DeviceType::DiscreteGpu, DeviceType::IntegratedGpu,
                           DeviceType::VirtualGpu, DeviceType::Other}) {
        const auto poll = pollBeforeBlocking(gpu);
        EXPECT_GT(poll.count(), 0);
        EXPECT_LE(poll, std::chrono::milliseconds(10));  // then it blocks: no endless busy loop
    }
}

class QueueWait : public ::testing::TestWithParam<int> {};

// A second Queue object over the context's queue 0, polling for GetParam() microseconds;
// single-threaded, so its submissions need no synchronisation with the context's.
TEST_P(QueueWait, EachSubmissionCompletesInOrderAndWaitsReturnOnceReached) {
    VKD_REQUIRE_DEVICE();
    Context& context = *test::deviceEnvironment().context;
    context.waitIdle(-1);
    Queue& base = context.queue(0);
    Queue queue(base.device(), base.family(), 0, 0, std::chrono::microseconds(GetParam()));
    EXPECT_EQ(queue.lastSubmitted(), 0u);
    EXPECT_TRUE(queue.completed(0));
    uint64_t last = 0;
    for (int i = 0; i < 20; ++i) {
        const uint64_t value = queue.submit([](VkCommandBuffer) {});
        EXPECT_EQ(value, last + 1);
        last = value;
        if (i % 2 == 0) {
            queue.wait(value);
            EXPECT_GE(queue.completedValue(), value);
        }
    }
    queue.waitIdle();
    EXPECT_EQ(queue.completedValue(), last);
    queue.wait(1);  // long reached: returns at once
    EXPECT_TRUE(queue.completed(last));
}

INSTANTIATE_TEST_SUITE_P(PollMicroseconds, QueueWait, ::testing::Values(0, 50, 5000));

}  // namespace
}  // namespace vkdispatch
