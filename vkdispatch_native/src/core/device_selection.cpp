#include "vkdispatch/device_selection.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

constexpr uint32_t kComputeTransfer = kQueueCompute | kQueueTransfer;
constexpr uint32_t kComputeTransferSparse = kComputeTransfer | kQueueSparse;
constexpr uint32_t kGraphicsComputeTransfer = kQueueGraphics | kComputeTransfer;

template <typename Predicate>
int firstFamily(const DeviceInfo& device, Predicate predicate) {
    for (size_t i = 0; i < device.queue_families.size(); ++i) {
        if (predicate(device.queue_families[i].flags)) return static_cast<int>(i);
    }
    return -1;
}

bool hasCompute(uint32_t flags) { return (flags & kQueueCompute) != 0; }

bool isNvidia(const DeviceInfo& device) {
    return device.device_name.find("NVIDIA") != std::string::npos;
}

}  // namespace

std::string DeviceInfo::unsuitable_reason() const {
    if (!timeline_semaphores) return "no timeline semaphore support";
    if (!scalar_block_layout) return "no scalar block layout support";
    if (firstFamily(*this, hasCompute) < 0) return "no compute queue family";
    return {};
}

std::vector<int> rankDevices(const std::vector<DeviceInfo>& devices, bool use_cpu) {
    std::vector<DeviceType> order = {DeviceType::DiscreteGpu, DeviceType::IntegratedGpu,
                                     DeviceType::VirtualGpu};
    if (use_cpu) order.push_back(DeviceType::Cpu);
    std::vector<int> ranked;
    for (DeviceType type : order) {
        for (size_t i = 0; i < devices.size(); ++i) {
            if (devices[i].device_type == type && devices[i].unsuitable_reason().empty())
                ranked.push_back(static_cast<int>(i));
        }
    }
    return ranked;
}

int computeQueueFamily(const DeviceInfo& device) {
    int family = firstFamily(device, [](uint32_t f) {
        return f == kComputeTransfer || f == kComputeTransferSparse;
    });
    if (family < 0)
        family = firstFamily(device, [](uint32_t f) { return hasCompute(f) && !(f & kQueueGraphics); });
    if (family < 0) family = firstFamily(device, hasCompute);
    if (family < 0)
        throw InvalidArgumentError("device " + std::to_string(device.index) + " ('" +
                                   device.device_name + "') has no compute queue family");
    return family;
}

int graphicsQueueFamily(const DeviceInfo& device) {
    int family = firstFamily(device, [](uint32_t f) {
        return (f & ~kQueueSparse) == kGraphicsComputeTransfer;
    });
    if (family < 0)
        family = firstFamily(device, [](uint32_t f) { return hasCompute(f) && (f & kQueueGraphics); });
    if (family < 0) family = computeQueueFamily(device);
    return family;
}

std::vector<int> selectQueueFamilies(const DeviceInfo& device, int queue_count) {
    const int compute = computeQueueFamily(device);
    const int graphics = graphicsQueueFamily(device);
    const bool nvidia = isNvidia(device);
    if (queue_count < 0) queue_count = compute == graphics ? 1 : (nvidia ? 3 : 2);
    std::vector<int> families;
    for (int i = 0; i < queue_count; ++i) {
        const bool use_graphics = nvidia ? i == 1 : i % 2 == 1;
        families.push_back(use_graphics ? graphics : compute);
    }
    validateQueueFamilies(device, families);
    return families;
}

void validateQueueFamilies(const DeviceInfo& device, const std::vector<int>& families) {
    const int family_count = static_cast<int>(device.queue_families.size());
    for (int family : families) {
        if (family < 0 || family >= family_count)
            throw InvalidArgumentError("queue_families: family " + std::to_string(family) +
                                       " does not exist on device " + std::to_string(device.index) +
                                       " (valid: 0.." + std::to_string(family_count - 1) + ")");
        if (!hasCompute(device.queue_families[family].flags))
            throw InvalidArgumentError("queue_families: family " + std::to_string(family) +
                                       " of device " + std::to_string(device.index) +
                                       " has no compute capability");
    }
    if (families.empty())
        throw InvalidArgumentError("queue_families: at least one queue is needed per device");
}

std::vector<uint32_t> hardwareQueueIndices(const DeviceInfo& device,
                                           const std::vector<int>& families) {
    validateQueueFamilies(device, families);
    std::map<int, uint32_t> requested;
    std::vector<uint32_t> indices;
    for (int family : families) {
        const uint32_t available = std::max(1u, device.queue_families[family].queue_count);
        indices.push_back(requested[family]++ % available);
    }
    return indices;
}

}  // namespace vkdispatch
