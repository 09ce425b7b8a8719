// Pure hazard planning: no device needed.
#include <gtest/gtest.h>

#include "vkdispatch/barrier_plan.hpp"

using namespace vkdispatch;

namespace {
BufferAccess reads(uint64_t buffer) { return {buffer, true, false}; }
BufferAccess writes(uint64_t buffer) { return {buffer, false, true}; }
BufferAccess readsWrites(uint64_t buffer) { return {buffer, true, true}; }
}  // namespace

TEST(BarrierPlan, EmptySequenceNeedsNothing) { EXPECT_TRUE(planBarriers({}).empty()); }

TEST(BarrierPlan, FirstUseNeedsNoBarrier) {
    EXPECT_EQ(planBarriers({{readsWrites(1)}}), std::vector<bool>({false}));
    EXPECT_EQ(planBarriers({{writes(1)}, {writes(2)}, {readsWrites(3)}}),
              std::vector<bool>({false, false, false}));
}

TEST(BarrierPlan, ReadAfterWriteNeedsBarrier) {
    EXPECT_EQ(planBarriers({{writes(1)}, {reads(1)}}), std::vector<bool>({false, true}));
}

TEST(BarrierPlan, WriteAfterWriteNeedsBarrier) {
    EXPECT_EQ(planBarriers({{writes(1)}, {writes(1)}}), std::vector<bool>({false, true}));
}

TEST(BarrierPlan, WriteAfterReadNeedsBarrier) {
    EXPECT_EQ(planBarriers({{reads(1)}, {writes(1)}}), std::vector<bool>({false, true}));
}

TEST(BarrierPlan, ReadAfterReadNeedsNone) {
    EXPECT_EQ(planBarriers({{reads(1)}, {reads(1)}, {reads(1), reads(2)}}),
              std::vector<bool>({false, false, false}));
}

TEST(BarrierPlan, BarrierClearsEarlierAccesses) {
    // x -> y, y -> z, then reading x again: the barrier before dispatch 2 already ordered the
    // first write of y, and x was only read, so dispatch 3 needs none.
    const std::vector<bool> plan = planBarriers({
        {reads(1), writes(2)},
        {reads(2), writes(3)},
        {reads(1), writes(4)},
        {reads(3)},
    });
    EXPECT_EQ(plan, std::vector<bool>({false, true, false, true}));
}

TEST(BarrierPlan, HazardOnAnyOfSeveralBuffersTriggers) {
    EXPECT_EQ(planBarriers({{reads(1), writes(2)}, {reads(5), reads(6), reads(2)}}),
              std::vector<bool>({false, true}));
}

TEST(BarrierPlan, AccessWithoutReadOrWriteIsIgnored) {
    EXPECT_EQ(planBarriers({{writes(1)}, {{1, false, false}}}), std::vector<bool>({false, false}));
}

TEST(BarrierPlan, ChainOfIncrementsNeedsBarrierBetweenEach) {
    std::vector<std::vector<BufferAccess>> chain(5, {readsWrites(7)});
    EXPECT_EQ(planBarriers(chain), std::vector<bool>({false, true, true, true, true}));
}

TEST(BarrierPlan, TrackerCarriesHazardsAcrossReplays) {
    // One instance = {read 1, write 2}: replaying it must see the WAR/WAW on buffer 2.
    HazardTracker tracker;
    const std::vector<BufferAccess> instance = {reads(1), writes(2)};
    EXPECT_FALSE(tracker.admit(instance));
    EXPECT_TRUE(tracker.admit(instance));
    EXPECT_TRUE(tracker.admit(instance));
    tracker.reset();
    EXPECT_FALSE(tracker.admit(instance));
}

TEST(BarrierPlan, ReadOnlyReplaysNeedNone) {
    HazardTracker tracker;
    const std::vector<BufferAccess> instance = {reads(1), reads(2)};
    for (int i = 0; i < 4; ++i) EXPECT_FALSE(tracker.admit(instance));
}
