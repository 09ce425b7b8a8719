// ImageCopyCommand: buffer -> image -> image -> buffer through one recorded list on every
// queue's replicas (the images' own barriers ordering the copies), and the errors naming the
// end at fault.
#include <gtest/gtest.h>

#include <vector>

#include "buffer_kernels.hpp"
#include "compute_helpers.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/image_copy_command.hpp"
#include "vkdispatch/log.hpp"
#include "vkdispatch/replicated_image.hpp"

using namespace vkdispatch;
using test::context;
using test::download;
using test::randomWords;
using test::upload;

namespace {

ImageSpec twoChannelSpec() {
    ImageSpec spec;
    spec.format = VK_FORMAT_R32G32_UINT;
    spec.extent = {7, 3, 1};  // non-square: 21 texels of 8 bytes
    return spec;
}

ImageCopyEnd imageEnd(ReplicatedImage& image) { return {&image, nullptr, 0}; }
ImageCopyEnd bufferEnd(Buffer& buffer, uint64_t offset) { return {nullptr, &buffer, offset}; }

class ImageCopies : public ::testing::Test {
protected:
    void SetUp() override { VKD_REQUIRE_DEVICE(); }
    void TearDown() override {
        for (const auto& error : takeValidationErrors()) ADD_FAILURE() << error;
    }
};

}  // namespace

TEST_F(ImageCopies, BufferToImageToImageToBufferInOneList) {
    const auto words = randomWords(42 + 4, 11);  // 4 words before the texels
    Buffer source(context(), words.size() * 4), target(context(), 50 * 4);
    upload(source, words);
    upload(target, std::vector<uint32_t>(50, 0xDEADBEEF));
    ReplicatedImage first(context(), twoChannelSpec()), second(context(), twoChannelSpec());
    CommandList list(context());
    list.record(std::make_unique<ImageCopyCommand>(context(), imageEnd(first),
                                                   bufferEnd(source, 16)));
    list.record(std::make_unique<ImageCopyCommand>(context(), imageEnd(second),
                                                   imageEnd(first)));
    list.record(std::make_unique<ImageCopyCommand>(context(), bufferEnd(target, 8),
                                                   imageEnd(second)));
    for (int q = 0; q < context().queueCount(); ++q) {
        context().queue(q).wait(list.submit(nullptr, 0, 1, q, nullptr, nullptr, 0));
        std::vector<uint32_t> expected(50, 0xDEADBEEF);
        std::copy(words.begin() + 4, words.end(), expected.begin() + 2);
        EXPECT_EQ(download<uint32_t>(target, 50, q), expected) << "queue " << q;
    }
}

TEST_F(ImageCopies, ErrorsNameTheEndAtFault) {
    ReplicatedImage image(context(), twoChannelSpec());
    ImageSpec other_spec = twoChannelSpec();
    other_spec.extent = {3, 7, 1};
    ReplicatedImage other(context(), other_spec);
    Buffer small(context(), 41 * 4), large(context(), 64 * 4);
    auto message = [&](const ImageCopyEnd& dst, const ImageCopyEnd& src) {
        return test::messageOf([&] { ImageCopyCommand(context(), dst, src); });
    };
    EXPECT_NE(message(imageEnd(image), bufferEnd(small, 0)).find("do not fit in the buffer"),
              std::string::npos);
    EXPECT_NE(message(bufferEnd(large, 4), imageEnd(image)).find("not a multiple of the 8-byte"),
              std::string::npos);
    EXPECT_NE(message(imageEnd(other), imageEnd(image)).find("same extent"), std::string::npos);
    EXPECT_NE(message(imageEnd(image), imageEnd(image)).find("source image itself"),
              std::string::npos);
    EXPECT_NE(message(bufferEnd(large, 0), bufferEnd(small, 0)).find("needs an image"),
              std::string::npos);
    EXPECT_NE(message(ImageCopyEnd{}, imageEnd(image)).find("dst: give an image or a buffer"),
              std::string::npos);
}
