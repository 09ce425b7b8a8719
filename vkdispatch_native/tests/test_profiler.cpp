// Profiler: while a context profiles, every command of a submitted list (each instance of a
// replay) becomes an event with its label, queue and a non-empty span in order, the work still
// runs right, and nothing is recorded once profiling is off; kept recordings are reused again.
// Its clock alignments (calibrated by the driver, or measured) pair the two clocks correctly.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "buffer_kernels.hpp"
#include "compute_helpers.hpp"
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
