// Which calibrated-timestamps extension a device's list offers (KHR before EXT) and whether
// its time domains pair the device's clock with CLOCK_MONOTONIC: pure, no device needed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vkdispatch/calibrated_clock.hpp"

using namespace vkdispatch;

TEST(CalibratedClock, TheKhrExtensionIsPreferredToTheExtOne) {
    EXPECT_STREQ(calibratedTimestampsExtension({"VK_EXT_calibrated_timestamps",
                                                "VK_KHR_calibrated_timestamps"}),
                 "VK_KHR_calibrated_timestamps");
    EXPECT_STREQ(
        calibratedTimestampsExtension({"VK_KHR_swapchain", "VK_EXT_calibrated_timestamps"}),
        "VK_EXT_calibrated_timestamps");
    EXPECT_EQ(calibratedTimestampsExtension({"VK_KHR_swapchain", "VK_EXT_host_query_reset"}),
              nullptr);
    EXPECT_EQ(calibratedTimestampsExtension({}), nullptr);
}

TEST(CalibratedClock, TheDomainsMustHoldTheDeviceAndClockMonotonic) {
    EXPECT_TRUE(
        calibratesHostClock({VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT, VK_TIME_DOMAIN_DEVICE_EXT}));
    EXPECT_TRUE(calibratesHostClock({VK_TIME_DOMAIN_DEVICE_EXT,
                                     VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT,
                                     VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT}));
    // Python's perf_counter is CLOCK_MONOTONIC: the raw clock drifts from it.
    EXPECT_FALSE(calibratesHostClock({VK_TIME_DOMAIN_DEVICE_EXT,
                                      VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT}));
    EXPECT_FALSE(calibratesHostClock({VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT}));
    EXPECT_FALSE(calibratesHostClock({}));
}
