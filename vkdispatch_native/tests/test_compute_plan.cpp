#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "compute_helpers.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/errors.hpp"

using namespace vkdispatch;
using test::context;
using test::messageOf;

namespace {

const char* kTwoBuffers = R"(#version 450
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, scalar) buffer X { float x[]; };
layout(set = 0, binding = 1, scalar) uniform U { float a; };
layout(push_constant, scalar) uniform PC { float b; } pc;
void main() { x[gl_GlobalInvocationID.x] = a * x[gl_GlobalInvocationID.x] + pc.b; }
)";

const std::vector<BindingType> kBindings = {BindingType::StorageBuffer,
                                            BindingType::UniformBuffer};

}  // namespace

TEST(ComputePlan, SpirvFromBytesChecksSizeAndMagic) {
    const std::vector<uint8_t> good = {0x03, 0x02, 0x23, 0x07, 0, 0, 0, 0};
    EXPECT_EQ(spirvFromBytes(good.data(), good.size(), "s").size(), 2u);
    EXPECT_THROW(spirvFromBytes(good.data(), 7, "s"), InvalidArgumentError);
    EXPECT_THROW(spirvFromBytes(good.data(), 0, "s"), InvalidArgumentError);
    const std::vector<uint8_t> bad = {1, 2, 3, 4};
    EXPECT_NE(messageOf([&] { spirvFromBytes(bad.data(), bad.size(), "mine"); }).find("mine"),
              std::string::npos);
}

TEST(ComputePlan, BindingTypeCodesMatchVkdispatch) {
    EXPECT_EQ(static_cast<int>(BindingType::StorageBuffer), 1);
    EXPECT_EQ(static_cast<int>(BindingType::UniformBuffer), 3);
    EXPECT_EQ(static_cast<int>(BindingType::Sampler), 5);
    EXPECT_TRUE(isBindingType(BindingType::Sampler));
    EXPECT_FALSE(isBindingType(static_cast<BindingType>(2)));
    EXPECT_EQ(pushConstantRangeSize(0), 0u);
    EXPECT_EQ(pushConstantRangeSize(6), 8u);
    EXPECT_EQ(pushConstantRangeSize(8), 8u);
}

TEST(ComputePlan, CreatesPipelineOnEveryQueue) {
    VKD_REQUIRE_DEVICE();
    const int64_t before = ComputePlan::liveCount();
    {
        ComputePlan plan(context(), test::compileOrFail(kTwoBuffers, "axpy"), kBindings, 4,
                         "axpy");
        EXPECT_EQ(ComputePlan::liveCount(), before + 1);
        EXPECT_EQ(plan.pushConstantSize(), 4u);
        EXPECT_EQ(plan.bindings(), kBindings);
        for (int q = 0; q < context().queueCount(); ++q) {
            EXPECT_TRUE(plan.forQueue(q).pipeline);
            EXPECT_TRUE(plan.forQueue(q).layout);
            EXPECT_TRUE(plan.forQueue(q).set_layout);
        }
    }
    EXPECT_EQ(ComputePlan::liveCount(), before);
}

TEST(ComputePlan, NoBindingsNoPushConstants) {
    VKD_REQUIRE_DEVICE();
    const char* glsl = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
    ComputePlan plan(context(), test::compileOrFail(glsl, "empty"), {}, 0, "empty");
    DescriptorSet set(plan);
    EXPECT_EQ(set.handle(0), VK_NULL_HANDLE);
    EXPECT_NO_THROW(set.checkComplete());
}

TEST(ComputePlan, UnknownBindingCodeIsRejected) {
    VKD_REQUIRE_DEVICE();
    const auto spirv = test::compileOrFail(kTwoBuffers, "axpy");
    const std::string message = messageOf([&] {
        ComputePlan(context(), spirv, {BindingType::StorageBuffer, static_cast<BindingType>(2)}, 4,
                    "axpy");
    });
    EXPECT_NE(message.find("bindings[1]"), std::string::npos) << message;
    EXPECT_NE(message.find("code 2"), std::string::npos) << message;
    EXPECT_THROW(ComputePlan(context(), spirv, {static_cast<BindingType>(0)}, 4, "axpy"),
                 InvalidArgumentError);
}

TEST(ComputePlan, PushConstantsOverDeviceLimitAreRejected) {
    VKD_REQUIRE_DEVICE();
    const auto spirv = test::compileOrFail(kTwoBuffers, "axpy");
    const uint32_t limit = context().devices()[0]->info().max_push_constant_size;
    const uint32_t size = limit + 4;
    const std::string message =
        messageOf([&] { ComputePlan(context(), spirv, kBindings, size, "axpy"); });
    EXPECT_NE(message.find(std::to_string(size)), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(limit)), std::string::npos) << message;
    EXPECT_THROW(ComputePlan(context(), spirv, kBindings, size, "axpy"), InvalidArgumentError);
}

TEST(ComputePlan, NonSpirvIsRejected) {
    VKD_REQUIRE_DEVICE();
    EXPECT_THROW(ComputePlan(context(), {}, kBindings, 4, "x"), InvalidArgumentError);
    EXPECT_THROW(ComputePlan(context(), {1, 2, 3}, kBindings, 4, "x"), InvalidArgumentError);
}

TEST(DescriptorSet, BindingErrorsNameBindingExpectedAndActual) {
    VKD_REQUIRE_DEVICE();
    ComputePlan plan(context(), test::compileOrFail(kTwoBuffers, "axpy"), kBindings, 4, "axpy");
    DescriptorSet set(plan);
    Buffer buffer(context(), 1024);

    std::string message = messageOf([&] { set.bindBuffer(1, buffer, 0, 0, false, true, true); });
    EXPECT_NE(message.find("binding 1"), std::string::npos) << message;
    EXPECT_NE(message.find("uniform buffer"), std::string::npos) << message;
    EXPECT_NE(message.find("storage buffer"), std::string::npos) << message;

    message = messageOf([&] { set.bindBuffer(2, buffer, 0, 0, false, true, true); });
    EXPECT_NE(message.find("binding 2"), std::string::npos) << message;
    EXPECT_NE(message.find("0..1"), std::string::npos) << message;
    EXPECT_THROW(set.bindBuffer(-1, buffer, 0, 0, false, true, true), InvalidArgumentError);

    EXPECT_THROW(set.bindBuffer(0, buffer, 1024, 0, false, true, true), InvalidArgumentError);
    EXPECT_THROW(set.bindBuffer(0, buffer, 512, 513, false, true, true), InvalidArgumentError);
    const uint64_t alignment = context().devices()[0]->info().uniform_buffer_alignment;
    if (alignment > 1)
        EXPECT_THROW(set.bindBuffer(1, buffer, alignment / 2, 16, true, true, false),
                     InvalidArgumentError);
    EXPECT_THROW(set.checkComplete(), InvalidArgumentError);

    EXPECT_NO_THROW(set.bindBuffer(0, buffer, 0, 0, false, true, true));
    EXPECT_NO_THROW(set.bindBuffer(1, buffer, alignment, 16, true, true, false));
    EXPECT_NO_THROW(set.checkComplete());
    ASSERT_EQ(set.accesses().size(), 2u);
    EXPECT_EQ(set.bindings()[0].range, 1024u);
    EXPECT_EQ(set.bindings()[1].range, 16u);
}

TEST(DescriptorSet, LiveCountReturnsToStart) {
    VKD_REQUIRE_DEVICE();
    ComputePlan plan(context(), test::compileOrFail(kTwoBuffers, "axpy"), kBindings, 4, "axpy");
    const int64_t before = DescriptorSet::liveCount();
    {
        std::vector<std::unique_ptr<DescriptorSet>> sets;
        for (int i = 0; i < 50; ++i) sets.push_back(std::make_unique<DescriptorSet>(plan));
        EXPECT_EQ(DescriptorSet::liveCount(), before + 50);
    }
    EXPECT_EQ(DescriptorSet::liveCount(), before);
}

TEST(ComputePlan, SpecializationConstantsTakeTheirIdsInOrder) {
    VKD_REQUIRE_DEVICE();
    const char* glsl = R"(#version 450
layout(local_size_x = 64) in;
layout(constant_id = 0) const float A = 1.0;
layout(constant_id = 1) const float B = 0.0;
layout(set = 0, binding = 0) buffer D { float data[]; };
layout(push_constant) uniform PC { uint n; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) data[i] = data[i] * A + B;
}
)";
    const std::vector<float> values = {2.5f, -0.75f};
    SpecializationConstants spec;
    spec.data.resize(values.size() * 4);
    std::memcpy(spec.data.data(), values.data(), spec.data.size());

    const uint32_t n = 100;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
    std::vector<float> input(n);
    for (auto& v : input) v = uniform(rng);
    Buffer buffer(context(), n * 4);
    test::upload(buffer, input);
    ComputePlan plan(context(), test::compileOrFail(glsl, "affine_spec"),
                     {BindingType::StorageBuffer}, 4, "affine_spec", nullptr, spec);
    DescriptorSet set(plan);
    set.bindBuffer(0, buffer, 0, 0, false, true, true);
    CommandList list(context());
    list.recordDispatch(plan, set, {(n + 63) / 64, 1, 1});
    uint8_t pc[4];
    std::memcpy(pc, &n, 4);
    context().queue(0).wait(list.submit(pc, 4, 1, 0, nullptr, nullptr, 0));
    const auto output = test::download<float>(buffer, n);
    // A GPU may fuse the multiply-add (one rounding instead of two): a few ulp of the terms.
    for (uint32_t i = 0; i < n; ++i)
        EXPECT_NEAR(output[i], input[i] * 2.5f - 0.75f,
                    4 * FLT_EPSILON * (std::fabs(input[i] * 2.5f) + 0.75f)) << i;
}

TEST(ComputePlan, MalformedSpecializationConstantsAreRejected) {
    VKD_REQUIRE_DEVICE();
    const auto spirv = test::compileOrFail(kTwoBuffers, "axpy");
    SpecializationConstants three_bytes{{1, 2, 3}, 4};
    EXPECT_NE(messageOf([&] {
                  ComputePlan(context(), spirv, kBindings, 4, "axpy", nullptr, three_bytes);
              }).find("whole number of 4-byte"),
              std::string::npos);
    SpecializationConstants odd_size{{1, 2, 3}, 3};
    EXPECT_THROW(ComputePlan(context(), spirv, kBindings, 4, "axpy", nullptr, odd_size),
                 InvalidArgumentError);
}
