// Allocations of their own kept for reuse, on a pool over a stand-in driver (two memory types):
// a kept allocation serves only its memory type and export handle types, a loop of equal
// temporaries allocates once, and dropKept() frees what is kept and nothing leased.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "fake_memory_driver.hpp"
#include "vkdispatch/memory_pool.hpp"

using namespace vkdispatch;
using test::requirements;

namespace {

constexpr VkDeviceSize kOwnSize = VkDeviceSize(1) << 20;  // beyond what blocks take
constexpr VkExternalMemoryHandleTypeFlags kFd = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

}  // namespace

TEST(MemoryPoolKept, ServesOnlyItsMemoryTypeAndExportTypes) {
    test::FakeMemoryDriver driver;
    MemoryPool pool(test::FakeMemoryDriver::kFakeDevice, test::twoMemoryTypes(),
                    MemoryPool::kBlockSize, kFd);
    VkDeviceMemory exportable;
    {
        MemoryPool::Lease lease = pool.allocate(requirements(kOwnSize, 256), 0);
        exportable = lease.memory();
    }
    ASSERT_EQ(pool.keptCount(), 1u);
    MemoryPool::Lease other_type = pool.allocate(requirements(kOwnSize, 256), 1);
    EXPECT_NE(other_type.memory(), exportable);
    EXPECT_EQ(driver.typeOf(other_type.memory()), 1);
    MemoryPool::Lease not_exportable = pool.allocateDedicated(requirements(kOwnSize, 256), 0);
    EXPECT_NE(not_exportable.memory(), exportable) << "exportable memory for an image";
    EXPECT_EQ(pool.reuseCount(), 0u);
    VkDeviceMemory plain = not_exportable.memory();
    not_exportable.reset();
    MemoryPool::Lease again = pool.allocate(requirements(kOwnSize, 256), 0);
    EXPECT_EQ(again.memory(), exportable);
    MemoryPool::Lease image = pool.allocateDedicated(requirements(kOwnSize, 256), 0);
    EXPECT_EQ(image.memory(), plain);
    EXPECT_EQ(pool.reuseCount(), 2u);
    EXPECT_EQ(pool.keptCount(), 0u);
}

TEST(MemoryPoolKept, ALoopOfEqualTemporariesAllocatesOnce) {
    test::FakeMemoryDriver driver;
    MemoryPool pool(test::FakeMemoryDriver::kFakeDevice, test::twoMemoryTypes());
    std::vector<uint8_t> expected(kOwnSize);
    for (int i = 0; i < 50; ++i) {
        MemoryPool::Lease lease = pool.allocate(requirements(kOwnSize - 64 * i, 256), 1);
        ASSERT_NE(lease.mapped(), nullptr) << "iteration " << i;
        // The memory comes back as it was left: a kept allocation stays mapped.
        ASSERT_EQ(std::memcmp(lease.mapped(), expected.data(), 4096), 0) << "iteration " << i;
        for (size_t j = 0; j < 4096; ++j) expected[j] = static_cast<uint8_t>(i * 31 + j * 7);
        std::memcpy(lease.mapped(), expected.data(), 4096);
    }
    EXPECT_EQ(driver.allocationsMade(), 1u);
    EXPECT_EQ(pool.reuseCount(), 49u);
}

TEST(MemoryPoolKept, DropKeptFreesWhatIsKeptNeverWhatIsLeased) {
    test::FakeMemoryDriver driver;
    MemoryPool pool(test::FakeMemoryDriver::kFakeDevice, test::twoMemoryTypes());
    MemoryPool::Lease leased = pool.allocate(requirements(kOwnSize, 256), 1);
    for (VkDeviceSize size : {2 * kOwnSize, 4 * kOwnSize})
        pool.allocate(requirements(size, 256), 0);  // dropped at once: kept
    EXPECT_EQ(pool.keptCount(), 2u);
    EXPECT_EQ(driver.liveAllocations(), 3u);
    EXPECT_EQ(pool.dropKept(), 2u);
    EXPECT_EQ(pool.keptCount(), 0u);
    EXPECT_EQ(driver.liveAllocations(), 1u);
    EXPECT_EQ(driver.typeOf(leased.memory()), 1) << "the leased memory was freed";
    EXPECT_EQ(pool.dropKept(), 0u);
    MemoryPool::Lease fresh = pool.allocate(requirements(2 * kOwnSize, 256), 0);
    EXPECT_EQ(pool.reuseCount(), 0u) << "a dropped allocation served a request";
}
