// Profiler: while a context profiles, every command of a submitted list (each instance of a
// replay) becomes an event with its label, queue and a non-empty span in order, the work still
// runs right, and nothing is recorded once profiling is off; kept recordings are reused again.
// A list keeps its recordings with timestamps, one per run in flight, and submits them again
// once their runs have been read. Its clock alignments (calibrated by the driver, or measured)
// pair the two clocks correctly.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "buffer_kernels.hpp"
#include "compute_helpers.hpp"
#include "queue_gate.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/buffer_commands.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/profiler.hpp"
#include "vkdispatch/transfer_engine.hpp"

using namespace vkdispatch;
using test::context;
using test::download;
using test::randomWords;
using test::upload;

TEST(Profiler, EveryCommandOfEveryInstanceIsAnEvent) {
    VKD_REQUIRE_DEVICE();
    const auto words = randomWords(256, 9);
    Buffer source(context(), 256 * 4), target(context(), 256 * 4);
    upload(source, words);
    CommandList list(context());
    list.record(std::make_unique<FillBufferCommand>(context(), target, 0, 256 * 4, 7u));
    list.record(std::make_unique<CopyBufferCommand>(context(), target, source, 0, 0, 128 * 4));

    auto profiler = std::make_shared<Profiler>(context());
    EXPECT_EQ(context().setProfiler(profiler), nullptr);
    context().queue(0).wait(list.submit(nullptr, 0, 3, 0, nullptr, nullptr, 0));
    EXPECT_EQ(context().setProfiler(nullptr), profiler);
    context().queue(0).wait(list.submit(nullptr, 0, 1, 0, nullptr, nullptr, 0));  // not profiled
    context().waitIdle(-1);

    const std::vector<ProfileEvent> events = profiler->take();
    ASSERT_EQ(events.size(), 6u);  // 2 commands x 3 instances
    uint64_t previous_end = 0;
    for (size_t i = 0; i < events.size(); ++i) {
        EXPECT_EQ(events[i].name, i % 2 == 0 ? "buffer fill" : "buffer copy");
        EXPECT_EQ(events[i].queue, 0);
        EXPECT_LE(events[i].start_ns, events[i].end_ns);
        EXPECT_GE(events[i].end_ns, previous_end);  // dependent commands, in order
        previous_end = events[i].end_ns;
    }
    EXPECT_TRUE(profiler->take().empty());
    auto expected = std::vector<uint32_t>(256, 7u);
    std::copy(words.begin(), words.begin() + 128, expected.begin());
    EXPECT_EQ(download<uint32_t>(target, 256), expected);
}

TEST(Profiler, KeptRecordingsWithTimestampsRunAgainOnceTheirRunsWereRead) {
    VKD_REQUIRE_DEVICE();
    const std::vector<uint32_t> start = randomWords(64, 21);
    Buffer data(context(), 64 * 4);
    upload(data, start);
    test::OneBufferPlan triple(context(), test::kTriplePlusOne, "triple_plus_one", data);
    CommandList list(context());
    list.recordDispatch(triple.plan, triple.set, {1, 1, 1});
    const auto submit = [&](uint32_t n) {  // triples the first n words, plus one
        uint8_t pc[4];
        std::memcpy(pc, &n, 4);
        return list.submit(pc, 4, 1, 0, nullptr, nullptr, 0);
    };
    std::vector<uint32_t> expected = start;
    const auto expect = [&](uint32_t n) {
        for (uint32_t i = 0; i < n; ++i) expected[i] = test::triplePlusOne(expected[i]);
    };
    Queue& queue = context().queue(0);
    auto profiler = std::make_shared<Profiler>(context());
    context().setProfiler(profiler);
    {
        test::Gate gate(queue);  // five runs in flight at once: five recordings
        for (int k = 0; k < 5; ++k) submit(64), expect(64);
        EXPECT_EQ(list.profiledRecordings(0), 5u);
    }
    queue.waitIdle();
    for (int k = 0; k < 12; ++k) {  // each after the last finished: the oldest is free again
        const uint64_t value = submit(64);
        expect(64);
        // Finished, and unread: a wait would read the finished runs, so only the submission
        // that reuses the recording can.
        while (!queue.completed(value)) std::this_thread::yield();
        EXPECT_EQ(list.profiledRecordings(0), 5u);
    }
    for (const uint32_t n : {32u, 64u, 32u}) {  // other push constants: recorded anew
        queue.wait(submit(n));
        expect(n);
        EXPECT_EQ(list.profiledRecordings(0), 5u);
    }
    context().setProfiler(nullptr);
    queue.wait(submit(64));  // not profiled: the recordings with timestamps go
    expect(64);
    EXPECT_EQ(list.profiledRecordings(0), 0u);
    context().waitIdle(-1);
    EXPECT_EQ(download<uint32_t>(data, 64), expected);

    // Each run read once, before the next rewrote its timestamps: 20 runs of the dependent
    // dispatch, in order, none twice.
    const std::vector<ProfileEvent> events = profiler->take();
    ASSERT_EQ(events.size(), 20u);
    for (size_t i = 0; i < events.size(); ++i) {
        EXPECT_EQ(events[i].name, "triple_plus_one");
        EXPECT_LT(events[i].start_ns, events[i].end_ns);
        if (i > 0) EXPECT_GE(events[i].start_ns, events[i - 1].end_ns) << i;
    }
}

TEST(Profiler, AFinishedRunsLateReadLeavesTheNextRunOfItsRecordingAlone) {
    VKD_REQUIRE_DEVICE();
    Buffer data(context(), 64 * 4);
    upload(data, randomWords(64, 22));
    test::OneBufferPlan triple(context(), test::kTriplePlusOne, "triple_plus_one", data);
    CommandList list(context());
    list.recordDispatch(triple.plan, triple.set, {1, 1, 1});
    const uint8_t pc[4] = {64, 0, 0, 0};
    Queue& queue = context().queue(0);
    // Free command buffers for what follows, so that no recording collects finished work (and
    // runs the first run's read) before the wait below.
    uint64_t last = 0;
    for (int k = 0; k < 4; ++k) last = queue.submit([](VkCommandBuffer) {});
    queue.wait(last);
    auto profiler = std::make_shared<Profiler>(context());
    context().setProfiler(profiler);
    uint64_t first = 0;
    {
        test::Gate hold(queue);  // (so that the run cannot finish before its read is set up)
        first = list.submit(pc, 4, 1, 0, nullptr, nullptr, 0);
    }
    while (!queue.completed(first)) std::this_thread::yield();  // finished, not read yet
    {
        test::Gate gate(queue);
        list.submit(pc, 4, 1, 0, nullptr, nullptr, 0);  // reuses the recording; held back
        // The first run's read, due since it finished, runs now: it must not take the second
        // run's timestamps (not written yet) for its own.
        queue.wait(first);
    }
    context().setProfiler(nullptr);
    context().waitIdle(-1);
    EXPECT_EQ(list.profiledRecordings(0), 1u);
    const std::vector<ProfileEvent> events = profiler->take();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_LT(events[0].start_ns, events[0].end_ns);
    EXPECT_LT(events[1].start_ns, events[1].end_ns);
    EXPECT_GE(events[1].start_ns, events[0].end_ns);
}

namespace {

uint64_t steadyNow() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
}

// Device ns minus host ns: what an alignment adds to host times.
double offsetMs(const ClockAlignment& alignment) {
    return (double(alignment.device_ns) - double(alignment.host_ns)) / 1e6;
}

bool onLavapipe() {
    return context().deviceOfQueue(0).info().device_name.rfind("llvmpipe", 0) == 0;
}

}  // namespace

TEST(Profiler, MeasuredAlignmentPairsAGpuTimestampWithTheHostClock) {
    VKD_REQUIRE_DEVICE();
    Profiler profiler(context());
    const uint64_t before = steadyNow();
    const ClockAlignment first = profiler.measure(0);
    EXPECT_EQ(first.method, ClockAlignment::Method::Measured);
    EXPECT_STREQ(first.name(), "measured");
    EXPECT_GT(first.device_ns, 0u);
    EXPECT_GE(first.host_ns - first.error_ns, before);  // the middle of a round trip inside
    EXPECT_LE(first.host_ns + first.error_ns, steadyNow());
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    const ClockAlignment later = profiler.measure(0);
    // Both clocks advanced by about the same time (each pair's error: half a round trip).
    const double gpu_ms = double(later.device_ns - first.device_ns) / 1e6;
    const double host_ms = double(later.host_ns - first.host_ns) / 1e6;
    EXPECT_NEAR(gpu_ms, host_ms, 10.0) << gpu_ms << " ms on the GPU, " << host_ms << " on host";
}

TEST(Profiler, CalibratedAlignmentAgreesWithTheMeasuredOneWithinTheirErrors) {
    VKD_REQUIRE_DEVICE();
    if (context().deviceOfQueue(0).calibratedClock() == nullptr)
        GTEST_SKIP() << "the device does not calibrate its timestamps with CLOCK_MONOTONIC";
    Profiler profiler(context());
    const uint64_t before = steadyNow();
    const ClockAlignment calibrated = profiler.align(0);
    const uint64_t after = steadyNow();
    EXPECT_EQ(calibrated.method, ClockAlignment::Method::Calibrated);
    EXPECT_STREQ(calibrated.name(), "calibrated");
    // The driver's CLOCK_MONOTONIC sample is the steady clock read between the two reads here.
    EXPECT_GE(calibrated.host_ns, before);
    EXPECT_LE(calibrated.host_ns, after);
    EXPECT_LT(calibrated.error_ns, 1'000'000u);
    const ClockAlignment measured = profiler.measure(0);
    // Both give the offset between the clocks; they disagree by no more than both errors
    // (plus 0.1 ms for the clocks' drift in between and the timestamps' rounding).
    EXPECT_NEAR(offsetMs(calibrated), offsetMs(measured),
                double(calibrated.error_ns + measured.error_ns) / 1e6 + 0.1);
}

TEST(Profiler, AlignmentWithoutCalibrationIsMeasured) {
    VKD_REQUIRE_DEVICE();
    Profiler profiler(context());
    EXPECT_EQ(profiler.align(0, false).method, ClockAlignment::Method::Measured);
}

TEST(Profiler, OnLavapipeBothAlignmentsFindItsTimestampsOnTheHostClock) {
    VKD_REQUIRE_DEVICE();
    // lavapipe writes CLOCK_MONOTONIC as its timestamps (1 ns period): the offset is 0.
    if (!onLavapipe()) GTEST_SKIP() << "lavapipe's device clock is the host's; others' are not";
    Profiler profiler(context());
    for (const bool calibrated : {true, false}) {
        const ClockAlignment alignment = profiler.align(0, calibrated);
        EXPECT_NEAR(offsetMs(alignment), 0.0, double(alignment.error_ns) / 1e6 + 0.001)
            << alignment.name();
    }
}

TEST(Profiler, StagedTransfersAreEvents) {
    VKD_REQUIRE_DEVICE();
    TransferOptions staged;
    staged.map_directly = false;  // every write and read a staging copy on the queue
    TransferEngine engine(context(), staged);
    Buffer buffer(context(), 1 << 20);  // beyond what a write sends inline (a buffer update)
    const auto words = randomWords(256 * 1024, 11);
    auto profiler = std::make_shared<Profiler>(context());
    context().setProfiler(profiler);
    engine.write(buffer, words.data(), words.size() * 4, 0, 0);
    std::vector<uint32_t> back(words.size());
    engine.read(buffer, back.data(), back.size() * 4, 0, 0);
    context().setProfiler(nullptr);
    context().waitIdle(-1);
    EXPECT_EQ(back, words);
    std::vector<std::string> names;
    for (const auto& event : profiler->take()) names.push_back(event.name);
    EXPECT_EQ(names, (std::vector<std::string>{"staging copy", "staging copy"}));
}
