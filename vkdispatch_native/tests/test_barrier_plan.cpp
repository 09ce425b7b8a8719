// Pure hazard planning: no device needed.
#include <gtest/gtest.h>

#include "vkdispatch/barrier_plan.hpp"

using namespace vkdispatch;

namespace {
constexpr Stage kStages[] = {Stage::Compute, Stage::Transfer, Stage::Host};
const char* const kStageNames[] = {"compute", "transfer", "host"};

ResourceAccess reads(uint64_t buffer, Stage stage = Stage::Compute) {
    return {buffer, stage, true, false};
}
ResourceAccess writes(uint64_t buffer, Stage stage = Stage::Compute) {
    return {buffer, stage, false, true};
}
ResourceAccess readsWrites(uint64_t buffer, Stage stage = Stage::Compute) {
    return {buffer, stage, true, true};
}

std::vector<bool> needed(const std::vector<Barrier>& barriers) {
    std::vector<bool> out;
    for (const Barrier& b : barriers) out.push_back(b.needed());
    return out;
}

std::vector<bool> plan(const std::vector<std::vector<ResourceAccess>>& commands) {
    return needed(planBarriers(commands));
}

constexpr AccessMask R(Stage s) { return accessBit(s, false); }
constexpr AccessMask W(Stage s) { return accessBit(s, true); }
}  // namespace

TEST(BarrierPlan, EmptySequenceNeedsNothing) { EXPECT_TRUE(planBarriers({}).empty()); }

TEST(BarrierPlan, FirstUseNeedsNoBarrier) {
    EXPECT_EQ(plan({{readsWrites(1)}}), std::vector<bool>({false}));
    EXPECT_EQ(plan({{writes(1)}, {writes(2)}, {readsWrites(3)}}),
              std::vector<bool>({false, false, false}));
}

TEST(BarrierPlan, ReadAfterWriteNeedsBarrier) {
    EXPECT_EQ(plan({{writes(1)}, {reads(1)}}), std::vector<bool>({false, true}));
}

TEST(BarrierPlan, WriteAfterWriteNeedsBarrier) {
    EXPECT_EQ(plan({{writes(1)}, {writes(1)}}), std::vector<bool>({false, true}));
}

TEST(BarrierPlan, WriteAfterReadNeedsBarrier) {
    EXPECT_EQ(plan({{reads(1)}, {writes(1)}}), std::vector<bool>({false, true}));
}

TEST(BarrierPlan, ReadAfterReadNeedsNone) {
    EXPECT_EQ(plan({{reads(1)}, {reads(1)}, {reads(1), reads(2)}}),
              std::vector<bool>({false, false, false}));
}

TEST(BarrierPlan, BarrierClearsEarlierAccesses) {
    // x -> y, y -> z, then reading x again: the barrier before command 2 already ordered the
    // first write of y, and x was only read, so command 3 needs none.
    EXPECT_EQ(plan({{reads(1), writes(2)}, {reads(2), writes(3)}, {reads(1), writes(4)},
                    {reads(3)}}),
              std::vector<bool>({false, true, false, true}));
}

TEST(BarrierPlan, HazardOnAnyOfSeveralBuffersTriggers) {
    EXPECT_EQ(plan({{reads(1), writes(2)}, {reads(5), reads(6), reads(2)}}),
              std::vector<bool>({false, true}));
}

TEST(BarrierPlan, AccessWithoutReadOrWriteIsIgnored) {
    EXPECT_EQ(plan({{writes(1)}, {{1, Stage::Compute, false, false}}}),
              std::vector<bool>({false, false}));
}

TEST(BarrierPlan, ChainOfIncrementsNeedsBarrierBetweenEach) {
    std::vector<std::vector<ResourceAccess>> chain(5, {readsWrites(7)});
    EXPECT_EQ(plan(chain), std::vector<bool>({false, true, true, true, true}));
}

TEST(BarrierPlan, AllComputeListGetsComputeToComputeBarrier) {
    const std::vector<Barrier> barriers = planBarriers({{reads(1), writes(2)}, {reads(2)}});
    EXPECT_EQ(barriers[1], (Barrier{R(Stage::Compute) | W(Stage::Compute),
                                    R(Stage::Compute) | W(Stage::Compute)}));
}

// Every ordered pair of stage kinds and every access pair: a barrier exactly for RAW, WAW and
// WAR, whose source holds the earlier access and whose destination holds the later one.
TEST(BarrierPlan, EveryPairOfStageKindsGetsTheBarrierItsHazardNeeds) {
    for (int a = 0; a < kStageCount; ++a) {
        for (int b = 0; b < kStageCount; ++b) {
            const Stage first = kStages[a], second = kStages[b];
            for (int kinds = 0; kinds < 4; ++kinds) {
                const bool first_writes = kinds & 1, second_writes = kinds & 2;
                const ResourceAccess before{9, first, !first_writes, first_writes};
                const ResourceAccess after{9, second, !second_writes, second_writes};
                const std::vector<Barrier> barriers = planBarriers({{before}, {after}});
                SCOPED_TRACE(std::string(kStageNames[a]) + (first_writes ? " write" : " read") +
                             " then " + kStageNames[b] + (second_writes ? " write" : " read"));
                EXPECT_FALSE(barriers[0].needed());
                const bool hazard = first_writes || second_writes;
                ASSERT_EQ(barriers[1].needed(), hazard);
                if (!hazard) continue;
                EXPECT_EQ(barriers[1].src, before.mask());
                EXPECT_EQ(writeBits(barriers[1].src) != 0, first_writes);
                EXPECT_EQ(barriers[1].dst, before.mask() | after.mask());
                EXPECT_TRUE(touchesStage(barriers[1].dst, second));
            }
        }
    }
}

TEST(BarrierPlan, DisjointResourcesOfDifferentStagesNeedNone) {
    for (Stage first : kStages)
        for (Stage second : kStages)
            EXPECT_EQ(plan({{writes(1, first)}, {writes(2, second)}, {reads(3, first)}}),
                      std::vector<bool>({false, false, false}));
}

TEST(BarrierPlan, BarrierScopeCoversEveryStageOfTheListSoLaterCommandsNeedNone) {
    // compute writes 1 and 2; a compute read of 1 needs a barrier, whose destination scope
    // includes the transfer stage the list also uses; so the later copy reading 2 is already
    // ordered after the write of 2 and needs none.
    const std::vector<Barrier> barriers = planBarriers({
        {writes(1), writes(2)},
        {reads(1)},
        {reads(2, Stage::Transfer), writes(3, Stage::Transfer)},
    });
    EXPECT_EQ(needed(barriers), std::vector<bool>({false, true, false}));
    EXPECT_TRUE(touchesStage(barriers[1].dst, Stage::Transfer));
    EXPECT_TRUE(barriers[1].dst & R(Stage::Transfer));
    EXPECT_EQ(barriers[1].src, W(Stage::Compute));
}

TEST(BarrierPlan, SourceHoldsEveryAccessSinceTheLastBarrier) {
    const std::vector<Barrier> barriers = planBarriers({
        {reads(1, Stage::Transfer), writes(2, Stage::Transfer)},
        {reads(4, Stage::Compute), writes(5, Stage::Compute)},
        {reads(5, Stage::Host)},
    });
    EXPECT_EQ(barriers[2].src,
              R(Stage::Transfer) | W(Stage::Transfer) | R(Stage::Compute) | W(Stage::Compute));
    EXPECT_EQ(writeBits(barriers[2].src), W(Stage::Transfer) | W(Stage::Compute));
    EXPECT_TRUE(barriers[2].dst & R(Stage::Host));
}

TEST(BarrierPlan, TrackerCarriesHazardsAcrossReplays) {
    // One instance = {read 1, write 2}: replaying it must see the WAR/WAW on buffer 2.
    HazardTracker tracker;
    const std::vector<ResourceAccess> instance = {reads(1), writes(2)};
    tracker.reset(accessMaskOf(instance.data(), instance.size()));
    EXPECT_FALSE(tracker.admit(instance).needed());
    EXPECT_TRUE(tracker.admit(instance).needed());
    EXPECT_TRUE(tracker.admit(instance).needed());
    tracker.reset(0);
    EXPECT_FALSE(tracker.admit(instance).needed());
}

TEST(BarrierPlan, FullBarrierForgetsEveryAccess) {
    HazardTracker tracker;
    tracker.reset(W(Stage::Transfer) | R(Stage::Compute));
    EXPECT_FALSE(tracker.admit({writes(1, Stage::Transfer)}).needed());
    tracker.fullBarrier();
    EXPECT_FALSE(tracker.admit({reads(1)}).needed());
    EXPECT_TRUE(tracker.admit({writes(1, Stage::Transfer)}).needed());
}

TEST(BarrierPlan, ReadOnlyReplaysNeedNone) {
    HazardTracker tracker;
    tracker.reset(R(Stage::Compute));
    const std::vector<ResourceAccess> instance = {reads(1), reads(2)};
    for (int i = 0; i < 4; ++i) EXPECT_FALSE(tracker.admit(instance).needed());
}
