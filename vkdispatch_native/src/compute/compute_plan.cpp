#include "vkdispatch/compute_plan.hpp"

#include <cstring>
#include <map>

#include "vkdispatch/atomic_max.hpp"

#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/pipeline_cache.hpp"

namespace vkdispatch {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;
std::atomic<int64_t> g_live_plans{0};

VkDescriptorType descriptorType(BindingType type) {
    switch (type) {
        case BindingType::StorageBuffer:
            return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        case BindingType::UniformBuffer:
            return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        case BindingType::StorageImage:
            return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
        case BindingType::Sampler:
            return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    }
    return VK_DESCRIPTOR_TYPE_MAX_ENUM;  // unreachable: bindings are checked first
}

void checkSpecialization(const SpecializationConstants& spec, const std::string& name) {
    const uint32_t size = spec.element_size;
    if (size != 1 && size != 2 && size != 4 && size != 8)
        throw InvalidArgumentError("specialization: element size " + std::to_string(size) +
                                   " of '" + name + "' is not 1, 2, 4 or 8 bytes");
    if (spec.data.size() % size != 0)
        throw InvalidArgumentError("specialization: " + std::to_string(spec.data.size()) +
                                   " bytes of '" + name + "' are not a whole number of " +
                                   std::to_string(size) + "-byte constants");
}

void checkArguments(const Context& context, const std::vector<uint32_t>& spirv,
                    const std::vector<BindingType>& bindings, uint32_t push_constant_size,
                    const std::string& name) {
    if (spirv.empty() || spirv[0] != kSpirvMagic)
        throw InvalidArgumentError("spirv: '" + name + "' is not SPIR-V (" +
                                   (spirv.empty() ? std::string("no words")
                                                  : "bad magic number") + ")");
    for (size_t j = 0; j < bindings.size(); ++j) {
        if (!isBindingType(bindings[j]))
            throw InvalidArgumentError(
                "bindings[" + std::to_string(j) + "]: unknown binding type code " +
                std::to_string(static_cast<int>(bindings[j])) + " in '" + name +
                "' (valid: 1 storage buffer, 3 uniform buffer, 4 storage image, 5 sampler)");
    }
    const uint32_t range = pushConstantRangeSize(push_constant_size);
    for (const auto& device : context.devices()) {
        const uint32_t limit = device->info().max_push_constant_size;
        if (range > limit)
            throw InvalidArgumentError("push_constant_size: " + std::to_string(push_constant_size) +
                                       " bytes of push constants for '" + name +
                                       "' exceed the limit of device '" +
                                       device->info().device_name + "' (maxPushConstantsSize " +
                                       std::to_string(limit) + ")");
    }
}

}  // namespace

void checkPlanArguments(const Context& context, const std::vector<uint32_t>& spirv,
                        const std::vector<BindingType>& bindings, uint32_t push_constant_size,
                        const std::string& name, const SpecializationConstants& spec) {
    checkArguments(context, spirv, bindings, push_constant_size, name);
    checkSpecialization(spec, name);
}

ComputePlan::DeviceObjects createPipelineObjects(Device& device, const std::vector<uint32_t>& spirv,
                                                 const std::vector<BindingType>& bindings,
                                                 uint32_t push_constant_size,
                                                 const std::string& name, VkPipelineCache cache,
                                                 const SpecializationConstants& spec,
                                                 VkPipelineCreateFlags flags) {
    const VkDevice vk = device.handle();
    ComputePlan::DeviceObjects out;

    std::vector<VkDescriptorSetLayoutBinding> layout_bindings(bindings.size());
    for (size_t j = 0; j < bindings.size(); ++j) {
        layout_bindings[j].binding = static_cast<uint32_t>(j);
        layout_bindings[j].descriptorType = descriptorType(bindings[j]);
        layout_bindings[j].descriptorCount = 1;
        layout_bindings[j].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.bindingCount = static_cast<uint32_t>(layout_bindings.size());
    set_info.pBindings = layout_bindings.data();
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorSetLayout(vk, &set_info, nullptr, &set_layout),
             "creating the descriptor-set layout of '" + name + "'");
    out.set_layout = UniqueDescriptorSetLayout(vk, set_layout);
    if (!bindings.empty()) {
        std::map<VkDescriptorType, uint32_t> counts;
        for (BindingType type : bindings) ++counts[descriptorType(type)];
        std::vector<VkDescriptorPoolSize> per_set;
        for (const auto& [type, count] : counts) per_set.push_back({type, count});
        out.descriptors = std::make_shared<DescriptorAllocator>(
            device.descriptorPools(), set_layout, std::move(per_set), "'" + name + "'");
    }

    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0,
                              pushConstantRangeSize(push_constant_size)};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout;
    layout_info.pushConstantRangeCount = push_constant_size > 0 ? 1 : 0;
    layout_info.pPushConstantRanges = push_constant_size > 0 ? &range : nullptr;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreatePipelineLayout(vk, &layout_info, nullptr, &layout),
             "creating the pipeline layout of '" + name + "'");
    out.layout = UniquePipelineLayout(vk, layout);

    VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    module_info.codeSize = spirv.size() * sizeof(uint32_t);
    module_info.pCode = spirv.data();
    VkShaderModule module = VK_NULL_HANDLE;
    VK_CHECK(vkCreateShaderModule(vk, &module_info, nullptr, &module),
             "creating the shader module of '" + name + "'");
    const UniqueShaderModule module_owner(vk, module);  // only needed until the pipeline exists

    VkComputePipelineCreateInfo pipeline_info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipeline_info.flags = flags;
    pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline_info.stage.module = module;
    pipeline_info.stage.pName = "main";
    std::vector<VkSpecializationMapEntry> entries(spec.data.size() / spec.element_size);
    for (size_t id = 0; id < entries.size(); ++id)
        entries[id] = {static_cast<uint32_t>(id), static_cast<uint32_t>(id * spec.element_size),
                       spec.element_size};
    VkSpecializationInfo spec_info{static_cast<uint32_t>(entries.size()), entries.data(),
                                   spec.data.size(), spec.data.data()};
    if (!spec.empty()) pipeline_info.stage.pSpecializationInfo = &spec_info;
    pipeline_info.layout = layout;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VK_CHECK(vkCreateComputePipelines(vk, cache, 1, &pipeline_info, nullptr, &pipeline),
             "creating the compute pipeline of '" + name + "' on '" + device.info().device_name +
                 "'");
    out.pipeline = UniquePipeline(vk, pipeline);
    return out;
}

bool isBindingType(BindingType type) noexcept {
    return type == BindingType::StorageBuffer || type == BindingType::UniformBuffer ||
           type == BindingType::StorageImage || type == BindingType::Sampler;
}

std::string bindingTypeName(BindingType type) {
    switch (type) {
        case BindingType::StorageBuffer:
            return "storage buffer";
        case BindingType::UniformBuffer:
            return "uniform buffer";
        case BindingType::StorageImage:
            return "storage image";
        case BindingType::Sampler:
            return "sampler";
    }
    return "unknown binding type " + std::to_string(static_cast<int>(type));
}

std::vector<uint32_t> spirvFromBytes(const uint8_t* data, size_t size, const std::string& name) {
    if (size == 0 || size % 4 != 0)
        throw InvalidArgumentError("spirv: '" + name + "' has " + std::to_string(size) +
                                   " bytes; SPIR-V is a non-empty sequence of 4-byte words");
    std::vector<uint32_t> words(size / 4);
    std::memcpy(words.data(), data, size);
    if (words[0] != kSpirvMagic)
        throw InvalidArgumentError("spirv: '" + name +
                                   "' does not start with the SPIR-V magic number 0x07230203");
    return words;
}

ComputePlan::ComputePlan(Context& context, const std::vector<uint32_t>& spirv,
                         const std::vector<BindingType>& bindings, uint32_t push_constant_size,
                         const std::string& name, PipelineCache* cache,
                         const SpecializationConstants& specialization)
    : m_context(context),
      m_name(name),
      m_bindings(bindings),
      m_push_constant_size(push_constant_size),
      m_last_use(context.queueCount()) {
    checkPlanArguments(context, spirv, bindings, push_constant_size, name, specialization);
    if (cache != nullptr) cache->checkServes(context, "'" + name + "'");
    const auto& devices = context.devices();
    for (size_t i = 0; i < devices.size(); ++i) {
        const VkPipelineCache vk_cache =
            cache != nullptr ? cache->handle(static_cast<int>(i)) : VK_NULL_HANDLE;
        m_devices.push_back(std::make_shared<DeviceObjects>(
            createPipelineObjects(*devices[i], spirv, bindings, push_constant_size, name,
                                  vk_cache, specialization)));
    }
    for (int q = 0; q < context.queueCount(); ++q)
        m_queue_device.push_back(context.deviceIndexOfQueue(q));
    ++g_live_plans;
}

ComputePlan::~ComputePlan() {
    // Every queue of a device that ran the pipeline holds a reference until its last use has
    // finished; the last reference to go destroys the device's objects.
    // If a queue cannot be asked (device lost), the reference simply drops here.
    for (int q = 0; q < static_cast<int>(m_queue_device.size()); ++q) {
        const uint64_t last = m_last_use[q].load();
        if (last == 0) continue;
        std::shared_ptr<DeviceObjects> objects = m_devices[m_queue_device[q]];
        try {
            m_context.queue(q).retire(last, [objects]() mutable { objects.reset(); });
        } catch (...) {
        }
    }
    --g_live_plans;
}

void ComputePlan::markUsed(int queue_index, uint64_t value) noexcept {
    detail::raiseTo(m_last_use[queue_index], value);
}

int64_t ComputePlan::liveCount() noexcept { return g_live_plans.load(); }

}  // namespace vkdispatch
