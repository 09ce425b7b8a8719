// Each command kind records and runs, alone and mixed with dispatches (the planner's barriers
// ordering them), kept recordings are reused, and one list is submitted from many threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>

#include "buffer_kernels.hpp"
#include "compute_helpers.hpp"
#include "vkdispatch/barrier_command.hpp"
#include "vkdispatch/buffer_commands.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/dispatch_command.hpp"
#include "vkdispatch/errors.hpp"

using namespace vkdispatch;
using test::context;
using test::download;
using test::groupsFor;
using test::kTriplePlusOne;
using test::OneBufferPlan;
using test::randomWords;
using test::upload;

namespace {

// counters[i] += pc.add for the 64 invocations.
const char* kAtomicAdd = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer C { uint counters[]; };
layout(push_constant) uniform PC { uint add; } pc;
void main() { atomicAdd(counters[gl_GlobalInvocationID.x], pc.add); }
)";

std::vector<uint8_t> wordBytes(uint32_t value) {
    std::vector<uint8_t> out(4);
    std::memcpy(out.data(), &value, 4);
    return out;
}

uint64_t submitPlain(CommandList& list, const std::vector<uint8_t>& pc = {}) {
    return list.submit(pc.data(), pc.size(), 1, 0, nullptr, nullptr, 0);
}

class Commands : public ::testing::Test {
protected:
    void SetUp() override { VKD_REQUIRE_DEVICE(); }
};

}  // namespace

TEST(CommandMapping, StagesAndAccessesMapOntoVulkanFlags) {
    const AccessMask compute_rw = accessBit(Stage::Compute, false) | accessBit(Stage::Compute, true);
    EXPECT_EQ(vulkanStages(compute_rw), VkPipelineStageFlags(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT));
    EXPECT_EQ(vulkanAccess(compute_rw), VkAccessFlags(VK_ACCESS_SHADER_READ_BIT |
                                                      VK_ACCESS_UNIFORM_READ_BIT |
                                                      VK_ACCESS_SHADER_WRITE_BIT));
    const AccessMask copy = accessBit(Stage::Transfer, false) | accessBit(Stage::Host, true);
    EXPECT_EQ(vulkanStages(copy),
              VkPipelineStageFlags(VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT));
    EXPECT_EQ(vulkanAccess(copy),
              VkAccessFlags(VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_WRITE_BIT));
    EXPECT_EQ(vulkanAccess(writeBits(copy)), VkAccessFlags(VK_ACCESS_HOST_WRITE_BIT));
    EXPECT_EQ(vulkanStages(0), VkPipelineStageFlags(0));
}

TEST_F(Commands, CopyMovesTheRangeAndLeavesTheRestAlone) {
    const auto src_words = randomWords(300, 1), dst_words = randomWords(200, 2);
    Buffer src(context(), 300 * 4), dst(context(), 200 * 4);
    upload(src, src_words);
    upload(dst, dst_words);
    CommandList list(context());
    list.record(std::make_unique<CopyBufferCommand>(context(), dst, src, 40 * 4, 100 * 4, 50 * 4));
    context().queue(0).wait(submitPlain(list));
    auto expected = dst_words;
    std::copy(src_words.begin() + 100, src_words.begin() + 150, expected.begin() + 40);
    EXPECT_EQ(download<uint32_t>(dst, 200), expected);
}

TEST_F(Commands, CopyWithinOneBufferOfDisjointRanges) {
    const auto words = randomWords(128, 3);
    Buffer buffer(context(), 128 * 4);
    upload(buffer, words);
    CommandList list(context());
    list.record(std::make_unique<CopyBufferCommand>(context(), buffer, buffer, 0, 64 * 4, 64 * 4));
    context().queue(0).wait(submitPlain(list));
    auto expected = words;
    std::copy(words.begin() + 64, words.end(), expected.begin());
    EXPECT_EQ(download<uint32_t>(buffer, 128), expected);
}

TEST_F(Commands, FillAndUpdateWriteTheirRanges) {
    const auto words = randomWords(100, 4);
    Buffer buffer(context(), 100 * 4);
    upload(buffer, words);
    const auto update = randomWords(7, 5);
    CommandList list(context());
    list.record(std::make_unique<FillBufferCommand>(context(), buffer, 8 * 4, 20 * 4, 0xDEADBEEFu));
    // Updated later in the list over part of the filled range: write after write is ordered.
    list.record(std::make_unique<UpdateBufferCommand>(
        context(), buffer, 10 * 4, reinterpret_cast<const uint8_t*>(update.data()), 7 * 4));
    context().queue(0).wait(submitPlain(list));
    auto expected = words;
    std::fill(expected.begin() + 8, expected.begin() + 28, 0xDEADBEEFu);
    std::copy(update.begin(), update.end(), expected.begin() + 10);
    EXPECT_EQ(download<uint32_t>(buffer, 100), expected);
}

TEST_F(Commands, UpdateOfAnOddSizeIsPaddedWithZeros) {
    Buffer buffer(context(), 16);
    upload(buffer, std::vector<uint32_t>{7, 7, 7, 7});
    const uint8_t bytes[5] = {1, 2, 3, 4, 5};
    CommandList list(context());
    list.record(std::make_unique<UpdateBufferCommand>(context(), buffer, 4, bytes, 5));
    context().queue(0).wait(submitPlain(list));
    EXPECT_EQ(download<uint32_t>(buffer, 4), (std::vector<uint32_t>{7, 0x04030201u, 5u, 7}));
}

// copy a -> b, shader on b, copy b -> a, shader on a, fill part of b, copy b -> c: every
// step depends on the one before, across transfer and compute, replayed three times.
TEST_F(Commands, CopiesAndDispatchesInterleavedSeeEachOthersResults) {
    const size_t n = 333;
    const auto words = randomWords(n, 6);
    Buffer a(context(), n * 4), b(context(), n * 4), c(context(), n * 4);
    upload(a, words);
    OneBufferPlan on_a(context(), kTriplePlusOne, "on_a", a),
        on_b(context(), kTriplePlusOne, "on_b", b);
    CommandList list(context());
    list.record(std::make_unique<CopyBufferCommand>(context(), b, a, 0, 0, n * 4));
    list.recordDispatch(on_b.plan, on_b.set, {groupsFor(n), 1, 1});
    list.record(std::make_unique<CopyBufferCommand>(context(), a, b, 0, 0, n * 4));
    list.recordDispatch(on_a.plan, on_a.set, {groupsFor(n), 1, 1});
    list.record(std::make_unique<FillBufferCommand>(context(), b, 0, 16 * 4, 5u));
    list.record(std::make_unique<CopyBufferCommand>(context(), c, b, 0, 0, n * 4));
    const uint32_t count = n;
    std::vector<uint8_t> pc(list.instanceSize() * 3);
    for (size_t k = 0; k < pc.size() / 4; ++k) std::memcpy(pc.data() + 4 * k, &count, 4);
    context().queue(0).wait(list.submit(pc.data(), pc.size(), 3, 0, nullptr, nullptr, 0));

    std::vector<uint32_t> ea = words, eb(n), ec(n);
    for (int instance = 0; instance < 3; ++instance) {
        eb = ea;
        for (auto& v : eb) v = v * 3u + 1u;
        ea = eb;
        for (auto& v : ea) v = v * 3u + 1u;
        std::fill(eb.begin(), eb.begin() + 16, 5u);
        ec = eb;
    }
    EXPECT_EQ(download<uint32_t>(a, n), ea);
    EXPECT_EQ(download<uint32_t>(b, n), eb);
    EXPECT_EQ(download<uint32_t>(c, n), ec);
}

TEST_F(Commands, ExplicitBarrierRecordsAndKeepsResultsExact) {
    const size_t n = 64;
    const auto words = randomWords(n, 7);
    Buffer a(context(), n * 4), b(context(), n * 4);
    upload(a, words);
    CommandList list(context());
    list.record(std::make_unique<CopyBufferCommand>(context(), b, a, 0, 0, n * 4));
    list.record(std::make_unique<BarrierCommand>(context()));
    list.record(std::make_unique<FillBufferCommand>(context(), a, 0, n * 4, 9u));
    list.record(std::make_unique<BarrierCommand>(context()));
    list.record(std::make_unique<CopyBufferCommand>(context(), a, b, 0, 0, 8 * 4));
    EXPECT_EQ(list.commandCount(), 5u);
    context().queue(0).wait(submitPlain(list));
    std::vector<uint32_t> expected(n, 9u);
    std::copy(words.begin(), words.begin() + 8, expected.begin());
    EXPECT_EQ(download<uint32_t>(a, n), expected);
    EXPECT_EQ(download<uint32_t>(b, n), words);
}

TEST_F(Commands, KeptRecordingIsReusedAndSeesNewBufferContents) {
    const size_t n = 50;
    Buffer a(context(), n * 4), b(context(), n * 4);
    CommandList list(context());
    list.record(std::make_unique<CopyBufferCommand>(context(), b, a, 0, 0, n * 4));
    for (unsigned round = 0; round < 4; ++round) {
        const auto words = randomWords(n, 10 + round);
        upload(a, words);
        context().queue(0).wait(submitPlain(list));
        EXPECT_EQ(download<uint32_t>(b, n), words) << "round " << round;
    }
}

TEST_F(Commands, BadRangesAndForeignBuffersRaiseNamingTheArgument) {
    Buffer a(context(), 64), b(context(), 64);
    auto message = [](auto&& make) {
        try {
            make();
        } catch (const InvalidArgumentError& error) {
            return std::string(error.what());
        }
        return std::string();
    };
    EXPECT_NE(message([&] { CopyBufferCommand(context(), a, b, 0, 32, 40); }).find("src: 40 bytes"),
              std::string::npos);
    EXPECT_NE(message([&] { CopyBufferCommand(context(), a, b, 60, 0, 8); }).find("dst"),
              std::string::npos);
    EXPECT_NE(message([&] { CopyBufferCommand(context(), a, a, 0, 8, 16); }).find("overlap"),
              std::string::npos);
    EXPECT_NE(message([&] { CopyBufferCommand(context(), a, b, 0, 0, 0); }).find("size"),
              std::string::npos);
    EXPECT_NE(message([&] { FillBufferCommand(context(), a, 2, 8, 0); }).find("offset"),
              std::string::npos);
    EXPECT_NE(message([&] { FillBufferCommand(context(), a, 0, 6, 0); }).find("size"),
              std::string::npos);
    const uint8_t data[70] = {};
    EXPECT_NE(message([&] { UpdateBufferCommand(context(), a, 0, data, 70); }).find("64 bytes"),
              std::string::npos);

    auto& env = test::deviceEnvironment();
    const int device_index = env.context->devices()[0]->info().index;
    Context other(*env.instance, {device_index},
                  {{computeQueueFamily(env.instance->devices()[device_index])}});
    Buffer foreign(other, 64);
    EXPECT_NE(message([&] { CopyBufferCommand(context(), a, foreign, 0, 0, 8); })
                  .find("src: the buffer belongs to another context"),
              std::string::npos);
    CommandList list(context());
    EXPECT_NE(message([&] { list.record(std::make_unique<BarrierCommand>(other)); })
                  .find("another context"),
              std::string::npos);
    EXPECT_EQ(list.commandCount(), 0u);
}

// The defect of issue 9: one list submitted from 8 threads at once with instance counts that
// differ per call re-recorded its kept command buffer while other threads' submissions used it.
TEST_F(Commands, OneListSubmittedFromEightThreadsCountsExactly) {
    Buffer counters(context(), 64 * 4);
    upload(counters, std::vector<uint32_t>(64, 0));
    OneBufferPlan adder(context(), kAtomicAdd, "atomic_add", counters);
    CommandList list(context());
    list.recordDispatch(adder.plan, adder.set, {1, 1, 1});

    constexpr int kThreads = 8, kSubmissions = 120;
    std::atomic<uint64_t> expected{0};
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937 rng(1000 + t);
            try {
                for (int s = 0; s < kSubmissions; ++s) {
                    const uint32_t instances = 1 + rng() % 3;
                    std::vector<uint32_t> adds(instances);
                    for (auto& v : adds) v = 1 + rng() % 7;
                    list.submit(reinterpret_cast<const uint8_t*>(adds.data()), instances * 4,
                                instances, 0, nullptr, nullptr, 0);
                    expected += std::accumulate(adds.begin(), adds.end(), uint64_t(0));
                }
            } catch (...) {
                ++failures;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    context().waitIdle(-1);
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(download<uint32_t>(counters, 64),
              std::vector<uint32_t>(64, static_cast<uint32_t>(expected.load())));
}

TEST_F(Commands, StagingCopyRunsOnlyOnItsQueueAndWithinItsStaging) {
    Buffer buffer(context(), 256);
    Device& device = context().deviceOfQueue(0);
    const BoundBuffer staging = createBoundBuffer(
        device, 64, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
    const auto words = randomWords(16, 21);
    std::memcpy(staging.memory.mapped(), words.data(), 64);
    StagingCopyCommand upload(buffer, 0, staging.buffer.get(), 64, StagingCopyCommand::Direction::Upload, 128,
                              64);
    EXPECT_EQ(upload.accesses().size(), 2u);
    context().queue(0).wait(context().queue(0).submit(
        [&](VkCommandBuffer cb) { recordAlone(cb, upload, 0); }));
    const auto stored = download<uint32_t>(buffer, 64);
    EXPECT_TRUE(std::equal(words.begin(), words.end(), stored.begin() + 32));

    EXPECT_THROW(StagingCopyCommand(buffer, 0, staging.buffer.get(), 64,
                                    StagingCopyCommand::Direction::Download, 0, 65),
                 InvalidArgumentError);
    EXPECT_THROW(StagingCopyCommand(buffer, 1, staging.buffer.get(), 64,
                                    StagingCopyCommand::Direction::Download, 0, 64),
                 IndexOutOfRangeError);
    // Recorded for another queue than its own: refused before anything is recorded.
    RecordState other;
    other.queue_index = 1;
    EXPECT_THROW(upload.record(VK_NULL_HANDLE, other, nullptr), InvalidArgumentError);
}

TEST_F(Commands, TryRecordAppendsWhenTheListIsFree) {
    Buffer a(context(), 64), b(context(), 64);
    const auto words = randomWords(16, 31);
    upload(a, words);
    CommandList list(context());
    auto copy = std::unique_ptr<Command>(new CopyBufferCommand(context(), b, a, 0, 0, 64));
    ASSERT_TRUE(list.tryRecord(copy));
    EXPECT_EQ(copy, nullptr);  // the list owns it now
    EXPECT_EQ(list.commandCount(), 1u);
    std::unique_ptr<Command> none;
    EXPECT_THROW(list.tryRecord(none), InvalidArgumentError);
    context().queue(0).wait(submitPlain(list));
    EXPECT_EQ(download<uint32_t>(b, 16), words);
}
