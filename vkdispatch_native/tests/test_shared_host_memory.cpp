// SharedHostMemory: bytes the host puts in it reach a replica through the device's buffer over
// it, and the device's copy back into it is what the host then reads; its size is a whole
// number of import alignments; a device it was not imported into is refused by name.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "device_fixture.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/buffer_commands.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/shared_host_memory.hpp"

using namespace vkdispatch;

namespace {

Device& importingDevice() { return *test::deviceEnvironment().context->devices()[0]; }

void runAlone(Context& context, StagingCopyCommand& copy) {
    Queue& queue = context.queue(0);
    queue.wait(queue.submit([&](VkCommandBuffer cb) { recordAlone(cb, copy, 0); }));
}

}  // namespace

TEST(SharedHostMemory, TheDeviceCopiesIntoAndOutOfTheHostBytes) {
    VKD_REQUIRE_DEVICE();
    Context& context = *test::deviceEnvironment().context;
    Device& device = importingDevice();
    if (!SharedHostMemory::reaches(device)) GTEST_SKIP() << "the device cannot import host memory";
    const size_t size = 1000, offset = 24;
    SharedHostMemory memory({&device}, size);
    EXPECT_GE(memory.size(), size);
    EXPECT_EQ(memory.size() % device.hostImportAlignment(), 0u);
    const auto bytes = test::randomBytes(size, 41);
    std::memcpy(memory.data(), bytes.data(), size);
    Buffer buffer(context, size + offset);
    StagingCopyCommand upload(buffer, 0, memory.bufferOn(device), memory.size(),
                              StagingCopyCommand::Direction::Upload, offset, size);
    runAlone(context, upload);
    std::memset(memory.data(), 0, memory.size());
    StagingCopyCommand download(buffer, 0, memory.bufferOn(device), memory.size(),
                                StagingCopyCommand::Direction::Download, offset, size);
    runAlone(context, download);
    EXPECT_EQ(std::vector<uint8_t>(memory.data(), memory.data() + size), bytes);
}

TEST(SharedHostMemory, ADeviceItWasNotImportedIntoIsRefused) {
    VKD_REQUIRE_DEVICE();
    auto& env = test::deviceEnvironment();
    Device& device = importingDevice();
    if (!SharedHostMemory::reaches(device)) GTEST_SKIP() << "the device cannot import host memory";
    SharedHostMemory memory({&device}, 4096);
    Context other(*env.instance, {device.info().index},
                  {{static_cast<int>(device.queueFamilies()[0])}});
    try {
        memory.bufferOn(*other.devices()[0]);
        FAIL() << "expected InvalidArgumentError";
    } catch (const InvalidArgumentError& error) {
        EXPECT_NE(std::string(error.what()).find("not one the memory was imported into"),
                  std::string::npos)
            << error.what();
    }
    EXPECT_THROW(SharedHostMemory({&device}, 0), InvalidArgumentError);
}
