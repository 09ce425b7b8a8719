#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "device_fixture.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/transfer_engine.hpp"

using namespace vkdispatch;

namespace {

Context& context() { return *test::deviceEnvironment().context; }

void expectRoundTrip(TransferEngine& engine, size_t size, unsigned seed) {
    Buffer buffer(context(), size);
    const auto data = test::randomBytes(size, seed);
    engine.write(buffer, data.data(), size, 0, -1);
    std::vector<uint8_t> out(size, 0);
    engine.read(buffer, out.data(), size, 0, 0);
    EXPECT_EQ(out, data) << "size " << size;
}

}  // namespace

TEST(Buffer, RoundTripThroughDirectMapping) {
    VKD_REQUIRE_DEVICE();
    TransferEngine engine(context());
    for (size_t size : {size_t(4), size_t(1000), size_t(3) << 20}) expectRoundTrip(engine, size, 1);
}

TEST(Buffer, RoundTripThroughStagingChunksSmallerThanBuffer) {
    VKD_REQUIRE_DEVICE();
    TransferOptions options;
    options.chunk_bytes = 4096;
    options.chunk_count = 3;
    options.map_directly = false;
    TransferEngine engine(context(), options);
    for (size_t size : {size_t(8), size_t(4096), size_t(4096 * 7 + 13)})
        expectRoundTrip(engine, size, 2);
}

TEST(Buffer, PartialWriteAtOffsetKeepsTheRest) {
    VKD_REQUIRE_DEVICE();
    TransferEngine engine(context());
    Buffer buffer(context(), 256);
    const auto base = test::randomBytes(256, 3);
    const auto patch = test::randomBytes(16, 4);
    engine.write(buffer, base.data(), 256, 0, -1);
    engine.write(buffer, patch.data(), 16, 100, 0);
    std::vector<uint8_t> expected = base;
    std::copy(patch.begin(), patch.end(), expected.begin() + 100);
    std::vector<uint8_t> out(256);
    engine.read(buffer, out.data(), 256, 0, 0);
    EXPECT_EQ(out, expected);
}

TEST(Buffer, ZeroSizeAndOutOfRangeAreRejected) {
    VKD_REQUIRE_DEVICE();
    TransferEngine engine(context());
    EXPECT_THROW(Buffer(context(), 0), InvalidArgumentError);
    Buffer buffer(context(), 64);
    std::vector<uint8_t> data(65);
    EXPECT_THROW(engine.write(buffer, data.data(), 65, 0, -1), InvalidArgumentError);
    EXPECT_THROW(engine.write(buffer, data.data(), 8, 60, -1), InvalidArgumentError);
    EXPECT_THROW(engine.read(buffer, data.data(), 8, 0, 1), IndexOutOfRangeError);
}

TEST(Buffer, LiveCountReturnsToStart) {
    VKD_REQUIRE_DEVICE();
    const int64_t before = Buffer::liveCount();
    {
        std::vector<std::unique_ptr<Buffer>> buffers;
        for (int i = 0; i < 100; ++i) buffers.push_back(std::make_unique<Buffer>(context(), 1024));
        EXPECT_EQ(Buffer::liveCount(), before + 100);
    }
    EXPECT_EQ(Buffer::liveCount(), before);
}

TEST(Buffer, HostViewSharesTheMemoryOfHostVisibleReplicas) {
    VKD_REQUIRE_DEVICE();
    TransferOptions staged;  // writes and reads through staging copies on the queue
    staged.map_directly = false;
    TransferEngine engine(context(), staged);
    Buffer buffer(context(), 4096);
    if (!buffer.replica(0).directlyMapped()) {
        EXPECT_EQ(buffer.hostView(0), nullptr);  // device-local memory has no host view
        return;
    }
    const auto data = test::randomBytes(4096, 5);
    engine.write(buffer, data.data(), 4096, 0, 0);  // a copy the queue runs later
    const auto* view = static_cast<const uint8_t*>(buffer.hostView(0));  // waits for it
    ASSERT_NE(view, nullptr);
    EXPECT_TRUE(std::equal(data.begin(), data.end(), view));

    const auto patch = test::randomBytes(64, 6);
    std::copy(patch.begin(), patch.end(), static_cast<uint8_t*>(buffer.hostView(0)) + 128);
    std::vector<uint8_t> out(4096);
    engine.read(buffer, out.data(), 4096, 0, 0);  // the queue's copy sees the host's write
    std::vector<uint8_t> expected = data;
    std::copy(patch.begin(), patch.end(), expected.begin() + 128);
    EXPECT_EQ(out, expected);
    EXPECT_THROW(buffer.hostView(context().queueCount()), IndexOutOfRangeError);
}

TEST(Context, WaitIdleAndQueueIndexChecks) {
    VKD_REQUIRE_DEVICE();
    EXPECT_NO_THROW(context().waitIdle(-1));
    EXPECT_NO_THROW(context().waitIdle(0));
    EXPECT_THROW(context().waitIdle(context().queueCount()), IndexOutOfRangeError);
}
