// copyReplicaOnDevice: on a context of three queues of one family (validation on where
// installed), replica 0 copied into replicas 1 and 2 without the host, after the work already
// submitted to queue 0; the refusals name the replicas.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "compute_helpers.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/device_selection.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/instance.hpp"
#include "vkdispatch/log.hpp"
#include "vkdispatch/replica_copy.hpp"
#include "vkdispatch/transfer_engine.hpp"

using namespace vkdispatch;

TEST(ReplicaCopy, CopiesOnTheDeviceBetweenQueuesOfOneFamily) {
    auto& env = test::deviceEnvironment();
    if (!env.context) GTEST_SKIP() << env.skip_reason;
    const int device_index = env.context->devices()[0]->info().index;
    const Instance validated(InstanceOptions{true});
    const int family = computeQueueFamily(validated.devices()[device_index]);
    Context context(validated, {device_index}, {std::vector<int>(3, family)});
    TransferEngine engine(context);
    constexpr size_t kWords = 100000;
    Buffer buffer(context, kWords * 4);
    std::mt19937 rng(9);
    std::vector<std::vector<uint32_t>> start(3, std::vector<uint32_t>(kWords));
    for (int q = 0; q < 3; ++q) {
        for (auto& v : start[q]) v = rng();
        engine.write(buffer, start[q].data(), kWords * 4, 0, q);
    }
    ASSERT_TRUE(copiesOnDevice(buffer, 0, 1));
    EXPECT_FALSE(copiesOnDevice(buffer, 1, 1));
    copyReplicaOnDevice(buffer, 0, 1);
    copyReplicaOnDevice(buffer, 0, 2);
    for (int q = 0; q < 3; ++q) {
        std::vector<uint32_t> got(kWords);
        engine.read(buffer, got.data(), kWords * 4, 0, q);
        EXPECT_EQ(got, start[0]) << "replica " << q;
    }
    const std::string refused = test::messageOf([&] { copyReplicaOnDevice(buffer, 2, 2); });
    EXPECT_NE(refused.find("replica 2 cannot be copied from replica 2"), std::string::npos)
        << refused;
    EXPECT_THROW(copyReplicaOnDevice(buffer, 0, 3), IndexOutOfRangeError);
    for (const auto& error : takeValidationErrors()) ADD_FAILURE() << error;
}
