// copyReplicaOnDevice and dispatchOnReplicas (validation on where installed): on a context of three queues of one
// family, replica 0 copied into replicas 1 and 2 without the host, after the work already
// submitted to queue 0, and into another buffer at an offset; where the device has two queue
// families with compute, the same between them; the refusals name the replicas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compute_helpers.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/device_selection.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/instance.hpp"
#include "vkdispatch/log.hpp"
#include "vkdispatch/replica_routes.hpp"
#include "vkdispatch/replica_dispatch.hpp"
#include "vkdispatch/transfer_engine.hpp"

using namespace vkdispatch;

namespace {

// The test device, on an instance with validation (where installed) that every test's context
// uses; TearDown reports the validation errors.
class ReplicaCopy : public ::testing::Test {
protected:
    void SetUp() override {
        auto& env = test::deviceEnvironment();
        if (!env.context) GTEST_SKIP() << env.skip_reason;
        device_index = env.context->devices()[0]->info().index;
        validated = std::make_unique<Instance>(InstanceOptions{true});
    }
    void TearDown() override {
        for (const auto& error : takeValidationErrors()) ADD_FAILURE() << error;
    }
    const DeviceInfo& info() const { return validated->devices()[device_index]; }

    std::unique_ptr<Instance> validated;
    int device_index = 0;
};

// Random words in each replica of `buffer` (a different draw per replica); returns them.
std::vector<std::vector<uint32_t>> writeDistinctReplicas(TransferEngine& engine, Buffer& buffer,
                                                         unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<std::vector<uint32_t>> words(buffer.replicaCount(),
                                             std::vector<uint32_t>(buffer.size() / 4));
    for (int q = 0; q < buffer.replicaCount(); ++q) {
        for (auto& v : words[q]) v = rng();
        engine.write(buffer, words[q].data(), words[q].size() * 4, 0, q);
    }
    return words;
}

}  // namespace

TEST_F(ReplicaCopy, CopiesOnTheDeviceBetweenQueuesOfOneFamily) {
    Context context(*validated, {device_index}, {std::vector<int>(3, computeQueueFamily(info()))});
    TransferEngine engine(context);
    constexpr size_t kWords = 100000;
    Buffer buffer(context, kWords * 4);
    const auto start = writeDistinctReplicas(engine, buffer, 9);
    ASSERT_TRUE(copiesOnDevice(buffer, 0, 1));
    EXPECT_FALSE(copiesOnDevice(buffer, 1, 1));
    copyReplicaOnDevice(buffer, 0, buffer, 1);
    copyReplicaOnDevice(buffer, 0, buffer, 2);
    for (int q = 0; q < 3; ++q) {
        std::vector<uint32_t> got(kWords);
        engine.read(buffer, got.data(), kWords * 4, 0, q);
        EXPECT_EQ(got, start[0]) << "replica " << q;
    }
    const std::string refused =
        test::messageOf([&] { copyReplicaOnDevice(buffer, 2, buffer, 2); });
    EXPECT_NE(refused.find("replica 2 cannot be copied from replica 2"), std::string::npos)
        << refused;
    EXPECT_THROW(copyReplicaOnDevice(buffer, 0, buffer, 3), IndexOutOfRangeError);
}

namespace {

// Copies replica `src` of a buffer of random words into replica `dst` of a buffer three words
// longer (holding other random words) from byte 8, and checks the words before, inside and
// after the copied range; copying the longer buffer back is refused (it does not fit).
void expectCopyIntoOffset(Context& context, int src, int dst) {
    TransferEngine engine(context);
    constexpr size_t kWords = 50000;
    Buffer source(context, kWords * 4), target(context, (kWords + 3) * 4);
    std::mt19937 rng(src * 7 + dst);
    std::vector<uint32_t> data(kWords), before(kWords + 3);
    for (auto& v : data) v = rng();
    for (auto& v : before) v = rng();
    engine.write(source, data.data(), kWords * 4, 0, src);
    engine.write(target, before.data(), before.size() * 4, 0, -1);
    copyReplicaOnDevice(source, src, target, dst, 8);
    std::vector<uint32_t> got(kWords + 3), expected = before;
    std::copy(data.begin(), data.end(), expected.begin() + 2);
    engine.read(target, got.data(), got.size() * 4, 0, dst);
    EXPECT_EQ(got, expected) << "replica " << src << " -> " << dst;
    EXPECT_THROW(copyReplicaOnDevice(target, dst, source, src, 0), InvalidArgumentError);
}

}  // namespace

TEST_F(ReplicaCopy, CopiesIntoAnotherBufferAtAnOffset) {
    Context context(*validated, {device_index}, {std::vector<int>(3, computeQueueFamily(info()))});
    expectCopyIntoOffset(context, 2, 0);
    expectCopyIntoOffset(context, 1, 1);  // two buffers' replicas on one queue
}

TEST_F(ReplicaCopy, CopiesBetweenQueueFamilies) {
    const int compute = computeQueueFamily(info()), graphics = graphicsQueueFamily(info());
    if (compute == graphics) GTEST_SKIP() << "the device has one queue family with compute";
    Context context(*validated, {device_index}, {{compute, graphics, compute}});
    expectCopyIntoOffset(context, 0, 1);
    expectCopyIntoOffset(context, 1, 2);
}

namespace {

constexpr const char* kAccumulate = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Acc { uint acc[]; };
layout(set = 0, binding = 1) readonly buffer Src { uint src[]; };
layout(push_constant) uniform Range { uint count; } range;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < range.count) acc[i] += src[i];
}
)";

std::vector<uint8_t> countBytes(uint32_t count) {
    std::vector<uint8_t> bytes(4);
    std::memcpy(bytes.data(), &count, 4);
    return bytes;
}

}  // namespace

// dispatchOnReplicas: a kernel on queue 2 adds replica 1 of a buffer into replica 2 (the
// replicas of queues 0 and 1 stay as they were), then one on queue 2 adds replica 1 into
// replica 0 (replicas of two other queues); the refusals name what is wrong.
TEST_F(ReplicaCopy, DispatchesAKernelOnChosenReplicas) {
    Context context(*validated, {device_index}, {std::vector<int>(3, computeQueueFamily(info()))});
    TransferEngine engine(context);
    constexpr uint32_t kWords = 100003;
    Buffer buffer(context, kWords * 4);
    const auto start = writeDistinctReplicas(engine, buffer, 11);
    ComputePlan plan(context, test::compileOrFail(kAccumulate, "accumulate"),
                     {BindingType::StorageBuffer, BindingType::StorageBuffer}, 4, "accumulate");
    dispatchOnReplicas(plan, 2, {{&buffer, 2}, {&buffer, 1}}, countBytes(kWords),
                       (kWords + 63) / 64);
    std::vector<std::vector<uint32_t>> expected = start;
    for (uint32_t i = 0; i < kWords; ++i) expected[2][i] += start[1][i];
    auto expectReplicas = [&](const char* after) {
        for (int q = 0; q < 3; ++q) {
            std::vector<uint32_t> got(kWords);
            engine.read(buffer, got.data(), kWords * 4, 0, q);
            EXPECT_EQ(got, expected[q]) << "replica " << q << " after " << after;
        }
    };
    expectReplicas("the first dispatch");
    dispatchOnReplicas(plan, 2, {{&buffer, 0}, {&buffer, 1}}, countBytes(kWords),
                       (kWords + 63) / 64);
    for (uint32_t i = 0; i < kWords; ++i) expected[0][i] += start[1][i];
    expectReplicas("the second dispatch");
    const std::string count =
        test::messageOf([&] { dispatchOnReplicas(plan, 0, {{&buffer, 0}}, countBytes(1), 1); });
    EXPECT_NE(count.find("has 2 bindings, got 1"), std::string::npos) << count;
    const std::string pc = test::messageOf(
        [&] { dispatchOnReplicas(plan, 0, {{&buffer, 0}, {&buffer, 1}}, {1, 2}, 1); });
    EXPECT_NE(pc.find("push_constants: plan 'accumulate' takes 4 bytes, got 2"),
              std::string::npos) << pc;
    EXPECT_THROW(dispatchOnReplicas(plan, 0, {{&buffer, 3}, {&buffer, 1}}, countBytes(1), 1),
                 IndexOutOfRangeError);
}
