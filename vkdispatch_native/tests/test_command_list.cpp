#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "compute_helpers.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/dispatch_command.hpp"
#include "vkdispatch/errors.hpp"

using namespace vkdispatch;
using test::context;
using test::messageOf;

namespace {

// y[i] = a * x[i] + pc.b for i < n, with a and n in the uniform block.
const char* kAxpy = R"(#version 450
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, scalar) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, scalar) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 2, scalar) uniform U { float a; uint n; };
layout(push_constant, scalar) uniform PC { float b; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) return;
    y[i] = a * x[i] + pc.b;
}
)";

// data[i] = data[i] * pc.m + pc.a for i < pc.n.
const char* kAffine = R"(#version 450
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, scalar) buffer D { float data[]; };
layout(push_constant, scalar) uniform PC { float m; float a; uint n; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) data[i] = data[i] * pc.m + pc.a;
}
)";

// dst[i] = src[i] + 1 (no push constants).
const char* kPlusOne = R"(#version 450
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, scalar) readonly buffer S { uint src[]; };
layout(set = 0, binding = 1, scalar) writeonly buffer D { uint dst[]; };
void main() { dst[gl_GlobalInvocationID.x] = src[gl_GlobalInvocationID.x] + 1u; }
)";

const std::vector<BindingType> kAxpyBindings = {
    BindingType::StorageBuffer, BindingType::StorageBuffer, BindingType::UniformBuffer};

struct Uniforms {
    float a;
    uint32_t n;
};

struct AffinePc {
    float m;
    float a;
    uint32_t n;
};

std::vector<float> randomFloats(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 10.0f);
    std::vector<float> out(n);
    for (auto& v : out) v = normal(rng);
    return out;
}

uint32_t groupsFor(size_t n, uint32_t size) { return static_cast<uint32_t>((n + size - 1) / size); }

// kAxpy over n floats recorded once, with x, y (n + y_tail floats) and the uniform block bound.
struct AxpyRig {
    ComputePlan plan;
    Buffer x, y, uniforms;
    DescriptorSet set;
    CommandList list;

    AxpyRig(size_t n, size_t y_tail)
        : plan(context(), test::compileOrFail(kAxpy, "axpy"), kAxpyBindings, 4, "axpy"),
          x(context(), n * 4), y(context(), (n + y_tail) * 4), uniforms(context(), 256),
          set(plan), list(context()) {
        set.bindBuffer(0, x, 0, 0, false, true, false);
        set.bindBuffer(1, y, 0, 0, false, false, true);
        set.bindBuffer(2, uniforms, 0, sizeof(Uniforms), true, true, false);
        list.recordDispatch(plan, set, {groupsFor(n, 64), 1, 1});
    }
};

}  // namespace

TEST(CommandListPure, WorkgroupCountChecksNameAxisValueAndLimit) {
    const std::array<uint32_t, 3> limits = {100, 50, 10};
    EXPECT_NO_THROW(checkWorkgroupCounts({100, 50, 10}, limits));
    EXPECT_NO_THROW(checkWorkgroupCounts({1, 1, 1}, limits));
    std::string message = messageOf([&] { checkWorkgroupCounts({1, 51, 1}, limits); });
    EXPECT_NE(message.find("y = 51"), std::string::npos) << message;
    EXPECT_NE(message.find("50"), std::string::npos) << message;
    message = messageOf([&] { checkWorkgroupCounts({1, 1, 0}, limits); });
    EXPECT_NE(message.find("z = 0"), std::string::npos) << message;
    EXPECT_THROW(checkWorkgroupCounts({101, 1, 1}, limits), InvalidArgumentError);
}

TEST(CommandListPure, LeastBusyQueueIsSmallestGapFirstOnTies) {
    EXPECT_EQ(leastBusyQueue({}), -1);
    EXPECT_EQ(leastBusyQueue({3}), 0);
    EXPECT_EQ(leastBusyQueue({3, 1, 2}), 1);
    EXPECT_EQ(leastBusyQueue({2, 0, 0}), 1);
}

class CommandListTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!test::deviceEnvironment().context)
            GTEST_SKIP() << test::deviceEnvironment().skip_reason;
    }
};

TEST_F(CommandListTest, AxpyWithUniformAndPushConstantsMatchesCpu) {
    const size_t n = 1000;  // not a multiple of 64: the last workgroup is partial
    const auto x = randomFloats(n, 1);
    const Uniforms uniforms{2.5f, static_cast<uint32_t>(n)};
    const float b = -3.25f;

    AxpyRig rig(n, 64);
    test::upload(rig.x, x);
    const std::vector<float> sentinel(n + 64, 12345.0f);
    test::upload(rig.y, sentinel);
    CommandList& list = rig.list;
    EXPECT_EQ(list.instanceSize(), 4u);
    uint8_t pc[4];
    std::memcpy(pc, &b, 4);
    const auto* uniform_bytes = reinterpret_cast<const uint8_t*>(&uniforms);
    const uint64_t value =
        list.submit(pc, 4, 1, 0, &rig.uniforms, uniform_bytes, sizeof(uniforms));
    EXPECT_GT(value, 0u);

    const auto y = test::download<float>(rig.y, n + 64);
    for (size_t i = 0; i < n; ++i)  // the GPU may fuse the multiply-add: allow rounding
        ASSERT_NEAR(y[i], uniforms.a * x[i] + b, 1e-6f * (std::fabs(uniforms.a * x[i]) + 1.0f))
            << "i=" << i;
    for (size_t i = n; i < n + 64; ++i) ASSERT_EQ(y[i], 12345.0f) << "written past n at " << i;
}

// The kept recording is reused across uniform uploads: each upload must land before the
// dispatches that read it, and a later submission without one still runs on the last data.
TEST_F(CommandListTest, KeptRecordingReadsEachNewUniformUpload) {
    const size_t n = 500;
    const auto x = randomFloats(n, 21);
    const auto scales = randomFloats(3, 22);
    const float b = 0.75f;
    AxpyRig rig(n, 0);
    test::upload(rig.x, x);
    uint8_t pc[4];
    std::memcpy(pc, &b, 4);
    auto check = [&](float a, const char* when) {
        const auto y = test::download<float>(rig.y, n);
        for (size_t i = 0; i < n; ++i)
            ASSERT_NEAR(y[i], a * x[i] + b, 1e-5f * (std::fabs(a * x[i]) + 1.0f))
                << when << ", a=" << a << ", i=" << i;
    };
    for (float a : scales) {
        test::upload(rig.y, std::vector<float>(n, -1.0f));
        const Uniforms uniforms{a, static_cast<uint32_t>(n)};
        rig.list.submit(pc, 4, 1, 0, &rig.uniforms, reinterpret_cast<const uint8_t*>(&uniforms),
                        sizeof(uniforms));
        check(a, "after an upload");
        test::upload(rig.y, std::vector<float>(n, -1.0f));
        rig.list.submit(pc, 4, 1, 0, nullptr, nullptr, 0);
        check(a, "resubmitted without an upload");
    }
}

TEST_F(CommandListTest, DependentDispatchesSeeEachOthersWrites) {
    const size_t n = 4096;
    std::vector<uint32_t> start(n);
    for (size_t i = 0; i < n; ++i) start[i] = static_cast<uint32_t>(i * 7);
    ComputePlan plan(context(), test::compileOrFail(kPlusOne, "plus_one"),
                     {BindingType::StorageBuffer, BindingType::StorageBuffer}, 0, "plus_one");
    Buffer a(context(), n * 4), b(context(), n * 4), c(context(), n * 4);
    test::upload(a, start);
    DescriptorSet first(plan), second(plan);
    first.bindBuffer(0, a, 0, 0, false, true, false);
    first.bindBuffer(1, b, 0, 0, false, false, true);
    second.bindBuffer(0, b, 0, 0, false, true, false);  // reads what the first one wrote
    second.bindBuffer(1, c, 0, 0, false, false, true);

    CommandList list(context());
    list.recordDispatch(plan, first, {groupsFor(n, 64), 1, 1});
    list.recordDispatch(plan, second, {groupsFor(n, 64), 1, 1});
    EXPECT_EQ(list.instanceSize(), 0u);
    list.submit(nullptr, 0, 1, 0, nullptr, nullptr, 0);
    const auto out = test::download<uint32_t>(c, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], start[i] + 2) << "i=" << i;
}

TEST_F(CommandListTest, InstancesReplayInOrderWithTheirOwnPushConstants) {
    const size_t n = 100;
    const auto x = randomFloats(n, 2);
    ComputePlan plan(context(), test::compileOrFail(kAffine, "affine"),
                     {BindingType::StorageBuffer}, sizeof(AffinePc), "affine");
    Buffer data(context(), n * 4);
    test::upload(data, x);
    DescriptorSet set(plan);
    set.bindBuffer(0, data, 0, 0, false, true, true);

    CommandList list(context());
    list.recordDispatch(plan, set, {groupsFor(n, 32), 1, 1});
    list.recordDispatch(plan, set, {groupsFor(n, 32), 1, 1});
    ASSERT_EQ(list.instanceSize(), 2 * sizeof(AffinePc));
    const uint32_t count = static_cast<uint32_t>(n);
    // 3 instances x 2 dispatches; affine maps do not commute, so order shows in the result.
    const std::vector<AffinePc> pcs = {{2.0f, 1.0f, count},  {3.0f, 0.0f, count},
                                       {1.0f, 5.0f, count},  {0.5f, -2.0f, count},
                                       {-1.0f, 0.25f, count}, {4.0f, 3.0f, count}};
    const auto bytes = test::bytesOf(pcs);
    list.submit(bytes.data(), bytes.size(), 3, 0, nullptr, nullptr, 0);

    const auto out = test::download<float>(data, n);
    for (size_t i = 0; i < n; ++i) {
        float expected = x[i];
        for (const AffinePc& p : pcs) expected = expected * p.m + p.a;
        ASSERT_NEAR(out[i], expected, 1e-3f * (1.0f + std::fabs(expected))) << "i=" << i;
    }
}

// 500 dependent read-modify-write dispatches, submitted to queue 0 and then to every queue: each
// replica must hold its start value plus exactly the increments that ran on its queue (1000 on
// queue 0, 500 elsewhere). Integer-valued floats keep every sum exact.
TEST_F(CommandListTest, LongChainOfIncrementsIsExact) {
    ComputePlan plan(context(), test::compileOrFail(kAffine, "affine"),
                     {BindingType::StorageBuffer}, sizeof(AffinePc), "affine");
    const size_t n = 64;
    std::mt19937 rng(31);
    std::uniform_int_distribution<int> integers(-1000000, 1000000);
    std::vector<float> start(n);
    for (float& v : start) v = static_cast<float>(integers(rng));
    Buffer data(context(), n * 4);
    test::upload(data, start);
    DescriptorSet set(plan);
    set.bindBuffer(0, data, 0, 0, false, true, true);
    CommandList list(context());
    const int dispatches = 500;
    for (int i = 0; i < dispatches; ++i) list.recordDispatch(plan, set, {2, 1, 1});
    std::vector<AffinePc> pcs(dispatches, AffinePc{1.0f, 1.0f, static_cast<uint32_t>(n)});
    const auto bytes = test::bytesOf(pcs);
    list.submit(bytes.data(), bytes.size(), 1, 0, nullptr, nullptr, 0);
    list.submit(bytes.data(), bytes.size(), 1, kAllQueues, nullptr, nullptr, 0);
    for (int q = 0; q < context().queueCount(); ++q) {
        const float increments = q == 0 ? 2.0f * dispatches : dispatches;
        const auto out = test::download<float>(data, n, q);
        for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(out[i], start[i] + increments) << "queue " << q << ", i=" << i;
    }
}

// Submissions without uniform data reuse a kept command buffer: each resubmission must still run,
// and changed push constants, a rebound set or new dispatches must each be recorded afresh.
TEST_F(CommandListTest, KeptRecordingRunsAgainAndFollowsEveryChange) {
    ComputePlan plan(context(), test::compileOrFail(kAffine, "affine"),
                     {BindingType::StorageBuffer}, sizeof(AffinePc), "affine");
    const size_t n = 300;
    const auto x = randomFloats(n, 11);
    const auto z = randomFloats(n, 12);
    Buffer first(context(), n * 4);
    Buffer second(context(), n * 4);
    test::upload(first, x);
    test::upload(second, z);
    DescriptorSet set(plan);
    set.bindBuffer(0, first, 0, 0, false, true, true);
    CommandList list(context());
    list.recordDispatch(plan, set, {groupsFor(n, 32), 1, 1});
    const uint32_t count = static_cast<uint32_t>(n);
    auto submit = [&](AffinePc pc) {
        const auto bytes = test::bytesOf(std::vector<AffinePc>{pc});
        list.submit(bytes.data(), bytes.size(), 1, 0, nullptr, nullptr, 0);
    };
    std::vector<float> expected_first = x;
    std::vector<float> expected_second = z;
    auto apply = [](std::vector<float>& values, AffinePc pc, int times) {
        for (int t = 0; t < times; ++t)
            for (float& v : values) v = v * pc.m + pc.a;
    };
    const AffinePc plus_one{1.0f, 1.0f, count};
    for (int i = 0; i < 3; ++i) submit(plus_one);  // recorded once, submitted three times
    apply(expected_first, plus_one, 3);
    const AffinePc twice{2.0f, 0.0f, count};
    submit(twice);  // new push constants
    apply(expected_first, twice, 1);
    set.bindBuffer(0, second, 0, 0, false, true, true);
    submit(twice);  // same push constants, rebound set
    apply(expected_second, twice, 1);
    list.recordDispatch(plan, set, {groupsFor(n, 32), 1, 1});  // now two dispatches per submit
    const auto one = test::bytesOf(std::vector<AffinePc>(2, plus_one));
    list.submit(one.data(), one.size(), 1, 0, nullptr, nullptr, 0);
    const auto two = test::bytesOf(std::vector<AffinePc>(4, plus_one));
    list.submit(two.data(), two.size(), 2, 0, nullptr, nullptr, 0);  // a new instance count
    apply(expected_second, plus_one, 2 + 4);
    for (auto [buffer, expected] : {std::make_pair(&first, &expected_first),
                                    std::make_pair(&second, &expected_second)}) {
        const auto out = test::download<float>(*buffer, n);
        for (size_t i = 0; i < n; ++i)
            ASSERT_NEAR(out[i], (*expected)[i], 1e-3f * (1.0f + std::fabs((*expected)[i])))
                << "i=" << i;
    }
}

TEST_F(CommandListTest, UniformUploadIsPaddedAndChunked) {
    CommandList list(context());
    Buffer uniform(context(), 100000);
    test::upload(uniform, std::vector<uint8_t>(100000, 0xAB));
    const auto small = test::randomBytes(7, 5);
    list.submit(nullptr, 0, 1, -2, &uniform, small.data(), small.size());
    auto out = test::download<uint8_t>(uniform, 16);
    for (size_t i = 0; i < 7; ++i) EXPECT_EQ(out[i], small[i]);
    for (size_t i = 8; i < 16; ++i) EXPECT_EQ(out[i], 0xAB);  // byte 7 is padding

    const auto large = test::randomBytes(70001, 6);  // two vkCmdUpdateBuffer chunks
    list.submit(nullptr, 0, 1, 0, &uniform, large.data(), large.size());
    out = test::download<uint8_t>(uniform, 70001);
    EXPECT_EQ(out, large);

    EXPECT_THROW(list.submit(nullptr, 0, 1, 0, &uniform, large.data(), 100001),
                 InvalidArgumentError);
    EXPECT_THROW(list.submit(nullptr, 0, 1, 0, nullptr, large.data(), 4), InvalidArgumentError);
}

TEST_F(CommandListTest, SubmitErrors) {
    ComputePlan plan(context(), test::compileOrFail(kAffine, "affine"),
                     {BindingType::StorageBuffer}, sizeof(AffinePc), "affine");
    Buffer data(context(), 256);
    DescriptorSet set(plan);
    CommandList list(context());
    list.recordDispatch(plan, set, {1, 1, 1});
    std::vector<uint8_t> pc(sizeof(AffinePc) * 2);

    // An unbound binding is reported before anything is submitted.
    std::string message = messageOf([&] { list.submit(pc.data(), 12, 1, 0, nullptr, nullptr, 0); });
    EXPECT_NE(message.find("binding 0"), std::string::npos) << message;
    set.bindBuffer(0, data, 0, 0, false, true, true);

    message = messageOf([&] { list.submit(pc.data(), 12, 2, 0, nullptr, nullptr, 0); });
    EXPECT_NE(message.find("24"), std::string::npos) << message;
    EXPECT_NE(message.find("12"), std::string::npos) << message;
    EXPECT_THROW(list.submit(pc.data(), 12, 2, 0, nullptr, nullptr, 0), InvalidArgumentError);
    EXPECT_THROW(list.submit(pc.data(), 0, 0, 0, nullptr, nullptr, 0), InvalidArgumentError);

    const int queues = context().queueCount();
    EXPECT_THROW(list.submit(pc.data(), 12, 1, queues, nullptr, nullptr, 0), IndexOutOfRangeError);
    EXPECT_THROW(list.submit(pc.data(), 12, 1, -3, nullptr, nullptr, 0), IndexOutOfRangeError);
    message = messageOf([&] { list.submit(pc.data(), 12, 1, queues + 5, nullptr, nullptr, 0); });
    EXPECT_NE(message.find(std::to_string(queues + 5)), std::string::npos) << message;
    EXPECT_GT(list.submit(pc.data(), 12, 1, 0, nullptr, nullptr, 0), 0u);
    EXPECT_GT(list.submit(pc.data(), 12, 1, -1, nullptr, nullptr, 0), 0u);
}

TEST_F(CommandListTest, BlocksErrors) {
    ComputePlan plan(context(), test::compileOrFail(kAffine, "affine"),
                     {BindingType::StorageBuffer}, sizeof(AffinePc), "affine");
    DescriptorSet set(plan);
    CommandList list(context());
    const auto limits = context().devices()[0]->info().max_workgroup_count;
    EXPECT_THROW(list.recordDispatch(plan, set, {0, 1, 1}), InvalidArgumentError);
    EXPECT_THROW(list.recordDispatch(plan, set, {1, 1, 0}), InvalidArgumentError);
    const std::string message =
        messageOf([&] { list.recordDispatch(plan, set, {1, limits[1] + 1, 1}); });
    EXPECT_NE(message.find("y = " + std::to_string(limits[1] + 1)), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(limits[1])), std::string::npos) << message;
    EXPECT_EQ(list.commandCount(), 0u);
    EXPECT_EQ(list.instanceSize(), 0u);

    ComputePlan other(context(), test::compileOrFail(kAffine, "affine"),
                      {BindingType::StorageBuffer}, sizeof(AffinePc), "other");
    EXPECT_THROW(list.recordDispatch(other, set, {1, 1, 1}), InvalidArgumentError);
    list.recordDispatch(plan, set, {1, 1, 1});
    EXPECT_EQ(list.instanceSize(), sizeof(AffinePc));
    list.reset();
    EXPECT_EQ(list.commandCount(), 0u);
    EXPECT_EQ(list.instanceSize(), 0u);
}

TEST_F(CommandListTest, RebindingAfterSubmitAndEarlyDestructionAreSafe) {
    const size_t n = 256;
    auto plan = std::make_unique<ComputePlan>(
        context(), test::compileOrFail(kPlusOne, "plus_one"),
        std::vector<BindingType>{BindingType::StorageBuffer, BindingType::StorageBuffer}, 0,
        "plus_one");
    auto a = std::make_unique<Buffer>(context(), n * 4);
    Buffer b(context(), n * 4), c(context(), n * 4);
    test::upload(*a, std::vector<uint32_t>(n, 41));
    test::upload(c, std::vector<uint32_t>(n, 9));
    auto set = std::make_unique<DescriptorSet>(*plan);
    set->bindBuffer(0, *a, 0, 0, false, true, false);
    set->bindBuffer(1, b, 0, 0, false, false, true);
    CommandList list(context());
    list.recordDispatch(*plan, *set, {groupsFor(n, 64), 1, 1});
    for (int i = 0; i < 20; ++i) list.submit(nullptr, 0, 1, 0, nullptr, nullptr, 0);
    // The set may still be in use: rebinding switches to a fresh set without waiting.
    set->bindBuffer(0, c, 0, 0, false, true, false);
    list.submit(nullptr, 0, 1, 0, nullptr, nullptr, 0);
    EXPECT_EQ(test::download<uint32_t>(b, n), std::vector<uint32_t>(n, 10));

    set->bindBuffer(0, *a, 0, 0, false, true, false);
    list.submit(nullptr, 0, 1, 0, nullptr, nullptr, 0);
    // Destroy everything while the GPU may still run: deletion is deferred, never blocking.
    list.reset();
    set.reset();
    plan.reset();
    a.reset();
    EXPECT_EQ(test::download<uint32_t>(b, n), std::vector<uint32_t>(n, 42));
}

// 2 and 3 queues on any device: where it has fewer hardware queues (lavapipe has one), the
// queues share them and must still keep their own replicas and timelines.
class CommandListMultiQueue : public ::testing::TestWithParam<int> {};

INSTANTIATE_TEST_SUITE_P(Queues, CommandListMultiQueue, ::testing::Values(2, 3));

TEST_P(CommandListMultiQueue, EveryQueueRunsOnItsOwnReplicas) {
    auto& env = test::deviceEnvironment();
    if (!env.context) GTEST_SKIP() << env.skip_reason;
    const int device_index = env.context->devices()[0]->info().index;
    const DeviceInfo& info = env.instance->devices()[device_index];
    Context multi(*env.instance, {device_index}, {selectQueueFamilies(info, GetParam())});
    const int queues = multi.queueCount();
    ASSERT_EQ(queues, GetParam());

    TransferEngine engine(multi);
    const size_t n = 777;
    ComputePlan plan(multi, test::compileOrFail(kAxpy, "axpy"), kAxpyBindings, 4, "axpy");
    Buffer xb(multi, n * 4), yb(multi, n * 4), ub(multi, 64);
    std::vector<std::vector<float>> xs;
    for (int q = 0; q < queues; ++q) {  // different data on every replica
        xs.push_back(randomFloats(n, 100 + q));
        engine.write(xb, xs[q].data(), n * 4, 0, q);
    }
    DescriptorSet set(plan);
    set.bindBuffer(0, xb, 0, 0, false, true, false);
    set.bindBuffer(1, yb, 0, 0, false, false, true);
    set.bindBuffer(2, ub, 0, sizeof(Uniforms), true, true, false);
    CommandList list(multi);
    list.recordDispatch(plan, set, {groupsFor(n, 64), 1, 1});
    const float b = 0.75f;
    uint8_t pc[4];
    std::memcpy(pc, &b, 4);

    auto check = [&](int q, float a) {
        std::vector<float> y(n);
        engine.read(yb, y.data(), n * 4, 0, q);
        for (size_t i = 0; i < n; ++i)
            ASSERT_NEAR(y[i], a * xs[q][i] + b, 1e-6f * (std::fabs(a * xs[q][i]) + 1.0f))
                << "q=" << q;
    };
    const Uniforms all{3.0f, static_cast<uint32_t>(n)};
    list.submit(pc, 4, 1, kAllQueues, &ub, reinterpret_cast<const uint8_t*>(&all), sizeof(all));
    for (int q = 0; q < queues; ++q) check(q, all.a);

    for (int q = 0; q < queues; ++q) {  // one queue at a time: only that replica changes
        const Uniforms one{-2.0f - q, static_cast<uint32_t>(n)};
        list.submit(pc, 4, 1, q, &ub, reinterpret_cast<const uint8_t*>(&one), sizeof(one));
        multi.waitIdle(-1);
        for (int r = 0; r <= q; ++r) check(r, -2.0f - r);
        for (int r = q + 1; r < queues; ++r) check(r, all.a);
    }
    const Uniforms any{5.0f, static_cast<uint32_t>(n)};
    EXPECT_GT(list.submit(pc, 4, 1, kLeastBusyQueue, &ub, reinterpret_cast<const uint8_t*>(&any),
                          sizeof(any)),
              0u);
    multi.waitIdle(-1);
    int changed = 0;
    for (int q = 0; q < queues; ++q) {
        std::vector<float> y(n);
        engine.read(yb, y.data(), n * 4, 0, q);
        const float expected = any.a * xs[q][0] + b;
        changed += std::fabs(y[0] - expected) <= 1e-4f * (1.0f + std::fabs(expected));
    }
    EXPECT_EQ(changed, 1);
}
