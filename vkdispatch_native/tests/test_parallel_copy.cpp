#include <gtest/gtest.h>

#include "device_fixture.hpp"
#include "vkdispatch/parallel_copy.hpp"

using namespace vkdispatch;

TEST(ParallelCopier, CopiesLargeAndOddSizesExactly) {
    ParallelCopier copier(4);
    for (size_t size : {size_t(0), size_t(17), size_t(1) << 20, (size_t(5) << 20) + 12345}) {
        const auto src = test::randomBytes(size, static_cast<unsigned>(size));
        std::vector<uint8_t> dst(size, 0);
        copier.copy(dst.data(), src.data(), size);
        EXPECT_EQ(dst, src) << "size " << size;
    }
}

TEST(ParallelCopier, SingleThreadModeHasNoWorkers) {
    ParallelCopier copier(1);
    EXPECT_EQ(copier.threads(), 1);
    const auto src = test::randomBytes(3 << 20, 7);
    std::vector<uint8_t> dst(src.size());
    copier.copy(dst.data(), src.data(), src.size());
    EXPECT_EQ(dst, src);
}
