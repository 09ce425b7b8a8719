#pragma once
// A compute pipeline built from SPIR-V on every device of a context, with its descriptor-set
// layout (set 0) and push-constant range.
//
// Thread safety: immutable after construction except the per-queue last-use values, which are
// atomic; safe to share (and to record from several command lists at once).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vkdispatch/descriptor_allocator.hpp"
#include "vkdispatch/handle.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class Context;
class Device;
class PipelineCache;

/// Descriptor kinds a binding may have, numbered as vkdispatch 0.1.0's binding type codes.
enum class BindingType : int {
    StorageBuffer = 1,
    UniformBuffer = 3,
    StorageImage = 4,
    Sampler = 5,
};

/// Whether `type` is one of the BindingType enumerators (a cast integer may be anything).
bool isBindingType(BindingType type) noexcept;
/// "storage buffer", "uniform buffer", "storage image", "sampler" (or "unknown binding type N").
std::string bindingTypeName(BindingType type);
/// SPIR-V words from raw bytes. Throws InvalidArgumentError (naming `name`) unless the size is a
/// non-zero multiple of 4 and the words start with the SPIR-V magic number.
std::vector<uint32_t> spirvFromBytes(const uint8_t* data, size_t size, const std::string& name);
/// Bytes a push-constant range of `size` bytes spans (Vulkan wants multiples of 4).
inline uint32_t pushConstantRangeSize(uint32_t size) noexcept { return (size + 3u) & ~3u; }

/// Values of a shader's specialization constants, all of one element size: constant_id i takes
/// bytes [i * element_size, (i + 1) * element_size) of `data` (Kompute's convention).
struct SpecializationConstants {
    std::vector<uint8_t> data;
    uint32_t element_size = 4;

    bool empty() const noexcept { return data.empty(); }
};

class ComputePlan {
public:
    /// Objects of one device.
    struct DeviceObjects {
        UniqueDescriptorSetLayout set_layout;
        UniquePipelineLayout layout;
        UniquePipeline pipeline;
        std::shared_ptr<DescriptorAllocator> descriptors;  // null when there are no bindings
    };

    /// Creates the pipeline on every device of `context` (which must outlive the plan). Throws
    /// InvalidArgumentError for bad SPIR-V words, unknown binding codes or a push-constant size
    /// over a device's maxPushConstantsSize; VulkanError when the driver rejects the pipeline.
    /// `cache` (optional, same context) speeds up creation and learns the new pipeline;
    /// `specialization` sets the shader's specialization constants (InvalidArgumentError when
    /// its element size is not 1, 2, 4 or 8 or its data is not a whole number of elements).
    ComputePlan(Context& context, const std::vector<uint32_t>& spirv,
                const std::vector<BindingType>& bindings, uint32_t push_constant_size,
                const std::string& name, PipelineCache* cache = nullptr,
                const SpecializationConstants& specialization = {});
    /// Destroys each device's objects once every queue that used them has finished (no block).
    ~ComputePlan();
    ComputePlan(const ComputePlan&) = delete;
    ComputePlan& operator=(const ComputePlan&) = delete;

    Context& context() const noexcept { return m_context; }
    const std::string& name() const noexcept { return m_name; }
    const std::vector<BindingType>& bindings() const noexcept { return m_bindings; }
    /// Bytes of push-constant data one dispatch of this plan consumes.
    uint32_t pushConstantSize() const noexcept { return m_push_constant_size; }

    /// The objects serving queue `queue_index` (those of the queue's device).
    const DeviceObjects& forQueue(int queue_index) const {
        return *m_devices[m_queue_device[queue_index]];
    }
    /// Records that submission `value` on queue `queue_index` uses the pipeline.
    void markUsed(int queue_index, uint64_t value) noexcept;

    /// Number of ComputePlan objects alive in the process (for leak tests).
    static int64_t liveCount() noexcept;

private:
    Context& m_context;
    std::string m_name;
    std::vector<BindingType> m_bindings;
    uint32_t m_push_constant_size;
    std::vector<std::shared_ptr<DeviceObjects>> m_devices;  // by position in context.devices()
    std::vector<int> m_queue_device;                        // queue index -> m_devices position
    std::vector<std::atomic<uint64_t>> m_last_use;          // by queue index
};

/// Throws InvalidArgumentError for what ComputePlan's constructor refuses (see there).
void checkPlanArguments(const Context& context, const std::vector<uint32_t>& spirv,
                        const std::vector<BindingType>& bindings, uint32_t push_constant_size,
                        const std::string& name, const SpecializationConstants& spec);
/// What ComputePlan builds on each device: the layouts, the descriptor allocator and the
/// pipeline of `spirv`, created with `flags` (VkPipelineCreateFlags) and `cache` (may be null).
ComputePlan::DeviceObjects createPipelineObjects(Device& device, const std::vector<uint32_t>& spirv,
                                                 const std::vector<BindingType>& bindings,
                                                 uint32_t push_constant_size,
                                                 const std::string& name, VkPipelineCache cache,
                                                 const SpecializationConstants& spec,
                                                 VkPipelineCreateFlags flags = 0);

}  // namespace vkdispatch
