#include "kompute/Manager.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "queue_mapping.hpp"
#include "runtime.hpp"
#include "shared_runtimes.hpp"
#include "vkdispatch/log.hpp"

// vulkan.hpp's default dispatcher lives in this file.
VULKAN_HPP_DEFAULT_DISPATCH_LOADER_DYNAMIC_STORAGE

namespace kp {

namespace detail {
void loadVulkanHpp(VkInstance instance) {
    VULKAN_HPP_DEFAULT_DISPATCHER.init(vkGetInstanceProcAddr);
    VULKAN_HPP_DEFAULT_DISPATCHER.init(vk::Instance(instance));
}
}  // namespace detail

namespace {

std::vector<int> queueFamilies(const vkdispatch::DeviceInfo& info,
                               const std::vector<uint32_t>& requested) {
    const auto& families = info.queue_families;
    if (requested.empty()) {
        for (size_t f = 0; f < families.size(); ++f)
            if (families[f].flags & VK_QUEUE_COMPUTE_BIT) return {static_cast<int>(f)};
        throw std::runtime_error("Compute queue is not supported");
    }
    std::vector<int> out;
    for (uint32_t family : requested) {
        if (family >= families.size())
            throw std::runtime_error("Given family queue index does not exists. Index given: " +
                                     std::to_string(family));
        if (!(families[family].flags & VK_QUEUE_COMPUTE_BIT))
            throw std::runtime_error(
                "Given family queue index does not support compute operations. Index given: " +
                std::to_string(family));
        out.push_back(static_cast<int>(family));
    }
    return out;
}

// The context's queue behind each of the Manager's queues (see queue_mapping.hpp).
std::vector<int> contextQueues(const vkdispatch::Context& context,
                               const std::vector<int>& families) {
    std::vector<uint32_t> family_of_queue;
    for (int q = 0; q < context.queueCount(); ++q)
        family_of_queue.push_back(context.queue(q).family());
    return detail::mapQueues(family_of_queue, families);
}

}  // namespace

Manager::Manager() : Manager(0) {}

Manager::Manager(uint32_t physical_device_index, const std::vector<uint32_t>& family_queue_indices,
                 const std::vector<std::string>& desired_extensions)
    : m_runtime(detail::sharedRuntime(physical_device_index)) {
    m_queues = contextQueues(*m_runtime->context,
                             queueFamilies(m_runtime->device().info(), family_queue_indices));
    for (const auto& name : desired_extensions)
        vkdispatch::log(vkdispatch::LogLevel::Info,
                        "kp::Manager: extension " + name +
                            " is not enabled on request; the device has the ones vkdispatch uses");
    detail::loadVulkanHpp(m_runtime->instance->handle());
}

Manager::Manager(std::shared_ptr<vk::Instance> instance,
                 std::shared_ptr<vk::PhysicalDevice> physical_device,
                 std::shared_ptr<vk::Device> device)
    : m_manage_resources(false) {
    if (!instance || !physical_device || !device)
        throw std::runtime_error("Kompute Manager was given a null instance, physical device or "
                                 "device");
    auto runtime = std::make_shared<detail::Runtime>();
    runtime->instance = std::make_unique<vkdispatch::Instance>(VkInstance(*instance));
    const auto& devices = runtime->instance->devices();
    int index = 0;
    while (index < static_cast<int>(devices.size()) &&
           runtime->instance->physicalDevice(index) != VkPhysicalDevice(*physical_device))
        ++index;
    if (index == static_cast<int>(devices.size()))
        throw std::runtime_error("Kompute Manager was given a physical device that is not one of "
                                 "the instance's");
    const std::vector<int> families = queueFamilies(devices[index], {});
    runtime->context = std::make_unique<vkdispatch::Context>(*runtime->instance, index,
                                                             VkDevice(*device), families);
    m_queues = contextQueues(*runtime->context, families);
    detail::loadVulkanHpp(runtime->instance->handle());
    m_runtime = std::move(runtime);
}

Manager::~Manager() { destroy(); }

std::shared_ptr<detail::Runtime> Manager::runtime(const char* object) const {
    if (!m_runtime)
        throw std::runtime_error(std::string("Kompute ") + object +
                                 " device is null: its Manager was destroyed");
    return m_runtime;
}

std::shared_ptr<Sequence> Manager::sequence(uint32_t queue_index, uint32_t total_timestamps) {
    auto runtime = this->runtime("Sequence");
    if (queue_index >= m_queues.size())
        throw std::runtime_error("Kompute Sequence queue index " + std::to_string(queue_index) +
                                 " does not exist: the manager has " +
                                 std::to_string(m_queues.size()) + " queue(s)");
    auto made = std::make_shared<Sequence>(std::move(runtime), m_queues[queue_index],
                                           total_timestamps);
    if (m_manage_resources) m_sequences.push_back(made);
    return made;
}

std::shared_ptr<Tensor> Manager::tensor(const void* data, uint32_t count, uint32_t element_size,
                                        const Memory::DataTypes& data_type,
                                        Memory::MemoryTypes type) {
    return track(
        std::make_shared<Tensor>(runtime("Tensor"), data, count, element_size, data_type, type));
}

std::shared_ptr<Image> Manager::image(const void* data, size_t data_count, uint32_t width,
                                      uint32_t height, uint32_t num_channels,
                                      const Memory::DataTypes& data_type, vk::ImageTiling tiling,
                                      Memory::MemoryTypes type) {
    return track(std::make_shared<Image>(runtime("Image"), data, data_count, width, height,
                                         num_channels, data_type, tiling, type));
}

void Manager::destroy() {
    if (!m_runtime) return;
    for (auto& weak : m_sequences)
        if (auto sequence = weak.lock()) sequence->destroy();
    for (auto& weak : m_algorithms)
        if (auto algorithm = weak.lock()) algorithm->destroy();
    for (auto& weak : m_memories)
        if (auto memory = weak.lock()) memory->destroy();
    m_sequences.clear();
    m_algorithms.clear();
    m_memories.clear();
    m_runtime.reset();
}

void Manager::clear() {
    auto prune = [](auto& list) {
        list.erase(std::remove_if(list.begin(), list.end(),
                                  [](const auto& weak) { return weak.expired(); }),
                   list.end());
    };
    prune(m_sequences);
    prune(m_algorithms);
    prune(m_memories);
}

vk::PhysicalDeviceProperties Manager::getDeviceProperties() const {
    return vk::PhysicalDevice(runtime("Manager")->device().physical()).getProperties();
}

std::vector<vk::PhysicalDevice> Manager::listDevices() const {
    return vk::Instance(runtime("Manager")->instance->handle()).enumeratePhysicalDevices();
}

std::shared_ptr<vk::Instance> Manager::getVkInstance() const {
    // The handle, held with the runtime that owns the instance.
    struct Held {
        std::shared_ptr<detail::Runtime> runtime;
        vk::Instance instance;
    };
    auto runtime = this->runtime("Manager");
    const vk::Instance instance(runtime->instance->handle());
    auto held = std::make_shared<Held>(Held{std::move(runtime), instance});
    return std::shared_ptr<vk::Instance>(held, &held->instance);
}

}  // namespace kp
