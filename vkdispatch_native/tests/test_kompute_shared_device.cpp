// kp::Managers of one physical device share its Vulkan device and queues, as CUDA's primary
// context is shared: objects one made run in another's sequences (Kompute's
// TestManagerParallelExecution does that), destroying one Manager leaves the others' objects,
// the device goes with its last holder and the next Manager makes a new one, and a Manager over
// the program's own VkDevice stays apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "compute_helpers.hpp"
#include "kompute/Kompute.hpp"
#include "kompute_helpers.hpp"
#include "kp/queue_mapping.hpp"
#include "kp/shared_runtimes.hpp"
#include "own_vulkan.hpp"
#include "vkdispatch/log.hpp"

namespace {

using vkdispatch::test::kAffine;
using vkdispatch::test::messageOf;
using vkdispatch::test::randomFloats;
using vkdispatch::test::uploadDispatchDownload;

constexpr size_t kCount = 96;

// `y` holds 3x + 1 of each value of `x`, as kAffine computes it: to a few ulps of its terms
// (the device may fuse the multiply-add, and 3x + 1 near 0 cancels).
void expectAffineOf(const std::vector<float>& x, kp::TensorT<float>& y) {
    const auto actual = y.vector();
    ASSERT_EQ(actual.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(actual[i], x[i] * 3.0f + 1.0f,
                    4 * FLT_EPSILON * (std::fabs(x[i] * 3.0f) + 1.0f)) << i;
}

// An algorithm of `mgr` computing y = 3x + 1 over `x` and `y`, which any Manager of the device
// may have made.
std::shared_ptr<kp::Algorithm> affineAlgorithm(kp::Manager& mgr,
                                               const std::shared_ptr<kp::Memory>& x,
                                               const std::shared_ptr<kp::Memory>& y) {
    static const std::vector<uint32_t> spirv = kp::Shader::compileSource(kAffine);
    return mgr.algorithm({x, y}, spirv);
}

// The queues of family 0 that Managers of device 0 share.
int sharedQueuesOfFamily0() {
    const auto runtime = kp::detail::sharedRuntime(0);
    int count = 0;
    for (int q = 0; q < runtime->context->queueCount(); ++q)
        count += runtime->context->queue(q).family() == 0 ? 1 : 0;
    return count;
}

}  // namespace

TEST(KomputeSharedDevice, ObjectsOfOneManagerRunInTheSequencesOfAnother) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    kp::Manager other(0, {0});
    const auto x = randomFloats(kCount, 71);
    auto tx = mgr.tensor(x);
    auto ty = mgr.tensor(randomFloats(kCount, 72));
    uploadDispatchDownload(*other.sequence(), affineAlgorithm(mgr, tx, ty), tx, ty);
    expectAffineOf(x, *ty);
    // And back: an algorithm of `other` over one tensor of each, in mgr's sequence.
    auto tz = other.tensor(randomFloats(kCount, 73));
    uploadDispatchDownload(*mgr.sequence(), affineAlgorithm(other, ty, tz), ty, tz);
    expectAffineOf(ty->vector(), *tz);
    for (const auto& error : vkdispatch::takeValidationErrors()) ADD_FAILURE() << error;
}

TEST(KomputeSharedDevice, ManagersWithOtherFamilyListsShareTheQueues) {
    VKD_REQUIRE_DEVICE();
    if (sharedQueuesOfFamily0() < 2)
        GTEST_SKIP() << "family 0 of device 0 has one queue: no Manager can ask for two";
    kp::Manager one(0, {0});
    kp::Manager two(0, {0, 0});
    const auto x = randomFloats(kCount, 74);
    auto tx = one.tensor(x);
    auto ty = one.tensor(randomFloats(kCount, 75));
    auto algorithm = affineAlgorithm(one, tx, ty);
    for (uint32_t queue : {1u, 0u}) {  // y's host copy refilled: each run must write it
        SCOPED_TRACE("queue " + std::to_string(queue));
        std::fill(ty->data(), ty->data() + kCount, 0.5f);
        uploadDispatchDownload(*two.sequence(queue), algorithm, tx, ty);
        expectAffineOf(x, *ty);
    }
    EXPECT_EQ(messageOf([&] { two.sequence(2); }),
              "Kompute Sequence queue index 2 does not exist: the manager has 2 queue(s)");
}

TEST(KomputeSharedDevice, ASequenceIndexBeyondTheManagersQueuesIsRefused) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    // The device may have more queues than the Manager asked for: those are not its own.
    EXPECT_EQ(messageOf([&] { mgr.sequence(1); }),
              "Kompute Sequence queue index 1 does not exist: the manager has 1 queue(s)");
}

TEST(KomputeSharedDevice, TheKthEntryOfAFamilyIsTheDevicesKthQueueOfIt) {
    // A device with three queues of family 0 and two of family 2 (a GPU's async compute).
    const std::vector<uint32_t> device = {0, 0, 0, 2, 2};
    EXPECT_EQ(kp::detail::mapQueues(device, {0}), (std::vector<int>{0}));
    EXPECT_EQ(kp::detail::mapQueues(device, {0, 2}), (std::vector<int>{0, 3}));
    EXPECT_EQ(kp::detail::mapQueues(device, {2, 0, 2, 0, 0}), (std::vector<int>{3, 0, 4, 1, 2}));
    EXPECT_EQ(messageOf([&] { kp::detail::mapQueues(device, {2, 0, 2, 2}); }),
              "Kompute Manager asked for 3 queue(s) of family 2, but the device has 2 (the "
              "Managers of one device share its queues)");
    EXPECT_EQ(messageOf([&] { kp::detail::mapQueues(device, {1}); }),
              "Kompute Manager asked for 1 queue(s) of family 1, but the device has 0 (the "
              "Managers of one device share its queues)");
}

TEST(KomputeSharedDevice, AskingForMoreQueuesOfAFamilyThanTheDeviceHasIsRefused) {
    VKD_REQUIRE_DEVICE();
    const auto runtime = kp::detail::sharedRuntime(0);
    const uint32_t available =
        std::min(runtime->device().info().queue_families[0].queue_count,
                 kp::detail::kQueuesPerFamily);
    const std::vector<uint32_t> asked(available + 1, 0);
    EXPECT_EQ(messageOf([&] { kp::Manager(0, asked); }),
              "Kompute Manager asked for " + std::to_string(available + 1) +
                  " queue(s) of family 0, but the device has " + std::to_string(available) +
                  " (the Managers of one device share its queues)");
    EXPECT_NO_THROW(kp::Manager(0, std::vector<uint32_t>(available, 0)));
}

TEST(KomputeSharedDevice, DestroyingOneManagerLeavesTheObjectsOfAnother) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    kp::Manager other;
    auto theirs = other.tensor(randomFloats(kCount, 76));
    const auto x = randomFloats(kCount, 77);
    auto tx = mgr.tensor(x);
    auto ty = mgr.tensor(randomFloats(kCount, 78));
    auto algorithm = affineAlgorithm(mgr, tx, ty);
    auto sequence = mgr.sequence();
    other.destroy();
    EXPECT_FALSE(theirs->isInit());
    uploadDispatchDownload(*sequence, algorithm, tx, ty);
    expectAffineOf(x, *ty);
    // The destroyed Manager's objects still raise, as they did.
    EXPECT_EQ(messageOf([&] { mgr.sequence()->eval<kp::OpSyncDevice>({theirs}); }),
              "Kompute Tensor was destroyed: it cannot be recorded");
    EXPECT_EQ(messageOf([&] { other.tensor({1.0f}); }),
              "Kompute Tensor device is null: its Manager was destroyed");
}

TEST(KomputeSharedDevice, TheDeviceGoesWithItsLastHolderAndTheNextManagerMakesAnother) {
    VKD_REQUIRE_DEVICE();
    std::weak_ptr<kp::detail::Runtime> first;
    std::shared_ptr<vk::Instance> instance;
    {
        kp::Manager mgr;
        kp::Manager other;
        auto tensor = mgr.tensor(randomFloats(kCount, 79));
        first = tensor->runtime();
        EXPECT_EQ(other.tensor(randomFloats(kCount, 80))->runtime(), tensor->runtime());
        instance = mgr.getVkInstance();
        EXPECT_EQ(*instance, *other.getVkInstance());
        mgr.destroy();
        EXPECT_FALSE(first.expired());  // other holds it
    }
    EXPECT_FALSE(first.expired());  // so does the instance pointer
    instance.reset();
    EXPECT_TRUE(first.expired());
    kp::Manager fresh;
    const auto x = randomFloats(kCount, 81);
    auto tx = fresh.tensor(x);
    auto ty = fresh.tensor(randomFloats(kCount, 82));
    EXPECT_NE(tx->runtime(), nullptr);
    uploadDispatchDownload(*fresh.sequence(), affineAlgorithm(fresh, tx, ty), tx, ty);
    expectAffineOf(x, *ty);
}

TEST(KomputeSharedDevice, AManagerOverTheProgramsDeviceStaysApart) {
    VKD_REQUIRE_DEVICE();
    vkdispatch::test::OwnVulkan own;  // first: it must outlive the objects on its device
    ASSERT_NE(own.device, VK_NULL_HANDLE);
    auto adopted = own.manager();
    kp::Manager mgr;
    const auto x = randomFloats(kCount, 83);
    auto ours = mgr.tensor(x);
    auto ours_out = mgr.tensor(randomFloats(kCount, 84));
    auto theirs = adopted->tensor(x);
    auto theirs_out = adopted->tensor(randomFloats(kCount, 85));
    auto their_algorithm = affineAlgorithm(*adopted, theirs, theirs_out);
    EXPECT_EQ(messageOf([&] { adopted->sequence()->eval<kp::OpSyncDevice>({ours}); }),
              "Kompute Sequence cannot record OpSyncDevice: memory object 0 was made on another "
              "device than the sequence's");
    EXPECT_EQ(messageOf([&] { mgr.sequence()->eval<kp::OpAlgoDispatch>(their_algorithm); }),
              "Kompute Sequence cannot record OpAlgoDispatch: memory object 0 was made on "
              "another device than the sequence's");
    EXPECT_NE(messageOf([&] { affineAlgorithm(mgr, ours, theirs_out); })
                  .find("tensors: memory object 1 was made on another device than the "
                        "algorithm's"),
              std::string::npos);
    // Each still computes on its own device.
    uploadDispatchDownload(*adopted->sequence(), their_algorithm, theirs, theirs_out);
    uploadDispatchDownload(*mgr.sequence(), affineAlgorithm(mgr, ours, ours_out), ours, ours_out);
    expectAffineOf(x, *theirs_out);
    expectAffineOf(x, *ours_out);
    for (const auto& error : vkdispatch::takeValidationErrors()) ADD_FAILURE() << error;
}
