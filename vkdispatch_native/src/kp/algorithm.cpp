#include "kompute/Algorithm.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <stdexcept>
#include <string>

#include "shader_features.hpp"
#include "shader_interface.hpp"
#include "runtime.hpp"
#include "spirv_check.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/errors.hpp"

namespace kp {

struct Algorithm::Pipeline {
    std::unique_ptr<vkdispatch::ComputePlan> plan;
    vkdispatch::UniqueDescriptorPool pool;  // one set, freed with the pool
    VkDescriptorSet set = VK_NULL_HANDLE;
};

Algorithm::Algorithm(std::shared_ptr<detail::Runtime> runtime,
                     const std::vector<std::shared_ptr<Memory>>& mem_objects,
                     const std::vector<uint32_t>& spirv, const Workgroup& workgroup,
                     std::vector<uint8_t> specialization, uint32_t specialization_size,
                     std::vector<uint8_t> push)
    : m_runtime(std::move(runtime)) {
    build(mem_objects, spirv, workgroup, std::move(specialization), specialization_size,
          std::move(push));
}

Algorithm::~Algorithm() = default;

namespace {

std::atomic<uint64_t> g_builds{0};  // buildId() values, unique in the process

const char* const kAxes[] = {"x", "y", "z"};

// Push-constant bytes rounded up to whole 4-byte words: Vulkan's ranges and pushes must be
// multiples of 4, and three float16 constants are 6 bytes.
uint32_t pushRange(uint32_t bytes) { return (bytes + 3u) & ~3u; }

std::string countsText(const Workgroup& counts) {
    return "(" + std::to_string(counts[0]) + ", " + std::to_string(counts[1]) + ", " +
           std::to_string(counts[2]) + ")";
}

// A count above the limit is invalid usage that lavapipe runs anyway (for minutes, at 70000^3).
void checkWithinLimit(const Workgroup& counts, const std::array<uint32_t, 3>& limit,
                      bool x_from_size) {
    for (int axis = 0; axis < 3; ++axis) {
        if (counts[axis] <= limit[axis]) continue;
        throw vkdispatch::InvalidArgumentError(
            std::string("workgroup: ") + kAxes[axis] + " = " + std::to_string(counts[axis]) +
            (axis == 0 && x_from_size ? " (one workgroup per element of the first memory "
                                        "object, as x = 0 asks)"
                                      : "") +
            " exceeds the device's maxComputeWorkGroupCount[" + std::to_string(axis) + "] = " +
            std::to_string(limit[axis]) + "; counts " + countsText(counts) + ", limits " +
            countsText(limit));
    }
}

void checkMemObjects(const std::vector<std::shared_ptr<Memory>>& mem_objects) {
    for (const auto& memory : mem_objects)
        if (!memory || !memory->isInit())
            throw std::runtime_error("Kompute Algorithm was given a destroyed memory object");
}

const char* kindName(Memory::Type type) {
    return type == Memory::Type::eImage ? "an image" : "a tensor";
}

// What binding i of the shader needs from memory object i: made on this device, of the kind
// the shader declares there (a tensor bound as an image crashed the driver, an image bound as
// a buffer wrote nothing), and within what a shader may bind of one buffer.
void checkBindings(const std::vector<std::shared_ptr<Memory>>& mem_objects,
                   const std::vector<uint32_t>& spirv,
                   const std::shared_ptr<detail::Runtime>& runtime) {
    const auto used = detail::usedBindings(spirv, 0);
    const uint64_t range = runtime->device().info().max_storage_buffer_range;
    for (size_t i = 0; i < mem_objects.size(); ++i) {
        const Memory& memory = *mem_objects[i];
        const std::string which = "tensors: memory object " + std::to_string(i);
        if (!memory.belongsTo(runtime))
            throw vkdispatch::InvalidArgumentError(
                which + " was made on another device than the algorithm's");
        const auto binding = used.find(static_cast<uint32_t>(i));
        const bool image = memory.type() == Memory::Type::eImage;
        if (binding != used.end() && image != (binding->second == detail::BindingKind::Image))
            throw vkdispatch::InvalidArgumentError(
                which + " is " + kindName(memory.type()) + ", but the shader declares binding " +
                std::to_string(i) + " as " + (image ? "a buffer" : "an image"));
        if (!image && memory.memorySize() > range)
            throw vkdispatch::InvalidArgumentError(
                which + " holds " + std::to_string(memory.memorySize()) +
                " bytes, more than the device's maxStorageBufferRange of " +
                std::to_string(range) + " bytes that a shader can bind");
    }
    for (const auto& [binding, kind] : used)
        if (binding >= mem_objects.size())
            throw vkdispatch::InvalidArgumentError(
                "tensors: the shader uses binding " + std::to_string(binding) +
                " of descriptor set 0, but " + std::to_string(mem_objects.size()) +
                " tensors or images were given (they take bindings 0 to " +
                std::to_string(mem_objects.size() - 1) + " in order)");
}

}  // namespace

bool Algorithm::isInit() const noexcept { return m_pipeline != nullptr; }

void Algorithm::destroy() {
    releasePipeline();
    // Dropping the device too lets a destroyed Manager's device go while Python (or a user)
    // still holds this object.
    m_runtime.reset();
}

void Algorithm::releasePipeline() {
    // A submitted sequence may still run the pipeline and read its descriptor set.
    if (m_pipeline && m_runtime) m_runtime->context->waitIdle(-1);
    m_pipeline.reset();
    m_build_id = 0;
}

Workgroup Algorithm::checkedWorkgroup(const Workgroup& workgroup,
                                      const std::vector<std::shared_ptr<Memory>>& mem_objects,
                                      uint32_t min_size) const {
    const bool x_from_size = workgroup[0] == 0;
    const Workgroup counts =
        x_from_size ? Workgroup{mem_objects.empty() ? min_size : mem_objects.front()->size(), 1, 1}
                    : Workgroup{workgroup[0], workgroup[1] == 0 ? 1 : workgroup[1],
                                workgroup[2] == 0 ? 1 : workgroup[2]};
    if (m_runtime) checkWithinLimit(counts, m_runtime->context->maxWorkgroupCount(), x_from_size);
    return counts;
}

void Algorithm::setWorkgroup(const Workgroup& workgroup, uint32_t min_size) {
    m_workgroup = checkedWorkgroup(workgroup, m_mem_objects, min_size);
}

void Algorithm::setPushConstants(const void* data, uint32_t count, uint32_t element_size) {
    const size_t bytes = size_t(count) * element_size;
    if (bytes != m_push.size())
        throw std::runtime_error("Kompute Algorithm push constant total memory size provided is " +
                                 std::to_string(bytes) + " but expected " +
                                 std::to_string(m_push.size()) + " bytes");
    if (bytes > 0) std::memcpy(m_push.data(), data, bytes);
}

std::vector<std::shared_ptr<Tensor>> Algorithm::getTensors() const {
    std::vector<std::shared_ptr<Tensor>> tensors;
    for (size_t i = 0; i < m_mem_objects.size(); ++i) {
        auto tensor = std::dynamic_pointer_cast<Tensor>(m_mem_objects[i]);
        if (!tensor)
            throw std::runtime_error("Kompute Algorithm getTensors: memory object " +
                                     std::to_string(i) + " of " +
                                     std::to_string(m_mem_objects.size()) +
                                     " is an image, not a tensor; use getMemObjects()");
        tensors.push_back(std::move(tensor));
    }
    return tensors;
}

void Algorithm::build(const std::vector<std::shared_ptr<Memory>>& mem_objects,
                      const std::vector<uint32_t>& spirv, const Workgroup& workgroup,
                      std::vector<uint8_t> specialization, uint32_t specialization_size,
                      std::vector<uint8_t> push) {
    // Checked and made before the old pipeline goes: an error leaves the algorithm as it was.
    const bool builds = !mem_objects.empty() && !spirv.empty();  // else Kompute's uninitialised
    if (builds && !m_runtime)
        throw std::runtime_error("Kompute Algorithm device is null: it was destroyed");
    checkMemObjects(mem_objects);
    const Workgroup counts = checkedWorkgroup(workgroup, mem_objects, 1);
    if (builds) {
        const auto& info = m_runtime->device().info();
        detail::checkSpirv(spirv, info.version_major > 1 ? UINT32_MAX : info.version_minor);
        detail::checkShaderFeatures(spirv, info);
        checkBindings(mem_objects, spirv, m_runtime);
    }
    // Fewer push-constant bytes than the shader declares are refused when a dispatch is
    // recorded (checkPushConstants), not here: Kompute makes such an algorithm, and its
    // programs may replace the values before they dispatch. The layout covers the whole block.
    const uint32_t declared =
        builds ? detail::declaredPushConstantBytes(spirv).value_or(0) : 0;
    const auto push_range = pushRange(std::max(static_cast<uint32_t>(push.size()), declared));
    auto pipeline = builds ? createPipeline(mem_objects, spirv, specialization,
                                            specialization_size, push_range)
                           : nullptr;
    releasePipeline();
    m_mem_objects = mem_objects;
    m_specialization = std::move(specialization);
    m_push = std::move(push);
    m_declared_push = declared;
    m_workgroup = counts;
    m_pipeline = std::move(pipeline);
    if (m_pipeline) m_build_id = ++g_builds;
}

std::unique_ptr<Algorithm::Pipeline> Algorithm::createPipeline(
    const std::vector<std::shared_ptr<Memory>>& mem_objects, const std::vector<uint32_t>& spirv,
    const std::vector<uint8_t>& specialization, uint32_t specialization_size,
    uint32_t push_size) const {
    std::vector<vkdispatch::BindingType> bindings;
    uint32_t images = 0;
    for (const auto& memory : mem_objects) {
        const bool image = memory->getDescriptorType() == vk::DescriptorType::eStorageImage;
        images += image;
        bindings.push_back(image ? vkdispatch::BindingType::StorageImage
                                 : vkdispatch::BindingType::StorageBuffer);
    }
    auto pipeline = std::make_unique<Pipeline>();
    vkdispatch::SpecializationConstants spec{specialization, specialization_size};
    pipeline->plan = std::make_unique<vkdispatch::ComputePlan>(
        *m_runtime->context, spirv, bindings, push_size, "kp::Algorithm", nullptr, spec);

    const VkDevice device = m_runtime->handle();
    std::vector<VkDescriptorPoolSize> sizes;
    const uint32_t buffers = static_cast<uint32_t>(bindings.size()) - images;
    if (buffers > 0) sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffers});
    if (images > 0) sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, images});
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = 1;
    pool_info.poolSizeCount = static_cast<uint32_t>(sizes.size());
    pool_info.pPoolSizes = sizes.data();
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorPool(device, &pool_info, nullptr, &pool),
             "creating the descriptor pool of a kp::Algorithm");
    pipeline->pool = vkdispatch::UniqueDescriptorPool(device, pool);
    const VkDescriptorSetLayout layout = pipeline->plan->forQueue(0).set_layout.get();
    VkDescriptorSetAllocateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    set_info.descriptorPool = pool;
    set_info.descriptorSetCount = 1;
    set_info.pSetLayouts = &layout;
    VK_CHECK(vkAllocateDescriptorSets(device, &set_info, &pipeline->set),
             "allocating the descriptor set of a kp::Algorithm");
    for (size_t i = 0; i < mem_objects.size(); ++i)
        mem_objects[i]->writeDescriptor(device, pipeline->set, static_cast<uint32_t>(i));
    return pipeline;
}

namespace {
std::runtime_error notBuilt() {
    return std::runtime_error("Kompute Algorithm is not initialised (no memory objects or "
                              "SPIR-V, or destroyed): it cannot be recorded");
}
}  // namespace

void Algorithm::checkPushConstants() const {
    if (m_push.size() < m_declared_push)
        throw vkdispatch::InvalidArgumentError(
            "push_consts: the shader declares " + std::to_string(m_declared_push) +
            " bytes of push constants, got " + std::to_string(m_push.size()) +
            " (the shader would read bytes nobody set)");
}

void Algorithm::recordBindCore(const vk::CommandBuffer& cb) {
    if (!m_pipeline) throw notBuilt();
    checkPushConstants();
    const auto& objects = m_pipeline->plan->forQueue(0);
    cb.bindPipeline(vk::PipelineBindPoint::eCompute, vk::Pipeline(objects.pipeline.get()));
    cb.bindDescriptorSets(vk::PipelineBindPoint::eCompute,
                          vk::PipelineLayout(objects.layout.get()), 0,
                          vk::DescriptorSet(m_pipeline->set), nullptr);
}

void Algorithm::recordBindPush(const vk::CommandBuffer& cb) {
    if (!m_pipeline) throw notBuilt();
    if (m_push.empty()) return;
    // Vulkan pushes whole 4-byte words; half-precision constants may end mid-word.
    std::vector<uint8_t> words(m_push);
    words.resize(pushRange(static_cast<uint32_t>(words.size())), 0);
    cb.pushConstants(vk::PipelineLayout(m_pipeline->plan->forQueue(0).layout.get()),
                     vk::ShaderStageFlagBits::eCompute, 0, static_cast<uint32_t>(words.size()),
                     words.data());
}

void Algorithm::recordDispatch(const vk::CommandBuffer& cb) {
    if (!m_pipeline) throw notBuilt();
    cb.dispatch(m_workgroup[0], m_workgroup[1], m_workgroup[2]);
}

}  // namespace kp
