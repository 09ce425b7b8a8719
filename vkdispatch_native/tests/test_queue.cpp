// Queue: timeline bookkeeping and waits, with and without polling before blocking; the bound on
// unfinished submissions (back-pressure), with threads; deferred deletions.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "buffer_kernels.hpp"
#include "compute_helpers.hpp"
#include "device_fixture.hpp"
#include "queue_gate.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/device.hpp"
#include "vkdispatch/device_info.hpp"
#include "vkdispatch/device_selection.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/interrupt.hpp"
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

using test::Gate;

void nothing(VkCommandBuffer) {}

// Every interruptible wait of its lifetime reports an interrupt (after its first 100 ms slice).
struct InterruptEverything {
    InterruptEverything() { setInterruptCheck([] { return true; }); }
    ~InterruptEverything() { setInterruptCheck(nullptr); }
};

// Spins (yielding) until `done` says so; a failing test then reports instead of hanging.
void spinUntil(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    ASSERT_TRUE(done()) << "gave up after 20 s";
}

// Whether `queue` has more than its bound unfinished (lastSubmitted read first: the timeline only
// grows, so a bound kept at every moment is never seen broken).
bool overBound(Queue& queue) {
    const uint64_t submitted = queue.lastSubmitted();
    return submitted > queue.completedValue() + queue.maxInFlight();
}

// A second Queue object over the context's queue 0, as QueueWait uses; its submissions are
// serialised by its own locks, so the threads of a test may share it.
std::unique_ptr<Queue> queueBesideTheContexts() {
    Context& context = *test::deviceEnvironment().context;
    context.waitIdle(-1);
    Queue& base = context.queue(0);
    return std::make_unique<Queue>(base.device(), base.family(), 0, 0);
}

TEST(QueueBound, DefaultsToKDefaultMaxInFlightAndRefusesZero) {
    VKD_REQUIRE_DEVICE();
    auto queue = queueBesideTheContexts();
    EXPECT_EQ(queue->maxInFlight(), kDefaultMaxInFlight);
    const std::string message = test::messageOf([&] { queue->setMaxInFlight(0); });
    EXPECT_NE(message.find("max_in_flight: expected at least 1 submission, got 0"),
              std::string::npos)
        << message;
    EXPECT_THROW(queue->setMaxInFlight(0), InvalidArgumentError);
    EXPECT_EQ(queue->maxInFlight(), kDefaultMaxInFlight);
    queue->setMaxInFlight(7);
    EXPECT_EQ(queue->maxInFlight(), 7u);
}

class QueueBoundOf : public ::testing::TestWithParam<uint32_t> {};

TEST_P(QueueBoundOf, ASubmissionBeyondTheBoundWaitsUntilTheOldestFinishes) {
    VKD_REQUIRE_DEVICE();
    const uint32_t bound = GetParam();
    const int submits = 10 * static_cast<int>(bound);
    auto queue = queueBesideTheContexts();
    queue->setMaxInFlight(bound);
    std::atomic<int> returned{0};
    std::atomic<bool> finished{false};
    std::atomic<int> over_bound{0};
    {
        Gate gate(*queue);  // submission 1, unfinished until the gate opens
        std::thread observer([&] {
            while (!finished) over_bound += overBound(*queue);
        });
        std::thread submitter([&] {
            for (int i = 0; i < submits; ++i) {
                queue->submit(nothing);
                ++returned;
            }
        });
        const int fit = static_cast<int>(bound) - 1;  // beside the gate
        spinUntil([&] { return returned >= fit; });
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        EXPECT_EQ(returned.load(), fit) << "a submission beyond the bound did not wait";
        EXPECT_EQ(queue->lastSubmitted(), bound);
        gate.open();
        submitter.join();
        finished = true;
        observer.join();
    }
    EXPECT_EQ(returned.load(), submits);
    EXPECT_EQ(over_bound.load(), 0);
    queue->waitIdle();
    EXPECT_EQ(queue->completedValue(), static_cast<uint64_t>(submits) + 1);
}

// A waiter wakes once one submission has finished (4), or three (32: a sixteenth of the bound
// more).
INSTANTIATE_TEST_SUITE_P(MaxInFlight, QueueBoundOf, ::testing::Values(4u, 32u));

TEST(QueueBound, AnInterruptedWaitForRoomSubmitsNothingUnlessUninterruptible) {
    VKD_REQUIRE_DEVICE();
    auto queue = queueBesideTheContexts();
    queue->setMaxInFlight(2);
    {
        Gate gate(*queue);
        queue->submit(nothing);  // full: the gate and this
        InterruptEverything interrupt;
        EXPECT_THROW(queue->submit(nothing), InterruptedError);
        EXPECT_EQ(queue->lastSubmitted(), 2u);
        // A submission that completes an operation waits on, whatever the check says.
        std::atomic<bool> returned{false};
        std::atomic<bool> interrupted{false};
        std::thread releaser([&] {
            try {
                queue->submitAfter(nothing, *queue, 0, Queue::RoomWait::Uninterruptible);
                returned = true;
            } catch (const InterruptedError&) {
                interrupted = true;
            }
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(250));  // > one 100 ms wait slice
        EXPECT_FALSE(returned.load());
        gate.open();
        releaser.join();
        EXPECT_TRUE(returned.load());
        EXPECT_FALSE(interrupted.load());
    }
    queue->waitIdle();
    EXPECT_EQ(queue->completedValue(), 3u);
}

TEST(QueueBound, WaitingOnWorkNotSubmittedYetIsRefused) {
    VKD_REQUIRE_DEVICE();
    auto queue = queueBesideTheContexts();
    auto other = queueBesideTheContexts();
    const uint64_t future = other->lastSubmitted() + 1;
    const std::string message =
        test::messageOf([&] { queue->submitAfter(nothing, *other, future); });
    EXPECT_NE(message.find("other_value: 1 is not submitted to the other queue yet (its latest: "
                           "0)"),
              std::string::npos)
        << message;
    EXPECT_THROW(queue->submitAfter(nothing, *other, future), InvalidArgumentError);
    EXPECT_EQ(queue->lastSubmitted(), 0u);
    queue->wait(queue->submitAfter(nothing, *other, other->submit(nothing)));
}

// Each of two queues waits on the device for the other's latest work, both nearly full, from
// two threads: every wait is for work already submitted, so all of it finishes.
TEST(QueueBound, QueuesWaitingOnEachOtherWhileFullAllFinish) {
    VKD_REQUIRE_DEVICE();
    auto& env = test::deviceEnvironment();
    const DeviceInfo& info = env.context->devices()[0]->info();
    const int family = computeQueueFamily(info);
    Context context(*env.instance, {info.index}, {{family, family}});
    context.setMaxInFlight(2);
    Queue& first = context.queue(0);
    Queue& second = context.queue(1);
    {
        Gate gate(first);
        std::vector<std::thread> threads;
        for (auto [to, from] : {std::pair{&first, &second}, std::pair{&second, &first}}) {
            threads.emplace_back([to = to, from = from] {
                for (int i = 0; i < 30; ++i) to->submitAfter(nothing, *from, from->lastSubmitted());
            });
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        EXPECT_FALSE(overBound(first) || overBound(second));
        gate.open();
        for (auto& thread : threads) thread.join();
    }
    context.waitIdle(-1);
    EXPECT_EQ(first.completedValue(), first.lastSubmitted());
    EXPECT_EQ(second.completedValue(), second.lastSubmitted());
    EXPECT_EQ(first.lastSubmitted() + second.lastSubmitted(), 2u + 1u + 60u);  // warm-ups, gate
}

// Every submission applies data[i] = data[i] * 3 + 1 once, behind the full barrier that starts
// each submission: the result counts the submissions that ran, whatever their order.
TEST(QueueBound, ThreadsSubmittingCommandListsUnderASmallBoundStayExact) {
    VKD_REQUIRE_DEVICE();
    auto& env = test::deviceEnvironment();
    const DeviceInfo& info = env.context->devices()[0]->info();
    Context context(*env.instance, {info.index}, {{computeQueueFamily(info)}});
    context.setMaxInFlight(3);
    TransferEngine engine(context);
    ComputePlan plan(context, test::compileOrFail(test::kTriplePlusOne, "triple_plus_one"),
                     {BindingType::StorageBuffer}, 4, "triple_plus_one");
    Buffer data(context, 64 * 4);
    const std::vector<uint32_t> start = test::randomWords(64, 11);
    test::upload(engine, data, start);
    DescriptorSet set(plan);
    set.bindBuffer(0, data, 0, 0, false, true, true);
    constexpr int kThreads = 4, kSubmits = 25;
    std::vector<std::unique_ptr<CommandList>> lists;
    for (int t = 0; t < kThreads; ++t) {
        lists.push_back(std::make_unique<CommandList>(context));
        lists.back()->recordDispatch(plan, set, {1, 1, 1});
    }
    Queue& queue = context.queue(0);
    std::atomic<int> returned{0};
    std::atomic<int> failures{0};
    std::atomic<int> over_bound{0};
    std::atomic<bool> finished{false};
    {
        Gate gate(queue);
        std::thread observer([&] {
            while (!finished) over_bound += overBound(queue);
        });
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                try {
                    const uint32_t n = 64;
                    uint8_t pc[4];
                    std::memcpy(pc, &n, 4);
                    for (int i = 0; i < kSubmits; ++i) {
                        lists[t]->submit(pc, 4, 1, 0, nullptr, nullptr, 0);
                        ++returned;
                    }
                } catch (...) {
                    ++failures;
                }
            });
        }
        spinUntil([&] { return returned >= 2; });  // two fit beside the gate
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        EXPECT_EQ(returned.load(), 2) << "a third submission did not wait for the gate";
        gate.open();
        for (auto& thread : threads) thread.join();
        finished = true;
        observer.join();
    }
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(over_bound.load(), 0);
    const std::vector<uint32_t> got = test::download<uint32_t>(engine, data, 64);
    for (int i = 0; i < 64; ++i) {
        uint32_t expected = start[i];
        for (int k = 0; k < kThreads * kSubmits; ++k) expected = test::triplePlusOne(expected);
        ASSERT_EQ(got[i], expected) << "element " << i;
    }
}

// A kept recording resubmitted while the host polls for completion never waits, nor runs short
// of command buffers: the deleters of the finished work must run anyway.
TEST(QueueRetire, DeletersOfFinishedWorkRunWithoutAnyWait) {
    VKD_REQUIRE_DEVICE();
    auto queue = queueBesideTheContexts();
    const VkCommandBuffer kept = queue->record(VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
                                               nothing);
    constexpr int kSubmits = 2000;
    std::atomic<int> ran{0};
    uint64_t value = 0;
    for (int i = 0; i < kSubmits; ++i) {
        value = queue->submitRecorded(kept);
        while (!queue->completed(value)) std::this_thread::yield();
        queue->retire(value + 1, [&ran] { ++ran; });  // the next submission's: not yet finished
    }
    EXPECT_GT(ran.load(), kSubmits / 2);
    queue->waitIdle();
    queue->recycle(kept, value);
    queue.reset();  // runs the last deleter while `ran` lives
    EXPECT_EQ(ran.load(), kSubmits);
}

// What a higher layer attaches to a queue (CUDA stream orderings) is made once, shared, and
// destroyed with the queue, while the queue can still submit and wait.
TEST(QueueAttachment, MadeOnceSharedAndDestroyedWithTheQueueWhileItWorks) {
    VKD_REQUIRE_DEVICE();
    auto queue = queueBesideTheContexts();
    struct Probe {
        Probe(Queue& queue_, bool* finished_) : queue(queue_), finished(finished_) {}
        Queue& queue;
        bool* finished;
        ~Probe() {
            const uint64_t value = queue.submit(nothing);
            queue.wait(value);
            *finished = queue.completed(value);
        }
    };
    bool finished = false;
    int made = 0;
    Queue* current = queue.get();
    auto make = [&] {
        ++made;
        return std::make_shared<Probe>(*current, &finished);
    };
    EXPECT_EQ(queue->attachment(make), queue->attachment(make));
    EXPECT_EQ(made, 1);
    EXPECT_FALSE(finished);
    queue.reset();
    EXPECT_TRUE(finished);

    auto refusing = queueBesideTheContexts();
    current = refusing.get();
    EXPECT_THROW(refusing->attachment([]() -> std::shared_ptr<void> { throw Error("refused"); }),
                 Error);
    EXPECT_EQ(refusing->attachment(make), refusing->attachment(make));  // made after all
    EXPECT_EQ(made, 2);
    finished = false;
}

}  // namespace
}  // namespace vkdispatch
