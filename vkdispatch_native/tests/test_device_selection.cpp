#include <gtest/gtest.h>

#include "vkdispatch/device_selection.hpp"
#include "vkdispatch/errors.hpp"

using namespace vkdispatch;

namespace {

DeviceInfo makeDevice(DeviceType type, std::vector<QueueFamilyInfo> families,
                      const std::string& name = "Test GPU") {
    DeviceInfo d;
    d.device_type = type;
    d.device_name = name;
    d.queue_families = std::move(families);
    d.timeline_semaphores = true;
    d.scalar_block_layout = true;
    return d;
}

const std::vector<QueueFamilyInfo> kTypicalFamilies = {{16, 0xF}, {2, 0xE}, {8, 0x6}, {1, 0x4}};

}  // namespace

TEST(RankDevices, DiscreteBeforeIntegratedAndCpuOnlyWhenAsked) {
    std::vector<DeviceInfo> devices = {makeDevice(DeviceType::Cpu, kTypicalFamilies),
                                       makeDevice(DeviceType::IntegratedGpu, kTypicalFamilies),
                                       makeDevice(DeviceType::Other, kTypicalFamilies),
                                       makeDevice(DeviceType::DiscreteGpu, kTypicalFamilies)};
    EXPECT_EQ(rankDevices(devices, false), (std::vector<int>{3, 1}));
    EXPECT_EQ(rankDevices(devices, true), (std::vector<int>{3, 1, 0}));
}

TEST(RankDevices, UnsuitableDeviceIsSkipped) {
    std::vector<DeviceInfo> devices = {makeDevice(DeviceType::DiscreteGpu, kTypicalFamilies),
                                       makeDevice(DeviceType::DiscreteGpu, kTypicalFamilies)};
    devices[0].scalar_block_layout = false;
    EXPECT_EQ(devices[0].unsuitable_reason(), "no scalar block layout support");
    EXPECT_EQ(rankDevices(devices, false), (std::vector<int>{1}));
}

TEST(QueueFamilies, DedicatedComputeFamilyPreferred) {
    const DeviceInfo d = makeDevice(DeviceType::DiscreteGpu, kTypicalFamilies);
    EXPECT_EQ(computeQueueFamily(d), 1);
    EXPECT_EQ(graphicsQueueFamily(d), 0);
}

TEST(QueueFamilies, NoComputeFamilyThrows) {
    const DeviceInfo d = makeDevice(DeviceType::DiscreteGpu, {{1, 0x1}, {1, 0x4}});
    EXPECT_THROW(computeQueueFamily(d), InvalidArgumentError);
}

TEST(QueueFamilies, DefaultCountIsThreeOnNvidiaWithGraphicsSecond) {
    const DeviceInfo d = makeDevice(DeviceType::DiscreteGpu, kTypicalFamilies, "NVIDIA H200");
    EXPECT_EQ(selectQueueFamilies(d, -1), (std::vector<int>{1, 0, 1}));
}

TEST(QueueFamilies, DefaultCountIsOneWhenFamiliesCoincide) {
    const DeviceInfo d = makeDevice(DeviceType::Cpu, {{1, 0x7}});
    EXPECT_EQ(selectQueueFamilies(d, -1), (std::vector<int>{0}));
}

TEST(QueueFamilies, AlternatesComputeAndGraphicsElsewhere) {
    const DeviceInfo d = makeDevice(DeviceType::DiscreteGpu, kTypicalFamilies, "AMD");
    EXPECT_EQ(selectQueueFamilies(d, 4), (std::vector<int>{1, 0, 1, 0}));
}

TEST(QueueFamilies, ValidationRejectsMissingFamiliesAndFamiliesWithoutCompute) {
    const DeviceInfo d = makeDevice(DeviceType::DiscreteGpu, kTypicalFamilies);
    EXPECT_THROW(validateQueueFamilies(d, {5}), InvalidArgumentError);
    EXPECT_THROW(validateQueueFamilies(d, {3}), InvalidArgumentError);  // transfer only
    EXPECT_THROW(validateQueueFamilies(d, {}), InvalidArgumentError);
    EXPECT_NO_THROW(validateQueueFamilies(d, {1, 1, 0}));
    EXPECT_NO_THROW(validateQueueFamilies(d, {1, 1, 1, 1, 1}));  // more than family 1 has
}

TEST(QueueFamilies, QueuesBeyondAFamilysCountShareItsHardwareQueuesInTurn) {
    const DeviceInfo d = makeDevice(DeviceType::DiscreteGpu, kTypicalFamilies);
    const uint32_t in_family_1 = d.queue_families[1].queue_count;
    ASSERT_GE(in_family_1, 1u);
    std::vector<int> families(in_family_1 * 2 + 1, 1);
    families.insert(families.begin() + 1, 0);  // another family keeps its own numbering
    const std::vector<uint32_t> indices = hardwareQueueIndices(d, families);
    ASSERT_EQ(indices.size(), families.size());
    EXPECT_EQ(indices[1], 0u);
    uint32_t expected = 0;
    for (size_t i = 0; i < families.size(); ++i) {
        if (families[i] != 1) continue;
        EXPECT_EQ(indices[i], expected % in_family_1) << "queue " << i;
        ++expected;
    }
    EXPECT_THROW(hardwareQueueIndices(d, {7}), InvalidArgumentError);
}

TEST(QueueFamilies, OneQueueFamilyServesAnyNumberOfQueuesOnItsOneQueue) {
    const DeviceInfo cpu = makeDevice(DeviceType::Cpu, {{1, kQueueGraphics | kQueueCompute | kQueueTransfer}});
    EXPECT_EQ(hardwareQueueIndices(cpu, {0, 0, 0}), (std::vector<uint32_t>{0, 0, 0}));
    EXPECT_EQ(selectQueueFamilies(cpu, 3), (std::vector<int>{0, 0, 0}));
}
