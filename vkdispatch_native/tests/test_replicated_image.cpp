// ReplicatedImage: packed texels written and read back for 1-, 2- and 3-D images and layered
// 2-D images of several formats, non-square extents, and the size and index errors.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "device_fixture.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/log.hpp"
#include "vkdispatch/replicated_image.hpp"

namespace vkdispatch {
namespace {

Context& context() { return *test::deviceEnvironment().context; }

ImageSpec specOf(VkImageViewType view, VkFormat format, VkExtent3D extent, uint32_t layers = 1) {
    ImageSpec spec;
    spec.view_type = view;
    spec.format = format;
    spec.extent = extent;
    spec.layers = layers;
    return spec;
}

void expectRoundTrip(const ImageSpec& spec, unsigned seed) {
    vkdispatch::ReplicatedImage image(context(), spec);
    const auto data = test::randomBytes(image.byteSize(), seed);
    image.write(data.data(), data.size(), -1);
    std::vector<uint8_t> back(data.size());
    image.read(back.data(), back.size(), 0);
    EXPECT_EQ(back, data) << formatName(spec.format) << " " << spec.extent.width << "x"
                          << spec.extent.height << "x" << spec.extent.depth << " layers "
                          << spec.layers;
}

}  // namespace

// With VKDISPATCH_DEBUG=1 the validation layer's messages fail the test.
class ReplicatedImages : public ::testing::Test {
protected:
    void TearDown() override {
        for (const auto& error : takeValidationErrors()) ADD_FAILURE() << error;
    }
};

TEST_F(ReplicatedImages, TexelsRoundTripForEveryShapeKind) {
    VKD_REQUIRE_DEVICE();
    expectRoundTrip(specOf(VK_IMAGE_VIEW_TYPE_1D, VK_FORMAT_R32_SFLOAT, {37, 1, 1}), 1);
    expectRoundTrip(specOf(VK_IMAGE_VIEW_TYPE_2D, VK_FORMAT_R32G32_SINT, {13, 5, 1}), 2);
    expectRoundTrip(specOf(VK_IMAGE_VIEW_TYPE_2D, VK_FORMAT_R32G32B32A32_UINT, {4, 9, 1}), 3);
    expectRoundTrip(specOf(VK_IMAGE_VIEW_TYPE_3D, VK_FORMAT_R32_UINT, {6, 3, 5}), 4);
    expectRoundTrip(specOf(VK_IMAGE_VIEW_TYPE_2D_ARRAY, VK_FORMAT_R16G16B16A16_SFLOAT,
                           {7, 2, 1}, 3), 5);
}

TEST_F(ReplicatedImages, SizeAndIndexErrorsNameTheArgument) {
    VKD_REQUIRE_DEVICE();
    vkdispatch::ReplicatedImage image(context(), specOf(VK_IMAGE_VIEW_TYPE_2D, VK_FORMAT_R32_SFLOAT,
                                            {4, 4, 1}));
    std::vector<uint8_t> wrong(63);
    EXPECT_THROW(image.write(wrong.data(), wrong.size(), -1), InvalidArgumentError);
    std::vector<uint8_t> right(64);
    EXPECT_THROW(image.read(right.data(), right.size(), 5), IndexOutOfRangeError);
    ImageSpec huge = specOf(VK_IMAGE_VIEW_TYPE_2D, VK_FORMAT_R32_SFLOAT, {1u << 20, 4, 1});
    try {
        vkdispatch::ReplicatedImage refused(context(), huge);
        ADD_FAILURE() << "an image wider than the device allows was made";
    } catch (const InvalidArgumentError& error) {
        EXPECT_NE(std::string(error.what()).find("VK_FORMAT_R32_SFLOAT"), std::string::npos);
    }
}

}  // namespace vkdispatch

namespace vkdispatch {

TEST_F(ReplicatedImages, AnUnsupportedFormatIsNamedWithWhatTheDeviceOffers) {
    VKD_REQUIRE_DEVICE();
    Device& device = *context().devices().front();
    // Find a format of the table the device refuses for linear storage-and-sampled use.
    for (VkFormat format : {VK_FORMAT_R32G32B32_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT,
                            VK_FORMAT_R8G8_SINT, VK_FORMAT_R16_SFLOAT, VK_FORMAT_R32G32B32_UINT}) {
        ImageSpec spec = specOf(VK_IMAGE_VIEW_TYPE_2D, format, {4, 4, 1});
        spec.tiling = VK_IMAGE_TILING_LINEAR;
        spec.usage |= VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
        VkImageFormatProperties properties;
        if (vkGetPhysicalDeviceImageFormatProperties(device.physical(), format,
                                                     VK_IMAGE_TYPE_2D, spec.tiling, spec.usage, 0,
                                                     &properties) == VK_SUCCESS)
            continue;
        try {
            Image image(device, spec);
            ADD_FAILURE() << formatName(format) << " was refused by the device but made";
        } catch (const InvalidArgumentError& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find(formatName(format)), std::string::npos) << message;
            const size_t offers = message.find("it offers ");
            ASSERT_NE(offers, std::string::npos) << message;
            // What it offers instead has the refused format's component kind ("_SFLOAT"...).
            const std::string name = formatName(format), kind = name.substr(name.rfind('_'));
            std::stringstream offered(message.substr(offers + 10));
            for (std::string candidate; std::getline(offered, candidate, ',');) {
                candidate.erase(0, candidate.find_first_not_of(' '));
                if (candidate == "none of that component type") continue;
                EXPECT_EQ(candidate.substr(candidate.rfind('_')), kind) << message;
            }
        }
        return;
    }
    GTEST_SKIP() << "the device makes every format tried";
}

}  // namespace vkdispatch
