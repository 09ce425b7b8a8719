// Kompute's image factories with dimensions only and with an explicit vk::ImageTiling: the
// tiling each one gives, random data through the device and back for every tiling a memory type
// allows (shaders and copies included), and Kompute's refusals with their messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute_helpers.hpp"
#include "kompute/Kompute.hpp"
#include "kompute_helpers.hpp"
#include "vkdispatch/log.hpp"

namespace {

using kp::Memory;
using vkdispatch::test::kReadImage;
using vkdispatch::test::messageOf;
using vkdispatch::test::randomValues;
using vkdispatch::test::randomFloats;
using Types = kp::Memory::MemoryTypes;

const std::string kOptimalRefused =
    "Kompute Image with optimal tiling is only supported for eDevice and eStorage images";

#define KP_REQUIRE_DEVICE() VKD_REQUIRE_DEVICE()

// Makes a host image and checks it; a device that pads the rows of linear images past their
// texels (NVIDIA does for these widths, lavapipe does not) refuses host images instead, with
// the message test_kp_image.py checks, and only that refusal passes here.
template <typename Make, typename Check>
void withHostImage(Make make, Check check) {
    decltype(make()) image;
    try {
        image = make();
    } catch (const std::runtime_error& error) {
        EXPECT_NE(std::string(error.what()).find("pads the rows of linear images"),
                  std::string::npos)
            << error.what();
        return;
    }
    check(image);
}

}  // namespace

class KomputeImageTiling : public ::testing::Test {
protected:
    void TearDown() override {
        for (const auto& error : vkdispatch::takeValidationErrors()) ADD_FAILURE() << error;
    }
};

TEST_F(KomputeImageTiling, DimensionsOnlyGiveAFloatImageOfZerosThatRoundTrips) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const uint32_t width = 8, height = 5, channels = 2;  // rows of 64 bytes: unpadded on lavapipe
    std::shared_ptr<kp::ImageT<float>> image = mgr.image(width, height, channels);
    EXPECT_EQ(image->dataType(), Memory::DataTypes::eFloat);
    EXPECT_EQ(image->memoryType(), Types::eDevice);
    EXPECT_EQ(image->getTiling(), vk::ImageTiling::eOptimal);
    EXPECT_EQ(image->size(), width * height * channels);
    EXPECT_EQ(image->vector(), std::vector<float>(width * height * channels, 0.0f));

    const auto values = randomFloats(image->size(), 51);
    image->setData(values);
    auto sequence = mgr.sequence();
    sequence->eval<kp::OpSyncDevice>({image});
    image->setData(std::vector<float>(values.size(), 0.0f));
    sequence->eval<kp::OpSyncLocal>({image});
    EXPECT_EQ(image->vector(), values);

    withHostImage([&] { return mgr.image(width, height, channels, Types::eHost); },
                  [](const auto& host) {
                      EXPECT_EQ(host->memoryType(), Types::eHost);
                      // Kompute's default for host types:
                      EXPECT_EQ(host->getTiling(), vk::ImageTiling::eLinear);
                  });
}

TEST_F(KomputeImageTiling, EveryAllowedTilingCarriesRandomDataThroughAShader) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const uint32_t width = 32, height = 3;  // rows of 128 bytes: unpadded on lavapipe
    const auto read = kp::Shader::compileSource(kReadImage);
    struct Case {
        vk::ImageTiling tiling;
        Types type;
    };
    const Case cases[] = {{vk::ImageTiling::eOptimal, Types::eDevice},
                          {vk::ImageTiling::eLinear, Types::eDevice},
                          {vk::ImageTiling::eLinear, Types::eHost},
                          {vk::ImageTiling::eLinear, Types::eDeviceAndHost}};
    unsigned seed = 60;
    for (const auto& c : cases) {
        const auto values = randomFloats(width * height, ++seed);
        auto image = mgr.image(values, width, height, 1, c.tiling, c.type);
        EXPECT_EQ(image->getTiling(), c.tiling);
        EXPECT_EQ(image->memoryType(), c.type);
        auto out = mgr.tensor(std::vector<float>(values.size()));
        auto algorithm = mgr.algorithm({image, out}, read, {width, height, 1});
        vkdispatch::test::uploadDispatchDownload(*mgr.sequence(), algorithm, image, out);
        const auto result = out->vector();
        for (size_t i = 0; i < values.size(); ++i)
            ASSERT_EQ(result[i], 2.0f * values[i] + 1.0f)
                << vk::to_string(c.tiling) << " " << kp::toString(c.type) << " at " << i;
    }
}

TEST_F(KomputeImageTiling, EveryOverloadKeepsItsTilingThroughCopies) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const uint32_t width = 4, height = 3, channels = 4;
    const auto values = randomValues<int32_t>(width * height * channels, 70);
    for (auto tiling : {vk::ImageTiling::eOptimal, vk::ImageTiling::eLinear}) {
        auto source = mgr.imageT<int32_t>(values, width, height, channels, tiling);
        auto storage = mgr.image(width, height, channels, Memory::DataTypes::eInt, tiling,
                                 Types::eStorage);
        auto typed = mgr.imageT<int32_t>(width, height, channels, tiling);
        auto raw = mgr.image(nullptr, 0, width, height, channels, Memory::DataTypes::eInt,
                             tiling);
        for (const auto& image : std::vector<std::shared_ptr<kp::Image>>{source, storage, typed,
                                                                         raw})
            EXPECT_EQ(image->getTiling(), tiling) << vk::to_string(tiling);
        mgr.sequence()
            ->record<kp::OpSyncDevice>({source})
            ->record<kp::OpCopy>({source, storage})
            ->record<kp::OpCopy>({storage, typed, raw})
            ->record<kp::OpSyncLocal>({typed, raw})
            ->eval();
        EXPECT_EQ(typed->vector(), values) << vk::to_string(tiling);
        EXPECT_EQ(raw->vector<int32_t>(), values) << vk::to_string(tiling);
    }
    withHostImage(
        [&] { return mgr.imageT<float>(16, height, 1, vk::ImageTiling::eLinear, Types::eHost); },
        [](const auto& floats) { EXPECT_EQ(floats->getTiling(), vk::ImageTiling::eLinear); });
}

TEST_F(KomputeImageTiling, OptimalTilingOfHostVisibleImagesIsRefused) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto values = randomFloats(4, 80);
    for (auto type : {Types::eHost, Types::eDeviceAndHost}) {
        const std::string expected = kOptimalRefused + " (memory type " + kp::toString(type) +
                                     "; use vk::ImageTiling::eLinear or leave the tiling out)";
        EXPECT_EQ(messageOf([&] { mgr.image(values, 2, 2, 1, vk::ImageTiling::eOptimal, type); }),
                  expected);
        EXPECT_EQ(messageOf([&] { mgr.image(2, 2, 1, vk::ImageTiling::eOptimal, type); }),
                  expected);
        EXPECT_EQ(messageOf([&] {
                      mgr.image(2, 2, 1, Memory::DataTypes::eFloat, vk::ImageTiling::eOptimal,
                                type);
                  }),
                  expected);
    }
    EXPECT_EQ(messageOf([&] { mgr.image(2, 2, 1, vk::ImageTiling::eDrmFormatModifierEXT); }),
              "Kompute Image tiling must be vk::ImageTiling::eOptimal or eLinear, got "
              "vk::ImageTiling::eDrmFormatModifierEXT");
}

TEST_F(KomputeImageTiling, CustomDataTypesAreRefusedAfterTheSizeCheck) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const std::string refused = "Custom data types are not supported for Kompute Images";
    EXPECT_EQ(messageOf([&] { mgr.image(3, 3, 1, Memory::DataTypes::eCustom); }), refused);
    EXPECT_EQ(messageOf([&] {
                  mgr.image(3, 3, 1, Memory::DataTypes::eCustom, vk::ImageTiling::eOptimal);
              }),
              refused);
    EXPECT_EQ(messageOf([&] {
                  mgr.image(3, 3, 1, Memory::DataTypes::eCustom, vk::ImageTiling::eOptimal,
                            Types::eHost);
              }),
              refused);  // Kompute checks the data type before the tiling
    EXPECT_EQ(messageOf([&] { mgr.image(0, 3, 1, Memory::DataTypes::eCustom); }),
              "Kompute Memory attempted to create a zero-sized memory object");
}
