// Queue submission windows: calls made while the device is busy gather in an open batch that
// one vkQueueSubmit sends when its window passes (from the queue's own thread), when it is full,
// or when something waits for it; a call to an idle queue is sent at once; the calls run in
// order, and a wait or another queue's device wait never hangs on a batch. A test::Gate keeps
// the queue busy where a test needs a batch.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "buffer_kernels.hpp"
#include "compute_helpers.hpp"
#include "device_fixture.hpp"
#include "queue_gate.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/device_selection.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/queue.hpp"
#include "vkdispatch/transfer_engine.hpp"

namespace vkdispatch {
namespace {

using std::chrono::microseconds;

// data[i] += pc.n for the first 64 elements: alternated with kTriplePlusOne, the result depends
// on the order in which the calls ran.
const char* const kAddN = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer D { uint data[]; };
layout(push_constant) uniform PC { uint n; } pc;
void main() { data[gl_GlobalInvocationID.x] += pc.n; }
)";

constexpr microseconds kNeverByTime{10'000'000};  // a window no test outlasts

void nothing(VkCommandBuffer) {}

bool completesWithin(Queue& queue, uint64_t value, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!queue.completed(value)) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::yield();
    }
    return true;
}

// A context of its own (one queue, or `queues` on the compute family) with a 64-word buffer.
struct WindowedContext {
    explicit WindowedContext(int queues = 1)
        : context(*test::deviceEnvironment().instance, {info().index},
                  {std::vector<int>(queues, computeQueueFamily(info()))}),
          engine(context),
          data(context, 64 * 4) {}
    static const DeviceInfo& info() {
        return test::deviceEnvironment().context->devices()[0]->info();
    }
    Context context;
    TransferEngine engine;
    Buffer data;
};

std::unique_ptr<CommandList> oneDispatch(Context& context, test::OneBufferPlan& plan) {
    auto list = std::make_unique<CommandList>(context);
    list->recordDispatch(plan.plan, plan.set, {1, 1, 1});
    return list;
}

uint64_t submitWith(CommandList& list, uint32_t n) {
    uint8_t pc[4];
    std::memcpy(pc, &n, 4);
    return list.submit(pc, 4, 1, 0, nullptr, nullptr, 0);
}

TEST(SubmitWindow, CallsOfOneBatchWaitUnsentAndRunInOrderOnceAWaitSendsThem) {
    VKD_REQUIRE_DEVICE();
    WindowedContext w;
    const std::vector<uint32_t> start = test::randomWords(64, 5);
    test::upload(w.engine, w.data, start);
    test::OneBufferPlan triple(w.context, test::kTriplePlusOne, "triple_plus_one", w.data);
    test::OneBufferPlan add(w.context, kAddN, "add_n", w.data);
    auto triple_list = oneDispatch(w.context, triple);
    auto add_list = oneDispatch(w.context, add);
    Queue& queue = w.context.queue(0);
    w.context.setSubmitWindow(kNeverByTime);
    EXPECT_EQ(w.context.submitWindow(), kNeverByTime);
    test::Gate gate(queue);
    const uint64_t before = queue.lastSubmitted();
    EXPECT_EQ(before, gate.value());
    std::vector<uint32_t> expected = start;
    uint64_t last = 0;
    for (uint32_t k = 1; k <= 20; ++k) {
        const uint64_t value = k % 2 ? submitWith(*triple_list, 64) : submitWith(*add_list, k);
        EXPECT_EQ(value, before + k);  // one timeline value per call, as without a window
        last = value;
        for (uint32_t& v : expected) v = k % 2 ? test::triplePlusOne(v) : v + k;
    }
    gate.open();
    EXPECT_TRUE(completesWithin(queue, gate.value(), std::chrono::seconds(20)));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(queue.completed(before + 1)) << "a batch left before its window passed";
    // The read's copy joins the batch, and its wait sends it (not the window, 10 s away).
    const auto read_start = std::chrono::steady_clock::now();
    EXPECT_EQ(test::download<uint32_t>(w.engine, w.data, 64), expected);
    EXPECT_LT(std::chrono::steady_clock::now() - read_start, std::chrono::seconds(5));
    EXPECT_TRUE(queue.completed(last));
}

TEST(SubmitWindow, TheQueuesThreadSendsABatchThatNothingWaitsFor) {
    VKD_REQUIRE_DEVICE();
    WindowedContext w;
    Queue& queue = w.context.queue(0);
    w.context.setSubmitWindow(microseconds(2000));
    // Twice: the second time after the thread has gone to sleep waiting for work.
    for (int round = 0; round < 2; ++round) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300 * round));
        test::Gate gate(queue);
        uint64_t last = 0;
        for (int i = 0; i < 3; ++i) last = queue.submit(nothing);
        gate.open();
        EXPECT_TRUE(completesWithin(queue, last, std::chrono::seconds(20)));
    }
}

// A script that waits for each call keeps its latency; one that calls without waiting batches
// even while the device idles.
TEST(SubmitWindow, OnlyTheFirstCallAfterAWaitToAnIdleQueueIsSentAtOnce) {
    VKD_REQUIRE_DEVICE();
    WindowedContext w;
    Queue& queue = w.context.queue(0);
    w.context.setSubmitWindow(kNeverByTime);
    queue.waitIdle();
    for (int i = 0; i < 3; ++i) {
        const uint64_t value = queue.submit(nothing);
        EXPECT_TRUE(completesWithin(queue, value, std::chrono::seconds(20)));
        queue.wait(value);
    }
    const uint64_t first = queue.submit(nothing);
    EXPECT_TRUE(completesWithin(queue, first, std::chrono::seconds(20)));
    const uint64_t second = queue.submit(nothing);  // no wait since: it joins a batch
    EXPECT_FALSE(completesWithin(queue, second, std::chrono::milliseconds(50)));
    queue.wait(second);
}

TEST(SubmitWindow, AFullBatchLeavesAtOnceAndTheNextOneWaitsForItsWindow) {
    VKD_REQUIRE_DEVICE();
    WindowedContext w;
    Queue& queue = w.context.queue(0);
    w.context.setSubmitWindow(kNeverByTime);
    test::Gate gate(queue);
    uint64_t last = 0;
    for (size_t i = 0; i < kMaxBatchCalls; ++i) last = queue.submit(nothing);
    const uint64_t next = queue.submit(nothing);
    gate.open();
    EXPECT_TRUE(completesWithin(queue, last, std::chrono::seconds(20)));
    EXPECT_FALSE(completesWithin(queue, next, std::chrono::milliseconds(50)));
    queue.flush();
    EXPECT_TRUE(completesWithin(queue, next, std::chrono::seconds(20)));
}

TEST(SubmitWindow, AWindowOfZeroSendsEachCallAndANegativeOneIsRefused) {
    VKD_REQUIRE_DEVICE();
    WindowedContext w;
    Queue& queue = w.context.queue(0);
    w.context.setSubmitWindow(kNeverByTime);
    {
        test::Gate gate(queue);
        const uint64_t held = queue.submit(nothing);
        gate.open();
        EXPECT_FALSE(completesWithin(queue, held, std::chrono::milliseconds(50)));
        w.context.setSubmitWindow(microseconds(0));  // sends the open batch too
        EXPECT_TRUE(completesWithin(queue, held, std::chrono::seconds(20)));
        test::Gate busy(queue);
        const uint64_t sent = queue.submit(nothing);  // the queue is busy, yet it is sent
        busy.open();
        EXPECT_TRUE(completesWithin(queue, sent, std::chrono::seconds(20)));
    }
    const std::string message =
        test::messageOf([&] { w.context.setSubmitWindow(microseconds(-1)); });
    EXPECT_NE(message.find("submit_window_us: expected at least 0 microseconds, got -1"),
              std::string::npos)
        << message;
    EXPECT_THROW(queue.setSubmitWindow(microseconds(-1)), InvalidArgumentError);
    EXPECT_EQ(queue.submitWindow(), microseconds(0));
}

// The device wait of submitAfter is for a value of the other queue's open batch: the batch is
// sent first, or queue 1 would idle until queue 0's window passed.
TEST(SubmitWindow, SubmitAfterSendsTheOtherQueuesBatchFirst) {
    VKD_REQUIRE_DEVICE();
    WindowedContext w(2);
    w.context.setSubmitWindow(kNeverByTime);
    Queue& first = w.context.queue(0);
    Queue& second = w.context.queue(1);
    test::Gate gate(first);
    const uint64_t awaited = first.submit(nothing);
    const uint64_t after = second.submitAfter(nothing, first, awaited);
    gate.open();
    second.flush();
    EXPECT_TRUE(completesWithin(second, after, std::chrono::seconds(5)));
    EXPECT_TRUE(first.completed(awaited));
}

// Four threads call through one queue with the default window: every call runs exactly once.
TEST(SubmitWindow, ThreadsCallingThroughOneWindowStayExact) {
    VKD_REQUIRE_DEVICE();
    WindowedContext w;
    const std::vector<uint32_t> start = test::randomWords(64, 9);
    test::upload(w.engine, w.data, start);
    test::OneBufferPlan triple(w.context, test::kTriplePlusOne, "triple_plus_one", w.data);
    EXPECT_EQ(w.context.submitWindow(), kDefaultSubmitWindow);
    constexpr int kThreads = 4, kCalls = 60;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            try {
                auto list = oneDispatch(w.context, triple);
                for (int i = 0; i < kCalls; ++i) submitWith(*list, 64);
            } catch (...) {
                ++failures;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(failures.load(), 0);
    const std::vector<uint32_t> got = test::download<uint32_t>(w.engine, w.data, 64);
    for (int i = 0; i < 64; ++i) {
        uint32_t expected = start[i];
        for (int k = 0; k < kThreads * kCalls; ++k) expected = test::triplePlusOne(expected);
        ASSERT_EQ(got[i], expected) << "element " << i;
    }
}

TEST(SubmitWindow, AContextClosedWithAnOpenBatchSendsItAndReturns) {
    VKD_REQUIRE_DEVICE();
    auto w = std::make_unique<WindowedContext>();
    w->context.setSubmitWindow(kNeverByTime);
    Queue& queue = w->context.queue(0);
    {
        test::Gate gate(queue);
        for (int i = 0; i < 5; ++i) queue.submit(nothing);
    }  // opened, and waited for: the calls after it stay in the batch
    EXPECT_FALSE(queue.completed(queue.lastSubmitted()));
    w.reset();  // would hang if the batch stayed unsent
}

}  // namespace
}  // namespace vkdispatch
