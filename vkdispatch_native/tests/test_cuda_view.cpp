// CudaView: where no CUDA device can map buffers (no driver, lavapipe) the refusal names the
// reason; on an NVIDIA GPU with the CUDA driver, a CUDA copy between the views of two buffers
// moves their bytes, and a view sees the work submitted before it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "device_fixture.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/cuda_view.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/transfer_engine.hpp"

using namespace vkdispatch;

namespace {

Context& context() { return *test::deviceEnvironment().context; }

}  // namespace

TEST(CudaView, RefusalNamesTheReason) {
    VKD_REQUIRE_DEVICE();
    Buffer buffer(context(), 256);
    std::string why;
    if (CudaView::cudaDeviceOf(buffer, 0, &why) >= 0) GTEST_SKIP() << "CUDA can map buffers here";
    EXPECT_FALSE(why.empty());
    try {
        CudaView view(buffer, 0);
        FAIL() << "a view was made although cudaDeviceOf said no";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find(why), std::string::npos) << error.what();
    }
    EXPECT_THROW(CudaView::cudaDeviceOf(buffer, context().queueCount(), nullptr),
                 IndexOutOfRangeError);
}

TEST(CudaView, CopiesBetweenTwoBuffersOnTheGpu) {
    VKD_REQUIRE_DEVICE();
    const size_t size = (size_t(1) << 20) + 4096;  // beyond one pooled block's share
    Buffer source(context(), size), target(context(), size);
    if (CudaView::cudaDeviceOf(source, 0) < 0) GTEST_SKIP() << "no CUDA view here";
    TransferEngine engine(context());
    const auto data = test::randomBytes(size, 7);
    engine.write(source, data.data(), size, 0, 0);
    CudaView from(source, 0);  // after the write
    CudaView(target, 0).copyFrom(from.pointer(), size);
    std::vector<uint8_t> out(size);
    engine.read(target, out.data(), size, 0, 0);
    EXPECT_EQ(out, data);

    Buffer small(context(), 4096);  // a buffer in a shared block, at an offset
    engine.write(small, data.data(), 4096, 0, 0);
    CudaView(target, 0).copyFrom(CudaView(small, 0).pointer(), 4096);
    engine.read(target, out.data(), 4096, 0, 0);
    EXPECT_TRUE(std::equal(data.begin(), data.begin() + 4096, out.begin()));
}
