// hostMipLevels against direct sums: halving even extents averages each 2 x 2 block, odd
// extents take bilinear taps at the coarser texel centres, integer formats the nearest texel,
// and layers and channels are halved independently.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "vkdispatch/errors.hpp"
#include "vkdispatch/image.hpp"
#include "vkdispatch/mip_chain.hpp"

using namespace vkdispatch;

namespace {

template <typename T>
std::vector<T> valuesOf(const std::vector<uint8_t>& bytes) {
    std::vector<T> out(bytes.size() / sizeof(T));
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

std::vector<uint8_t> bytesOf(const std::vector<float>& values) {
    std::vector<uint8_t> out(values.size() * 4);
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

}  // namespace

TEST(MipChain, EvenExtentsAverageBlocksPerLayerAndChannel) {
    ImageSpec spec;
    spec.format = VK_FORMAT_R32G32_SFLOAT;
    spec.extent = {8, 4, 1};
    spec.layers = 2;
    spec.mip_levels = 4;  // 8x4, 4x2, 2x1, 1x1
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> unit(-1, 1);
    std::vector<float> level0(8 * 4 * 2 * 2);
    for (float& v : level0) v = unit(rng);
    const auto mips = valuesOf<float>(hostMipLevels(spec, bytesOf(level0).data(), true));
    ASSERT_EQ(mips.size(), size_t((4 * 2 + 2 * 1 + 1) * 2 * 2));
    // level 1, layer 1, texel (x=3, y=1), channel 1: the block x 6..7, y 2..3 of level 0
    auto at0 = [&](int layer, int y, int x, int c) {
        return level0[((layer * 4 + y) * 8 + x) * 2 + c];
    };
    const float expected =
        (at0(1, 2, 6, 1) + at0(1, 2, 7, 1) + at0(1, 3, 6, 1) + at0(1, 3, 7, 1)) / 4;
    EXPECT_NEAR(mips[((1 * 2 + 1) * 4 + 3) * 2 + 1], expected, 1e-6);
    // the last level of layer 0 is the mean of the whole layer (averages of averages)
    double mean = 0;
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 8; ++x) mean += at0(0, y, x, 0) / 32.0;
    const size_t last = (4 * 2 + 2 * 1) * 2 * 2;
    EXPECT_NEAR(mips[last], mean, 1e-5);
}

TEST(MipChain, OddExtentsTakeBilinearTapsAndIntegersTheNearestTexel) {
    ImageSpec spec;
    spec.format = VK_FORMAT_R32_SFLOAT;
    spec.extent = {5, 1, 1};
    // 5 -> 2: centres at 1.25 and 3.75 (texel edges), i.e. texel positions 0.75 and 3.25
    spec.mip_levels = 2;
    const std::vector<float> row{1, 2, 4, 8, 16};
    const auto linear = valuesOf<float>(hostMipLevels(spec, bytesOf(row).data(), true));
    ASSERT_EQ(linear.size(), 2u);
    EXPECT_NEAR(linear[0], 0.25f * 1 + 0.75f * 2, 1e-6);
    EXPECT_NEAR(linear[1], 0.75f * 8 + 0.25f * 16, 1e-6);
    spec.format = VK_FORMAT_R32_SINT;
    const std::vector<int32_t> ints{-7, 3, 9, -2, 5};
    std::vector<uint8_t> bytes(ints.size() * 4);
    std::memcpy(bytes.data(), ints.data(), bytes.size());
    const auto nearest = valuesOf<int32_t>(hostMipLevels(spec, bytes.data(), false));
    EXPECT_EQ(nearest, (std::vector<int32_t>{3, -2}));  // texels under 1.25 and 3.75
}

TEST(MipChain, FormatsOfOtherChannelSizesAreRefused) {
    ImageSpec spec;
    spec.format = VK_FORMAT_R16_SFLOAT;
    spec.extent = {4, 4, 1};
    spec.mip_levels = 3;
    const std::vector<uint8_t> data(32);
    EXPECT_THROW(hostMipLevels(spec, data.data(), true), InvalidArgumentError);
}
