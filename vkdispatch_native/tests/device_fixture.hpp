#pragma once
// A shared instance and single-queue context for device tests; tests skip when no Vulkan driver
// (or no suitable device) is present.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "vkdispatch/context.hpp"
#include "vkdispatch/device_selection.hpp"
#include "vkdispatch/instance.hpp"

namespace vkdispatch::test {

struct DeviceEnvironment {
    std::unique_ptr<Instance> instance;
    std::unique_ptr<Context> context;
    std::string skip_reason;
};

/// A one-queue context (compute family) on the best device of `instance`, or null with
/// `skip_reason` set when there is none.
inline std::unique_ptr<Context> firstDeviceContext(const Instance& instance,
                                                   std::string& skip_reason) {
    const auto ranked = rankDevices(instance.devices(), /*use_cpu=*/true);
    if (ranked.empty()) {
        skip_reason = "no suitable Vulkan device";
        return nullptr;
    }
    const auto& info = instance.devices()[ranked[0]];
    return std::make_unique<Context>(instance, std::vector<int>{ranked[0]},
                                     std::vector<std::vector<int>>{{computeQueueFamily(info)}});
}

inline DeviceEnvironment& deviceEnvironment() {
    static DeviceEnvironment env = [] {
        DeviceEnvironment e;
        try {
            e.instance = std::make_unique<Instance>(InstanceOptions{});
            e.context = firstDeviceContext(*e.instance, e.skip_reason);
        } catch (const std::exception& error) {
            e.skip_reason = error.what();
        }
        return e;
    }();
    return env;
}

#define VKD_REQUIRE_DEVICE()                                                      \
    do {                                                                          \
        if (!::vkdispatch::test::deviceEnvironment().context)                  \
            GTEST_SKIP() << ::vkdispatch::test::deviceEnvironment().skip_reason; \
    } while (0)

inline std::vector<uint8_t> randomBytes(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> out(n);
    for (auto& b : out) b = static_cast<uint8_t>(rng());
    return out;
}

}  // namespace vkdispatch::testing
