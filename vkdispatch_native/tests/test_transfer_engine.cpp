// TransferEngine moves the right bytes to and from the right place: writes and reads at offsets
// that are not chunk-aligned, of sizes that are not whole chunks, through rings smaller than the
// transfer (so chunks are reused), on one replica or all of them; refuses ranges outside the
// buffer before touching it; and keeps each read and write of a replica whole when threads race.
// Every result is checked against a host copy.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "buffer_kernels.hpp"
#include "device_fixture.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/device_selection.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/transfer_engine.hpp"

using namespace vkdispatch;

namespace {

Context& context() { return *test::deviceEnvironment().context; }

struct EngineKind {
    const char* name;
    TransferOptions options;
};

void PrintTo(const EngineKind& kind, std::ostream* out) { *out << kind.name; }

TransferOptions staging(uint64_t chunk_bytes, int chunk_count) {
    TransferOptions options;
    options.chunk_bytes = chunk_bytes;
    options.chunk_count = chunk_count;
    options.map_directly = false;
    return options;
}

TransferOptions hostCopies(TransferOptions options) {
    options.share_host_memory = false;
    return options;
}

// Three chunks of 1 KiB (transfers of several KiB wrap around the ring), one chunk of an odd
// size (every chunk waits for the one before), and the direct path where memory allows it.
// Copies between replicas go through host memory imported into the devices where they can,
// else (and in the HostCopy kinds) through each queue's ring.
const EngineKind kEngines[] = {
    {"Staging3x1024", staging(1024, 3)},
    {"Staging1x1000", staging(1000, 1)},
    {"Staging3x1024HostCopy", hostCopies(staging(1024, 3))},
    {"Staging1x1000HostCopy", hostCopies(staging(1000, 1))},
    {"Direct", TransferOptions{}},
    {"Staging3x64KiB", staging(65536, 3)},  // aligned writes up to 64 KiB travel inline
};

std::vector<uint8_t> readAll(TransferEngine& engine, Buffer& buffer, int queue_index) {
    std::vector<uint8_t> out(buffer.size());
    engine.read(buffer, out.data(), out.size(), 0, queue_index);
    return out;
}

std::string messageOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const InvalidArgumentError& error) {
        return error.what();
    }
    return "";
}

class TransferEngineTest : public ::testing::TestWithParam<EngineKind> {
protected:
    void SetUp() override { VKD_REQUIRE_DEVICE(); }
    TransferOptions options() const { return GetParam().options; }
};

}  // namespace

TEST_P(TransferEngineTest, WriteAtAnOffsetLandsThereAndKeepsTheRest) {
    TransferEngine engine(context(), options());
    const size_t size = 10007;
    Buffer buffer(context(), size);
    std::vector<uint8_t> expected = test::randomBytes(size, 1);
    engine.write(buffer, expected.data(), size, 0, -1);
    // Patches at offsets inside a chunk, not multiples of 4, over several chunks, to the end.
    const struct {
        uint64_t offset, size;
    } patches[] = {{1237, 4321}, {3, 5}, {size - 2999, 2999}, {6000, 1}};
    unsigned seed = 10;
    for (const auto& patch : patches) {
        const auto bytes = test::randomBytes(patch.size, seed++);
        engine.write(buffer, bytes.data(), patch.size, patch.offset, -1);
        std::copy(bytes.begin(), bytes.end(), expected.begin() + patch.offset);
        ASSERT_EQ(readAll(engine, buffer, 0), expected)
            << patch.size << " bytes at offset " << patch.offset;
    }
}

// Writes of whole words, which the staging kinds send inside their command buffers where they
// fit a chunk, keep their order with dispatches on the queue: each lands after the dispatch
// recorded before it and before the one after.
TEST_P(TransferEngineTest, AlignedWritesAndDispatchesOnOneQueueApplyInOrder) {
    TransferEngine engine(context(), options());
    constexpr uint32_t kWords = 2048;
    Buffer buffer(context(), kWords * 4);
    test::OneBufferPlan triple(context(), test::kTriplePlusOne, "triple_plus_one", buffer);
    CommandList list(context());
    list.recordDispatch(triple.plan, triple.set, {test::groupsFor(kWords), 1, 1});
    const std::vector<uint8_t> pc = test::repeatedWord(kWords, 1);
    std::vector<uint32_t> expected = test::randomWords(kWords, 3);
    engine.write(buffer, expected.data(), kWords * 4, 0, -1);
    const struct {
        uint32_t first, count;
    } patches[] = {{0, 1}, {100, 256}, {kWords - 64, 64}, {7, 1000}};
    unsigned seed = 20;
    for (const auto& patch : patches) {
        list.submit(pc.data(), pc.size(), 1, 0, nullptr, nullptr, 0);
        for (uint32_t& word : expected) word = test::triplePlusOne(word);
        const std::vector<uint32_t> words = test::randomWords(patch.count, seed++);
        engine.write(buffer, words.data(), patch.count * 4, patch.first * 4, 0);
        std::copy(words.begin(), words.end(), expected.begin() + patch.first);
    }
    list.submit(pc.data(), pc.size(), 1, 0, nullptr, nullptr, 0);
    for (uint32_t& word : expected) word = test::triplePlusOne(word);
    ASSERT_EQ(test::download<uint32_t>(engine, buffer, kWords, 0), expected);
}

TEST_P(TransferEngineTest, ReadOfASubRangeReturnsExactlyThoseBytes) {
    TransferEngine engine(context(), options());
    const size_t size = 9001;
    Buffer buffer(context(), size);
    const auto contents = test::randomBytes(size, 2);
    engine.write(buffer, contents.data(), size, 0, -1);
    const struct {
        uint64_t offset, size;
    } ranges[] = {{3001, 5555}, {1, 1}, {size - 4097, 4097}, {1024, 1024}, {0, size}};
    for (const auto& range : ranges) {
        // Guard bytes after the range: a read must not write past `size` bytes of `out`.
        std::vector<uint8_t> out(range.size + 16, 0xCD);
        engine.read(buffer, out.data(), range.size, range.offset, 0);
        std::vector<uint8_t> expected(contents.begin() + range.offset,
                                      contents.begin() + range.offset + range.size);
        expected.resize(range.size + 16, 0xCD);
        ASSERT_EQ(out, expected) << range.size << " bytes at offset " << range.offset;
    }
}

// A context of two queues (sharing one hardware queue where the device has only one): a write
// with a queue index changes that replica alone.
namespace {

Context twoQueueContext() {
    auto& env = test::deviceEnvironment();
    const int device_index = env.context->devices()[0]->info().index;
    const int family = computeQueueFamily(env.instance->devices()[device_index]);
    return Context(*env.instance, {device_index}, {{family, family}});
}

}  // namespace

TEST_P(TransferEngineTest, WriteToOneReplicaLeavesTheOtherAlone) {
    Context two = twoQueueContext();
    ASSERT_EQ(two.queueCount(), 2);
    TransferEngine engine(two, options());
    const size_t size = 5003;
    Buffer buffer(two, size);
    const auto base = test::randomBytes(size, 3);
    engine.write(buffer, base.data(), size, 0, -1);
    ASSERT_EQ(readAll(engine, buffer, 0), base);
    ASSERT_EQ(readAll(engine, buffer, 1), base);

    std::vector<uint8_t> expected[2] = {base, base};
    for (int q : {1, 0}) {
        const auto patch = test::randomBytes(2222, 4 + q);
        const uint64_t offset = 777 + 1000 * q;
        engine.write(buffer, patch.data(), patch.size(), offset, q);
        std::copy(patch.begin(), patch.end(), expected[q].begin() + offset);
        EXPECT_EQ(readAll(engine, buffer, 0), expected[0]) << "after writing replica " << q;
        EXPECT_EQ(readAll(engine, buffer, 1), expected[1]) << "after writing replica " << q;
    }
}

TEST_P(TransferEngineTest, RangesOutsideTheBufferAreRefusedNamingSizeAndOffset) {
    TransferEngine engine(context(), options());
    Buffer buffer(context(), 64);
    const auto contents = test::randomBytes(64, 5);
    engine.write(buffer, contents.data(), 64, 0, -1);
    std::vector<uint8_t> data(128, 0xEE);
    const uint64_t huge = std::numeric_limits<uint64_t>::max() - 3;  // offset + size wraps
    const struct {
        uint64_t size, offset;
    } bad[] = {{65, 0}, {8, 60}, {1, 64}, {0, 65}, {8, huge}};
    for (const auto& range : bad) {
        const std::string expected = "size: " + std::to_string(range.size) +
                                     " bytes at offset " + std::to_string(range.offset);
        const std::string write_error =
            messageOf([&] { engine.write(buffer, data.data(), range.size, range.offset, -1); });
        EXPECT_NE(write_error.find(expected), std::string::npos) << write_error;
        EXPECT_NE(write_error.find("64 bytes"), std::string::npos) << write_error;
        const std::string read_error =
            messageOf([&] { engine.read(buffer, data.data(), range.size, range.offset, 0); });
        EXPECT_NE(read_error.find(expected), std::string::npos) << read_error;
        EXPECT_NE(read_error.find("64 bytes"), std::string::npos) << read_error;
    }
    // A refused write changes nothing, and a refused read leaves `out` alone.
    EXPECT_EQ(readAll(engine, buffer, 0), contents);
    EXPECT_EQ(data, std::vector<uint8_t>(128, 0xEE));
}

// Two threads each write their own two patterns over the whole buffer in turn while a third
// reads it: every read returns one whole pattern (or the initial data), and the last write stays
// whole. The writers keep writing until the reader is done: the replica's lock lets threads in
// in turn, so the reader is done in well under a second (with std::mutex the writers kept it
// waiting for minutes on an H200 host); after 30 s they stop on their own and the test fails.
TEST_P(TransferEngineTest, TransfersRacingOnOneReplicaNeverMixTwoWrites) {
    TransferEngine engine(context(), options());
    const size_t size = 64 * 1024;
    Buffer buffer(context(), size);
    std::vector<std::vector<uint8_t>> patterns;  // the initial data, then two per writer
    for (unsigned seed = 6; seed < 11; ++seed) patterns.push_back(test::randomBytes(size, seed));
    engine.write(buffer, patterns[0].data(), size, 0, -1);
    auto whole = [&](const std::vector<uint8_t>& data) {
        return std::find(patterns.begin(), patterns.end(), data) != patterns.end();
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::atomic<bool> stop{false};
    std::atomic<int> writes{0};
    std::vector<std::thread> writers;
    for (int w : {0, 1}) {
        writers.emplace_back([&, w] {
            for (int k = 0;
                 k < 2 || (!stop.load() && std::chrono::steady_clock::now() < deadline); ++k) {
                engine.write(buffer, patterns[1 + 2 * w + k % 2].data(), size, 0, -1);
                ++writes;
            }
        });
    }
    while (writes.load() < 2) std::this_thread::yield();  // the writers are running
    int mixed = 0;
    // 80 reads: each staged one is 64 GPU round trips (about 50 ms on an H100).
    for (int i = 0; i < 80; ++i) mixed += whole(readAll(engine, buffer, 0)) ? 0 : 1;
    const bool in_time = std::chrono::steady_clock::now() < deadline;
    stop = true;
    for (auto& writer : writers) writer.join();
    EXPECT_EQ(mixed, 0) << "reads that mixed two writes";
    EXPECT_TRUE(in_time) << "the writers kept the reader waiting for 30 s";
    const auto last = readAll(engine, buffer, 0);
    EXPECT_TRUE(whole(last) && last != patterns[0]) << "the last write is not whole";
}

// Uploads of one buffer and downloads of another through the same queue from two threads (they
// share the queue's ring): every read returns the other buffer's bytes, and the written buffer
// ends with the last pattern written.
TEST_P(TransferEngineTest, AnUploadAndADownloadOnOneQueueDoNotMix) {
    TransferEngine engine(context(), options());
    const size_t size = 20000;
    Buffer written(context(), size), read(context(), size);
    const auto contents = test::randomBytes(size, 40);
    engine.write(read, contents.data(), size, 0, 0);
    const std::vector<uint8_t> patterns[2] = {test::randomBytes(size, 41),
                                              test::randomBytes(size, 42)};
    std::thread writer([&] {
        for (int k = 0; k < 40; ++k) engine.write(written, patterns[k % 2].data(), size, 0, 0);
    });
    int wrong = 0;
    for (int k = 0; k < 40; ++k) wrong += readAll(engine, read, 0) == contents ? 0 : 1;
    writer.join();
    EXPECT_EQ(wrong, 0) << "reads that returned other bytes";
    EXPECT_EQ(readAll(engine, written, 0), patterns[1]);
}

// copy() between replicas of two queues (the path replicas on different devices take): into
// another buffer at an offset that is not chunk-aligned, and from one replica of a buffer to
// its other; the bytes around the copied range and the other replicas stay as they were.
TEST_P(TransferEngineTest, CopyThroughTheHostMovesOneReplicaIntoAnother) {
    Context two = twoQueueContext();
    TransferEngine engine(two, options());
    const size_t size = 7001, offset = 1234;
    Buffer source(two, size), target(two, size + offset + 77);
    std::vector<uint8_t> start[2], before[2];
    for (int q : {0, 1}) {
        start[q] = test::randomBytes(size, 20 + q);
        engine.write(source, start[q].data(), size, 0, q);
        before[q] = test::randomBytes(target.size(), 30 + q);
        engine.write(target, before[q].data(), target.size(), 0, q);
    }
    engine.copy(source, 0, target, 1, offset);
    std::vector<uint8_t> expected = before[1];
    std::copy(start[0].begin(), start[0].end(), expected.begin() + offset);
    EXPECT_EQ(readAll(engine, target, 1), expected);
    EXPECT_EQ(readAll(engine, target, 0), before[0]);

    engine.copy(source, 1, source, 0, 0);
    EXPECT_EQ(readAll(engine, source, 0), start[1]);
    EXPECT_EQ(readAll(engine, source, 1), start[1]);

    const std::string same_queue = messageOf([&] { engine.copy(source, 1, target, 1, 0); });
    EXPECT_NE(same_queue.find("dst: replica 1 is on the source's queue"), std::string::npos)
        << same_queue;
    const std::string too_far =
        messageOf([&] { engine.copy(source, 0, target, 1, target.size() - size + 1); });
    EXPECT_NE(too_far.find("do not fit"), std::string::npos) << too_far;
    EXPECT_EQ(readAll(engine, target, 1), expected);  // refused copies changed nothing
}

INSTANTIATE_TEST_SUITE_P(Engines, TransferEngineTest, ::testing::ValuesIn(kEngines),
                         [](const auto& info) { return std::string(info.param.name); });
