#include <gtest/gtest.h>

#include "vkdispatch/memory_type.hpp"

using namespace vkdispatch;

namespace {
constexpr uint32_t kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr uint32_t kVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
constexpr uint32_t kCoherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr uint32_t kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
// A discrete GPU with a resizable-BAR type listed before the plain device-local one.
const std::vector<uint32_t> kDiscrete = {kLocal | kVisible | kCoherent, kLocal,
                                         kVisible | kCoherent, kVisible | kCoherent | kCached};
}  // namespace

TEST(ChooseMemoryType, DeviceLocalAvoidsHostVisibleUnlessPreferred) {
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0xF, kLocal, 0), 1);
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0xF, kLocal, kVisible | kCoherent), 0);
}

TEST(ChooseMemoryType, StagingPrefersCached) {
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0xF, kVisible | kCoherent, kCached), 3);
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0x7, kVisible | kCoherent, kCached), 0);
}

TEST(ChooseMemoryType, RespectsAllowedBitsAndReportsNone) {
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0x4, kLocal, 0), -1);
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0x0, 0, 0), -1);
}
