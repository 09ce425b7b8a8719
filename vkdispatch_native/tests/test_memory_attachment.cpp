// MemoryPool::Lease::attachment, the slot interop/ keeps its CUDA import of a block in: made
// once per memory and shared by every lease of it, gone with the memory (never handed to a new
// block that got the same handle value), kept with a kept allocation, made once when asked from
// many threads at once. On a pool over a stand-in driver: no CUDA needed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "fake_memory_driver.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/memory_pool.hpp"

using namespace vkdispatch;
using test::requirements;

namespace {

constexpr VkDeviceSize kBlock = VkDeviceSize(64) << 10;
constexpr VkDeviceSize kSmall = 4096;  // 16 to a block

// An attachment factory counting what it made; each attachment holds its serial number.
struct CountingMaker {
    int made = 0;
    std::shared_ptr<void> operator()() { return std::make_shared<int>(++made); }
};

int serialOf(const std::shared_ptr<void>& attachment) {
    return *std::static_pointer_cast<int>(attachment);
}

}  // namespace

TEST(MemoryAttachment, OnePerBlockSharedByItsLeasesAndGoneWithIt) {
    test::FakeMemoryDriver driver;
    MemoryPool pool(test::FakeMemoryDriver::kFakeDevice, test::twoMemoryTypes(), kBlock);
    CountingMaker maker;
    auto make = [&] { return maker(); };
    std::vector<MemoryPool::Lease> first_block, second_block;
    for (int i = 0; i < 16; ++i) first_block.push_back(pool.allocate(requirements(kSmall, 256), 0));
    for (int i = 0; i < 3; ++i) second_block.push_back(pool.allocate(requirements(kSmall, 256), 0));
    ASSERT_NE(first_block[0].memory(), second_block[0].memory());
    const VkDeviceMemory second_memory = second_block[0].memory();
    std::shared_ptr<void> attached = second_block[1].attachment(make);
    EXPECT_EQ(second_block[0].attachment(make), attached);
    EXPECT_EQ(second_block[2].attachment(make), attached);
    EXPECT_NE(first_block[5].attachment(make), attached);
    EXPECT_EQ(maker.made, 2);

    std::weak_ptr<void> observed = attached;
    second_block.clear();  // the block is freed (the first one of its type stays)
    ASSERT_EQ(pool.blockCount(), 1u);
    EXPECT_EQ(serialOf(attached), 1) << "a holder's attachment went with the block";
    attached.reset();
    EXPECT_TRUE(observed.expired()) << "the attachment outlived its memory and holders";

    first_block.push_back(pool.allocate(requirements(kSmall, 256), 0));  // a new block
    MemoryPool::Lease& newcomer = first_block.back();
    ASSERT_EQ(newcomer.memory(), second_memory) << "the stand-in driver reuses handle values";
    EXPECT_EQ(serialOf(newcomer.attachment(make)), 3) << "an old block's attachment came back";
}

TEST(MemoryAttachment, StaysWithAKeptAllocationUntilDropKept) {
    test::FakeMemoryDriver driver;
    MemoryPool pool(test::FakeMemoryDriver::kFakeDevice, test::twoMemoryTypes(), kBlock);
    CountingMaker maker;
    auto make = [&] { return maker(); };
    std::weak_ptr<void> observed;
    {
        MemoryPool::Lease own = pool.allocate(requirements(4 * kBlock, 256), 0);
        observed = own.attachment(make);
    }
    EXPECT_FALSE(observed.expired()) << "a kept allocation lost its attachment";
    {
        MemoryPool::Lease again = pool.allocate(requirements(4 * kBlock, 256), 0);
        EXPECT_EQ(again.attachment(make), observed.lock());
        EXPECT_EQ(maker.made, 1);
    }
    EXPECT_EQ(pool.dropKept(), 1u);
    EXPECT_TRUE(observed.expired());
    MemoryPool::Lease fresh = pool.allocate(requirements(4 * kBlock, 256), 0);
    EXPECT_EQ(serialOf(fresh.attachment(make)), 2);
}

TEST(MemoryAttachment, AFailedMakeAttachesNothing) {
    test::FakeMemoryDriver driver;
    MemoryPool pool(test::FakeMemoryDriver::kFakeDevice, test::twoMemoryTypes(), kBlock);
    MemoryPool::Lease lease = pool.allocate(requirements(kSmall, 256), 0);
    EXPECT_THROW(lease.attachment([]() -> std::shared_ptr<void> {
        throw std::runtime_error("import failed");
    }),
                 std::runtime_error);
    CountingMaker maker;
    EXPECT_EQ(serialOf(lease.attachment([&] { return maker(); })), 1);
    EXPECT_THROW(MemoryPool::Lease().attachment([&] { return maker(); }), Error);
}

TEST(MemoryAttachment, MadeOnceWhenManyThreadsAskAtOnce) {
    test::FakeMemoryDriver driver;
    MemoryPool pool(test::FakeMemoryDriver::kFakeDevice, test::twoMemoryTypes(), kBlock);
    std::vector<MemoryPool::Lease> leases;
    for (int i = 0; i < 8; ++i) leases.push_back(pool.allocate(requirements(kSmall, 256), 0));
    std::atomic<int> made{0};
    std::atomic<bool> go{false};
    std::vector<std::shared_ptr<void>> seen(leases.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < leases.size(); ++i)
        threads.emplace_back([&, i] {
            while (!go.load()) std::this_thread::yield();
            seen[i] = leases[i].attachment([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));  // as an import
                return std::make_shared<int>(++made);
            });
        });
    go = true;
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(made.load(), 1);
    for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], seen[0]) << "thread " << i;
}
