#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device_fixture.hpp"
#include "fake_memory_driver.hpp"
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

using test::requirements;

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

// A dropped allocation of its own serves the next request of about its size (a loop of equal
// temporaries allocates once); much larger or smaller requests, or another memory type, get
// their own.
TEST(MemoryPool, AnOwnAllocationIsKeptAndServesTheNextRequestOfItsSize) {
    VKD_REQUIRE_DEVICE();
    Device& device = context().deviceOfQueue(0);
    MemoryPool pool(device.handle(), device.memoryProperties());
    const uint32_t type = deviceLocalType();
    const VkDeviceSize size = 4 * MemoryPool::kLargestPooled;
    VkDeviceMemory first;
    {
        MemoryPool::Lease lease = pool.allocate(requirements(size, 256), type);
        ASSERT_FALSE(lease.pooled());
        first = lease.memory();
    }
    EXPECT_EQ(pool.keptCount(), 1u);
    for (int i = 0; i < 20; ++i) {
        MemoryPool::Lease again = pool.allocate(requirements(size - size / 16, 256), type);
        EXPECT_EQ(again.memory(), first) << "iteration " << i;
        EXPECT_EQ(again.allocationSize(), size);  // what a CUDA import must name
        EXPECT_EQ(pool.keptCount(), 0u);
    }
    MemoryPool::Lease larger = pool.allocate(requirements(size + 256, 256), type);
    MemoryPool::Lease smaller = pool.allocate(requirements(size / 2, 256), type);
    EXPECT_NE(larger.memory(), first);
    EXPECT_NE(smaller.memory(), first);
    EXPECT_EQ(pool.keptCount(), 1u);  // still there for a request of its size
}

TEST(MemoryPool, KeptAllocationsAreBoundedOldestFirst) {
    VKD_REQUIRE_DEVICE();
    Device& device = context().deviceOfQueue(0);
    MemoryPool pool(device.handle(), device.memoryProperties());
    const uint32_t type = deviceLocalType();
    std::vector<VkDeviceSize> sizes;
    for (size_t i = 0; i < MemoryPool::kKeptAllocations + 3; ++i)
        sizes.push_back((2 + i) * 2 * MemoryPool::kLargestPooled);  // each > 1/8 apart
    std::vector<MemoryPool::Lease> leases;
    std::vector<VkDeviceMemory> memories;
    for (VkDeviceSize size : sizes) {
        leases.push_back(pool.allocate(requirements(size, 256), type));
        memories.push_back(leases.back().memory());
    }
    leases.clear();  // dropped in order: the first ones are the oldest kept
    EXPECT_EQ(pool.keptCount(), MemoryPool::kKeptAllocations);
    MemoryPool::Lease newest = pool.allocate(requirements(sizes.back(), 256), type);
    EXPECT_EQ(newest.memory(), memories.back());
    MemoryPool::Lease oldest = pool.allocate(requirements(sizes.front(), 256), type);
    EXPECT_EQ(pool.keptCount(), MemoryPool::kKeptAllocations - 1) << "the oldest was freed";
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

// More than the memory type's heap holds is refused as out of memory before Vulkan is asked
// (asking would be invalid usage), naming the heap's size.
TEST(MemoryPool, MoreThanTheHeapHoldsIsOutOfMemory) {
    VKD_REQUIRE_DEVICE();
    Device& device = context().deviceOfQueue(0);
    const uint32_t type = deviceLocalType();
    const auto& memory = device.memoryProperties();
    const VkDeviceSize heap = memory.memoryHeaps[memory.memoryTypes[type].heapIndex].size;
    try {
        device.memoryPool().allocate(requirements(heap + 4096, 256), type);
        FAIL() << "expected OutOfMemoryError";
    } catch (const OutOfMemoryError& error) {
        EXPECT_NE(std::string(error.what()).find("heap holds " + std::to_string(heap)),
                  std::string::npos)
            << error.what();
    }
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

// Small leases of two memory types, asked for in turn, each come from a block of their own type
// (mapped exactly when that type is host-visible), and the two types never share a block, also
// when a block of the other type has room.
TEST(MemoryPoolPure, LeasesComeFromBlocksOfTheirOwnMemoryType) {
    test::FakeMemoryDriver driver;
    {
        MemoryPool pool(test::FakeMemoryDriver::kFakeDevice, test::twoMemoryTypes(), VkDeviceSize(64) << 10);
        std::vector<MemoryPool::Lease> leases;
        std::vector<uint32_t> types;
        for (uint32_t i = 0; i < 60; ++i) {  // 30 leases of each type fill 1.5 blocks
            const uint32_t type = (i % 4 == 1 || i % 4 == 2) ? 1 : 0;  // 0 1 1 0 0 1 1 0 ...
            leases.push_back(pool.allocate(requirements(3000, 256), type));
            types.push_back(type);
        }
        std::map<VkDeviceMemory, uint32_t> block_types;
        for (size_t i = 0; i < leases.size(); ++i) {
            const MemoryPool::Lease& lease = leases[i];
            ASSERT_TRUE(lease.pooled()) << "lease " << i;
            EXPECT_EQ(driver.typeOf(lease.memory()), static_cast<int>(types[i]))
                << "lease " << i << " of memory type " << types[i];
            EXPECT_EQ(lease.mapped() != nullptr, types[i] == 1) << "lease " << i;
            const auto placed = block_types.emplace(lease.memory(), types[i]);
            EXPECT_EQ(placed.first->second, types[i])
                << "lease " << i << " shares a block with a lease of another type";
        }
        EXPECT_EQ(pool.blockCount(), 4u);  // 21 leases of 3000 bytes (aligned to 256) fit in 64 KiB
        EXPECT_EQ(driver.liveAllocations(), 4u);
        leases.clear();
        EXPECT_EQ(pool.blockCount(), 2u);  // the last block of each type stays
    }
    EXPECT_EQ(driver.liveAllocations(), 0u);
}

// Context::emptyCache() (vd.empty_cache()) frees what each device keeps, not what is leased.
TEST(MemoryPool, ContextEmptyCacheFreesKeptMemoryOnly) {
    VKD_REQUIRE_DEVICE();
    TransferEngine engine(context());
    const size_t size = 4 * MemoryPool::kLargestPooled;
    const auto data = test::randomBytes(size, 33);
    Buffer in_use(context(), size);
    engine.write(in_use, data.data(), size, 0, -1);
    std::make_unique<Buffer>(context(), 2 * size).reset();
    ASSERT_GE(pool().keptCount(), 1u);
    EXPECT_GE(context().emptyCache(), 1u);
    EXPECT_EQ(pool().keptCount(), 0u);
    std::vector<uint8_t> out(size);
    engine.read(in_use, out.data(), size, 0, 0);
    EXPECT_EQ(out, data);
}
