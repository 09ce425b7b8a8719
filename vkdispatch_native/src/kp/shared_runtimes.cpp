#include "shared_runtimes.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace kp::detail {

namespace {

bool debugRequested() {
    const char* value = std::getenv("VKDISPATCH_DEBUG");
    return value != nullptr && *value != '\0' && std::string(value) != "0";
}

// One family index per queue to create: every compute family, up to kQueuesPerFamily each.
std::vector<int> computeQueues(const vkdispatch::DeviceInfo& info) {
    std::vector<int> queues;
    for (size_t f = 0; f < info.queue_families.size(); ++f) {
        const auto& family = info.queue_families[f];
        if (family.flags & VK_QUEUE_COMPUTE_BIT)
            queues.insert(queues.end(), std::min(family.queue_count, kQueuesPerFamily),
                          static_cast<int>(f));
    }
    return queues;
}

std::shared_ptr<Runtime> makeRuntime(uint32_t physical_device_index) {
    auto runtime = std::make_shared<Runtime>();
    runtime->instance = std::make_unique<vkdispatch::Instance>(
        vkdispatch::InstanceOptions{debugRequested()});
    const auto& devices = runtime->instance->devices();
    if (devices.empty())
        throw std::runtime_error("Failed to find GPUs with Vulkan support! Maybe you haven't "
                                 "installed vulkan drivers?");
    if (physical_device_index >= devices.size())
        throw std::runtime_error("There is no such physical index or device, please use your "
                                 "existing device");
    runtime->context = std::make_unique<vkdispatch::Context>(
        *runtime->instance, std::vector<int>{static_cast<int>(physical_device_index)},
        std::vector<std::vector<int>>{computeQueues(devices[physical_device_index])});
    return runtime;
}

}  // namespace

std::shared_ptr<Runtime> sharedRuntime(uint32_t physical_device_index) {
    static std::mutex mutex;
    static std::map<uint32_t, std::weak_ptr<Runtime>> runtimes;
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = runtimes.find(physical_device_index);
    if (found != runtimes.end())
        if (auto live = found->second.lock()) return live;
    auto made = makeRuntime(physical_device_index);
    runtimes[physical_device_index] = made;
    return made;
}

}  // namespace kp::detail
