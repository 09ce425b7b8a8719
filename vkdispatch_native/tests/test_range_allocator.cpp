#include <gtest/gtest.h>

#include <map>
#include <random>

#include "vkdispatch/errors.hpp"
#include "vkdispatch/range_allocator.hpp"

using namespace vkdispatch;

TEST(RangeAllocator, PlacesAlignedRangesFirstFitAndFailsWhenFull) {
    RangeAllocator ranges(1024);
    EXPECT_EQ(ranges.allocate(10, 1), 0u);
    EXPECT_EQ(ranges.allocate(100, 64), 64u);  // skips [10, 64), which stays free
    EXPECT_EQ(ranges.allocate(40, 1), 10u);    // first fit: the gap left by the alignment
    EXPECT_EQ(ranges.used(), 150u);
    EXPECT_FALSE(ranges.allocate(1024, 1).has_value());
    EXPECT_EQ(ranges.allocate(860, 1), 164u);  // exactly the rest
    EXPECT_EQ(ranges.allocate(4, 1), 50u);     // [50, 64) was still free
    EXPECT_THROW(ranges.allocate(0, 1), InvalidArgumentError);
    EXPECT_THROW(ranges.allocate(8, 3), InvalidArgumentError);
}

TEST(RangeAllocator, ReleasingMergesNeighboursAndRejectsRangesNotTaken) {
    RangeAllocator ranges(300);
    const uint64_t a = *ranges.allocate(100, 1), b = *ranges.allocate(100, 1),
                   c = *ranges.allocate(100, 1);
    ranges.release(a, 100);
    ranges.release(c, 100);
    EXPECT_EQ(ranges.freeRangeCount(), 2u);
    EXPECT_THROW(ranges.release(a, 100), Error);      // already free
    EXPECT_THROW(ranges.release(b + 50, 100), Error);  // reaches into the free tail
    EXPECT_THROW(ranges.release(250, 100), Error);     // past the capacity
    ranges.release(b, 100);
    EXPECT_EQ(ranges.freeRangeCount(), 1u);
    EXPECT_EQ(ranges.used(), 0u);
    EXPECT_EQ(ranges.allocate(300, 1), 0u);
}

// Random allocations and releases against a model of what is taken: ranges never overlap,
// respect their alignment, and once all are released the space is one free range again.
TEST(RangeAllocator, RandomUseNeverOverlapsAndCoalescesCompletely) {
    std::mt19937 rng(7);
    RangeAllocator ranges(1 << 16);
    std::map<uint64_t, uint64_t> taken;  // offset -> size
    for (int step = 0; step < 5000; ++step) {
        if (taken.empty() || rng() % 3 != 0) {
            const uint64_t size = 1 + rng() % 700;
            const uint64_t alignment = uint64_t(1) << (rng() % 9);
            const auto offset = ranges.allocate(size, alignment);
            if (!offset) continue;
            ASSERT_EQ(*offset % alignment, 0u);
            ASSERT_LE(*offset + size, ranges.capacity());
            auto next = taken.lower_bound(*offset);
            if (next != taken.end()) ASSERT_LE(*offset + size, next->first);
            if (next != taken.begin()) ASSERT_LE(std::prev(next)->first + std::prev(next)->second,
                                                 *offset);
            taken.emplace(*offset, size);
        } else {
            auto victim = std::next(taken.begin(), rng() % taken.size());
            ranges.release(victim->first, victim->second);
            taken.erase(victim);
        }
        uint64_t used = 0;
        for (const auto& entry : taken) used += entry.second;
        ASSERT_EQ(ranges.used(), used);
    }
    for (const auto& entry : taken) ranges.release(entry.first, entry.second);
    EXPECT_EQ(ranges.freeRangeCount(), 1u);
    EXPECT_EQ(ranges.allocate(ranges.capacity(), 1), 0u);
}
