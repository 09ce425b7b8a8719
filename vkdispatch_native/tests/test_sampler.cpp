// Sampling a ReplicatedImage through a DescriptorSet's combined image sampler against a host
// model of nearest and linear filtering with clamped addresses, on a non-square image.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "compute_helpers.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/descriptor_set.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/log.hpp"
#include "vkdispatch/replicated_image.hpp"
#include "vkdispatch/sampler.hpp"

namespace vkdispatch {
namespace {

const char* kSample = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) buffer Coords { vec2 coords[]; };
layout(set = 0, binding = 2) buffer Out { float o[]; };
void main() { uint i = gl_GlobalInvocationID.x; o[i] = texture(tex, coords[i]).r; }
)";

constexpr uint32_t kWidth = 9, kHeight = 5;

// texel(x, y) = values[x + y * width], addresses clamped to the edge.
float texel(const std::vector<float>& values, int x, int y) {
    x = std::clamp(x, 0, int(kWidth) - 1);
    y = std::clamp(y, 0, int(kHeight) - 1);
    return values[x + y * kWidth];
}

float nearest(const std::vector<float>& values, float u, float v) {
    return texel(values, int(std::floor(u * kWidth)), int(std::floor(v * kHeight)));
}

float linear(const std::vector<float>& values, float u, float v) {
    const float x = u * kWidth - 0.5f, y = v * kHeight - 0.5f;
    const int x0 = int(std::floor(x)), y0 = int(std::floor(y));
    const float fx = x - x0, fy = y - y0;
    return (1 - fx) * (1 - fy) * texel(values, x0, y0) + fx * (1 - fy) * texel(values, x0 + 1, y0) +
           (1 - fx) * fy * texel(values, x0, y0 + 1) + fx * fy * texel(values, x0 + 1, y0 + 1);
}

ComputePlan samplingPlan(Context& ctx) {
    return ComputePlan(ctx, test::compileOrFail(kSample, "sample"),
                       {BindingType::Sampler, BindingType::StorageBuffer,
                        BindingType::StorageBuffer},
                       0, "sample");
}

}  // namespace

class Samplers : public ::testing::Test {
protected:
    void TearDown() override {
        for (const auto& error : takeValidationErrors()) ADD_FAILURE() << error;
    }
};

TEST_F(Samplers, NearestAndLinearSamplingMatchTheHostModel) {
    VKD_REQUIRE_DEVICE();
    Context& ctx = test::context();
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::vector<float> values(kWidth * kHeight);
    for (auto& v : values) v = unit(rng);
    ImageSpec spec;
    spec.format = VK_FORMAT_R32_SFLOAT;
    spec.extent = {kWidth, kHeight, 1};
    ReplicatedImage image(ctx, spec);
    image.write(values.data(), values.size() * sizeof(float), -1);

    const size_t n = 200;
    std::vector<float> coords(2 * n);
    for (auto& c : coords) c = unit(rng) * 1.2f - 0.1f;  // some outside [0, 1]: clamped
    Buffer coord_buffer(ctx, coords.size() * 4), out(ctx, n * 4);
    test::upload(coord_buffer, coords);
    ComputePlan plan = samplingPlan(ctx);
    for (VkFilter filter : {VK_FILTER_NEAREST, VK_FILTER_LINEAR}) {
        SamplerSpec sampling;
        sampling.mag_filter = sampling.min_filter = filter;
        Sampler sampler(ctx, sampling);
        DescriptorSet set(plan);
        set.bindImage(0, image, sampler);
        set.bindBuffer(1, coord_buffer, 0, 0, false, true, false);
        set.bindBuffer(2, out, 0, 0, false, false, true);
        CommandList list(ctx);
        list.recordDispatch(plan, set, {static_cast<uint32_t>(n), 1, 1});
        list.submit(nullptr, 0, 1, 0, nullptr, nullptr, 0);
        const auto got = test::download<float>(out, n);
        for (size_t i = 0; i < n; ++i) {
            const float u = coords[2 * i], v = coords[2 * i + 1];
            const float expected = filter == VK_FILTER_NEAREST ? nearest(values, u, v)
                                                               : linear(values, u, v);
            // Linear filtering weighs with a few bits of subtexel precision (at least 4).
            EXPECT_NEAR(got[i], expected, filter == VK_FILTER_NEAREST ? 0.0f : 1.0f / 16)
                << "filter " << filter << " at (" << u << ", " << v << ")";
        }
    }
}

TEST_F(Samplers, BindingErrorsNameTheBinding) {
    VKD_REQUIRE_DEVICE();
    Context& ctx = test::context();
    ComputePlan plan = samplingPlan(ctx);
    ImageSpec spec;
    spec.extent = {4, 4, 1};
    ReplicatedImage image(ctx, spec);
    Sampler sampler(ctx, SamplerSpec{});
    DescriptorSet set(plan);
    const std::string wrong = test::messageOf([&] { set.bindImage(1, image, sampler); });
    EXPECT_NE(wrong.find("binding 1 of 'sample' expects a storage buffer, got a sampler"),
              std::string::npos) << wrong;
    Buffer buffer(ctx, 64);
    const std::string buffer_there =
        test::messageOf([&] { set.bindBuffer(0, buffer, 0, 0, false, true, false); });
    EXPECT_NE(buffer_there.find("expects a sampler"), std::string::npos) << buffer_there;
    SamplerSpec bad;
    bad.min_lod = 2.0f;
    EXPECT_THROW(Sampler(ctx, bad), InvalidArgumentError);
    set.bindImage(0, image, sampler);
    EXPECT_NE(test::messageOf([&] { set.checkComplete(); }).find("binding 1"), std::string::npos);
}

TEST_F(Samplers, LinearFilteringOfAnImageTheDeviceCannotFilterIsRefused) {
    VKD_REQUIRE_DEVICE();
    Context& ctx = test::context();
    ComputePlan plan = samplingPlan(ctx);
    ImageSpec spec;
    spec.format = VK_FORMAT_R32_SINT;
    spec.extent = {4, 4, 1};
    ReplicatedImage image(ctx, spec);
    if (image.filtersLinearly()) GTEST_SKIP() << "the device filters R32_SINT linearly";
    DescriptorSet set(plan);
    SamplerSpec linear_mip;
    linear_mip.mag_filter = linear_mip.min_filter = VK_FILTER_NEAREST;  // mipmap mode LINEAR
    for (const SamplerSpec& spec_of : {SamplerSpec{}, linear_mip}) {
        Sampler sampler(ctx, spec_of);
        const std::string refused = test::messageOf([&] { set.bindImage(0, image, sampler); });
        EXPECT_NE(refused.find("cannot filter VK_FORMAT_R32_SINT images linearly"),
                  std::string::npos) << refused;
    }
    SamplerSpec nearest = linear_mip;
    nearest.mip_mode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    Sampler sampler(ctx, nearest);
    set.bindImage(0, image, sampler);
}

}  // namespace vkdispatch
