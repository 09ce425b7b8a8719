// Profiler: while a context profiles, every command of a submitted list (each instance of a
// replay) becomes an event with its label, queue and a non-empty span in order, the work still
// runs right, and nothing is recorded once profiling is off; kept recordings are reused again.
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

TEST(Profiler, CalibrationPairsAGpuTimestampWithTheHostClock) {
    VKD_REQUIRE_DEVICE();
    Profiler profiler(context());
    const auto host_now = [] {
        return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::steady_clock::now().time_since_epoch())
                                         .count());
    };
    const uint64_t before = host_now();
    const auto [gpu, host] = profiler.calibrate(0);
    EXPECT_GT(gpu, 0u);
    EXPECT_GE(host, before);
    EXPECT_LE(host, host_now());
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    const auto [gpu_later, host_later] = profiler.calibrate(0);
    // Both clocks advanced by about the same time (each pair's error: half a round trip).
    const double gpu_ms = double(gpu_later - gpu) / 1e6;
    const double host_ms = double(host_later - host) / 1e6;
    EXPECT_NEAR(gpu_ms, host_ms, 10.0) << gpu_ms << " ms on the GPU, " << host_ms << " on the host";
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
