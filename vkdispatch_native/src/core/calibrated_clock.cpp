#include "vkdispatch/calibrated_clock.hpp"

#include <algorithm>

#include "vkdispatch/vulkan_list.hpp"

namespace vkdispatch {
namespace {

// VK_KHR_calibrated_timestamps (Vulkan headers 1.3.278 on) promoted the EXT extension unchanged:
// the same structures and enum values under new names. The headers built against here may
// predate it, so its names are spelled out and its entry points fetched by name.
constexpr const char* kKhrExtension = "VK_KHR_calibrated_timestamps";
constexpr const char* kKhrDomains = "vkGetPhysicalDeviceCalibrateableTimeDomainsKHR";
constexpr const char* kKhrSample = "vkGetCalibratedTimestampsKHR";
constexpr const char* kExtDomains = "vkGetPhysicalDeviceCalibrateableTimeDomainsEXT";
constexpr const char* kExtSample = "vkGetCalibratedTimestampsEXT";

bool isKhr(const char* extension) { return std::string(extension) == kKhrExtension; }

}  // namespace

const char* calibratedTimestampsExtension(const std::vector<std::string>& extensions) {
    const auto offered = [&](const char* name) {
        return std::find(extensions.begin(), extensions.end(), name) != extensions.end();
    };
    if (offered(kKhrExtension)) return kKhrExtension;
    if (offered(VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME))
        return VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
    return nullptr;
}

bool calibratesHostClock(const std::vector<VkTimeDomainEXT>& domains) {
    const auto has = [&](VkTimeDomainEXT domain) {
        return std::find(domains.begin(), domains.end(), domain) != domains.end();
    };
    return has(VK_TIME_DOMAIN_DEVICE_EXT) && has(VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT);
}

const char* CalibratedClock::extensionFor(VkInstance instance, VkPhysicalDevice physical,
                                          const std::vector<std::string>& extensions) {
    const char* extension = calibratedTimestampsExtension(extensions);
    if (extension == nullptr) return nullptr;
    const auto domains_of = reinterpret_cast<PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT>(
        vkGetInstanceProcAddr(instance, isKhr(extension) ? kKhrDomains : kExtDomains));
    if (domains_of == nullptr) return nullptr;
    std::vector<VkTimeDomainEXT> domains;
    if (detail::listInto(domains, {}, domains_of, physical) != VK_SUCCESS) return nullptr;
    return calibratesHostClock(domains) ? extension : nullptr;
}

CalibratedClock::CalibratedClock(VkDevice device, const char* extension)
    : m_device(device),
      m_get(reinterpret_cast<PFN_vkGetCalibratedTimestampsEXT>(
          vkGetDeviceProcAddr(device, isKhr(extension) ? kKhrSample : kExtSample))) {}

std::optional<CalibratedSample> CalibratedClock::sample() const {
    if (m_get == nullptr) return std::nullopt;
    VkCalibratedTimestampInfoEXT infos[2] = {
        {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr, VK_TIME_DOMAIN_DEVICE_EXT},
        {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr,
         VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT}};
    uint64_t values[2] = {0, 0};
    CalibratedSample sample;
    if (m_get(m_device, 2, infos, values, &sample.deviation_ns) != VK_SUCCESS)
        return std::nullopt;
    sample.device_ticks = values[0];
    sample.host_ns = values[1];
    return sample;
}

}  // namespace vkdispatch
