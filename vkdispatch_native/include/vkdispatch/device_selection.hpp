#pragma once
// Pure device and queue-family choice over DeviceInfo values: testable without a driver.
#include <cstdint>
#include <vector>

#include "vkdispatch/device_info.hpp"

namespace vkdispatch {

/// Indices into `devices` of the devices a default context may use, best first: discrete GPUs,
/// then integrated, then virtual, then (only with `use_cpu`) CPU implementations, each group in
/// enumeration order. Devices of type Other and devices that cannot host a context are skipped.
std::vector<int> rankDevices(const std::vector<DeviceInfo>& devices, bool use_cpu);

/// The family a compute-only workload prefers: a dedicated compute family first.
/// Throws InvalidArgumentError when the device has no compute family.
int computeQueueFamily(const DeviceInfo& device);

/// The family a mixed workload prefers: graphics + compute + transfer first.
int graphicsQueueFamily(const DeviceInfo& device);

/// One family index per queue to create. `queue_count < 0` picks the default: 2 queues (3 on
/// NVIDIA), or 1 when the compute and graphics families coincide.
std::vector<int> selectQueueFamilies(const DeviceInfo& device, int queue_count);

/// Throws InvalidArgumentError unless `families` is not empty and every family index exists on
/// `device` and can run compute work. A family may be asked for more queues than it has: see
/// hardwareQueueIndices.
void validateQueueFamilies(const DeviceInfo& device, const std::vector<int>& families);

/// For each requested (logical) queue, the index within its family of the hardware queue it
/// runs on. Requests beyond what a family offers share its hardware queues in turn (the third
/// queue of a family with two runs on its first), so a context can have more queues than the
/// device: each keeps its own replicas and timeline; only their submissions are serialised.
std::vector<uint32_t> hardwareQueueIndices(const DeviceInfo& device,
                                           const std::vector<int>& families);

}  // namespace vkdispatch
