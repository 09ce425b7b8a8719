#pragma once
// A device timestamp and the host's monotonic clock sampled together by the driver
// (VK_KHR_calibrated_timestamps, or VK_EXT_calibrated_timestamps before it): what places host
// spans on a device's time line (vd.profile()) to within the driver's stated deviation, where a
// timestamp submitted and waited for is only known to within half that round trip.
//
// Thread safety: sample() may be called from any thread.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vkdispatch/vk.hpp"

namespace vkdispatch {

/// The calibrated-timestamps extension to use among a device's `extensions`: the KHR one where
/// offered, else the EXT one (the same entry points and structures), else null.
const char* calibratedTimestampsExtension(const std::vector<std::string>& extensions);

/// Whether `domains`, the time domains a device calibrates, hold both the device's own and
/// CLOCK_MONOTONIC, the host clock of host spans (Python's perf_counter on Linux).
bool calibratesHostClock(const std::vector<VkTimeDomainEXT>& domains);

struct CalibratedSample {
    uint64_t device_ticks = 0;  // a timestamp as vkCmdWriteTimestamp writes them (unmasked)
    uint64_t host_ns = 0;       // CLOCK_MONOTONIC at the same moment
    uint64_t deviation_ns = 0;  // the driver's bound on how far apart the two samples are
};

class CalibratedClock {
public:
    /// The extension through which `physical` calibrates its timestamps with CLOCK_MONOTONIC,
    /// among the device `extensions` it offers; null where none does.
    static const char* extensionFor(VkInstance instance, VkPhysicalDevice physical,
                                    const std::vector<std::string>& extensions);
    /// The clock of `device`, created with `extension` (as extensionFor() returned it) enabled.
    CalibratedClock(VkDevice device, const char* extension);

    /// Both clocks at about the same moment; nothing where the driver fails to sample them.
    std::optional<CalibratedSample> sample() const;

private:
    VkDevice m_device;
    PFN_vkGetCalibratedTimestampsEXT m_get = nullptr;
};

}  // namespace vkdispatch
