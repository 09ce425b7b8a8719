#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "device_fixture.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/memory_pool.hpp"
#include "vkdispatch/transfer_engine.hpp"

using namespace vkdispatch;

namespace {

Context& context() { return *test::deviceEnvironment().context; }

MemoryPool& pool() { return context().deviceOfQueue(0).memoryPool(); }

uint32_t deviceLocalType() {
    const auto& properties = context().deviceOfQueue(0).memoryProperties();
    for (uint32_t i = 0; i < properties.memoryTypeCount; ++i)
        if (properties.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) return i;
    return 0;
}

VkMemoryRequirements requirements(VkDeviceSize size, VkDeviceSize alignment) {
    VkMemoryRequirements req{};
    req.size = size;
    req.alignment = alignment;
    return req;
}

}  // namespace

TEST(MemoryPool, SmallLeasesShareABlockAlignedAndApartLargeOnesStandAlone) {
    VKD_REQUIRE_DEVICE();
    std::vector<MemoryPool::Lease> leases;
    for (VkDeviceSize size : {100, 4000, 256, 70000, 1})
        leases.push_back(pool().allocate(requirements(size, 256), deviceLocalType()));
    for (size_t i = 0; i < leases.size(); ++i) {
        EXPECT_TRUE(leases[i].pooled());
        EXPECT_EQ(leases[i].offset() % 256, 0u);
        EXPECT_EQ(leases[i].memory(), leases[0].memory()) << "lease " << i;
    }
    for (size_t i = 1; i < leases.size(); ++i)  // placed in order, so offsets only grow
        EXPECT_GT(leases[i].offset(), leases[i - 1].offset());
    MemoryPool::Lease large = pool().allocate(requirements(MemoryPool::kLargestPooled + 1, 256), deviceLocalType());
    EXPECT_FALSE(large.pooled());
    EXPECT_EQ(large.offset(), 0u);
    EXPECT_NE(large.memory(), leases[0].memory());
    EXPECT_THROW(pool().allocate(requirements(16, 16), 999), InvalidArgumentError);
}

TEST(MemoryPool, EmptyBlocksAreFreedButTheLastOfATypeIsKept) {
    VKD_REQUIRE_DEVICE();
    const size_t before = pool().blockCount();
    const VkDeviceSize size = MemoryPool::kLargestPooled;
    const size_t per_block = MemoryPool::kBlockSize / size;
    std::vector<MemoryPool::Lease> leases;
    for (size_t i = 0; i < 3 * per_block; ++i)
        leases.push_back(pool().allocate(requirements(size, 64), deviceLocalType()));
    EXPECT_GE(pool().blockCount(), before + 2);
    leases.clear();
    EXPECT_LE(pool().blockCount(), std::max<size_t>(before, 1));
    for (int i = 0; i < 100; ++i)  // a lease taken and dropped in a loop does not churn blocks
        pool().allocate(requirements(size, 64), deviceLocalType());
    EXPECT_LE(pool().blockCount(), std::max<size_t>(before, 1));
}

// When memory is too short for a new block, a small request gets an allocation of its own.
TEST(MemoryPool, FallsBackToItsOwnAllocationWhenNoBlockFits) {
    VKD_REQUIRE_DEVICE();
    Device& device = context().deviceOfQueue(0);
    const uint32_t type = deviceLocalType();
    // Far beyond any heap (CPU drivers overcommit a few times their heap size).
    MemoryPool pool(device.handle(), device.memoryProperties(), VkDeviceSize(1) << 62);
    MemoryPool::Lease lease = pool.allocate(requirements(1000, 256), type);
    EXPECT_FALSE(lease.pooled());
    EXPECT_NE(lease.memory(), VkDeviceMemory(VK_NULL_HANDLE));
    EXPECT_EQ(pool.blockCount(), 0u);
}

// Buffers placed side by side in one block keep their own data.
TEST(MemoryPool, NeighbouringBuffersKeepTheirOwnContents) {
    VKD_REQUIRE_DEVICE();
    TransferEngine engine(context());
    std::vector<std::unique_ptr<Buffer>> buffers;
    std::vector<std::vector<uint8_t>> contents;
    for (unsigned i = 0; i < 64; ++i) {
        const size_t size = 4 + 37 * i;
        buffers.push_back(std::make_unique<Buffer>(context(), size));
        contents.push_back(test::randomBytes(size, 100 + i));
        engine.write(*buffers.back(), contents.back().data(), size, 0, -1);
    }
    for (size_t i = 0; i < buffers.size(); i += 2) buffers[i].reset();  // holes to be reused
    for (size_t i = 0; i < buffers.size(); i += 2) {
        buffers[i] = std::make_unique<Buffer>(context(), contents[i].size());
        contents[i] = test::randomBytes(contents[i].size(), 500 + unsigned(i));
        engine.write(*buffers[i], contents[i].data(), contents[i].size(), 0, -1);
    }
    for (size_t i = 0; i < buffers.size(); ++i) {
        std::vector<uint8_t> out(contents[i].size());
        engine.read(*buffers[i], out.data(), out.size(), 0, 0);
        EXPECT_EQ(out, contents[i]) << "buffer " << i;
    }
}
