#pragma once
// kp::Algorithm: SPIR-V bound to memory objects (binding i = the i-th object, set 0), with
// workgroup counts, specialization constants (constant_id i = element i) and push constants
// (one range at offset 0), built on a vkdispatch ComputePlan. Made by Manager::algorithm.
//
// Errors: vkdispatch::InvalidArgumentError (a std::runtime_error) for SPIR-V that is not a valid
// module for the device's Vulkan version (checked before Vulkan sees it: drivers crash on
// malformed modules), for SPIR-V whose capabilities need device features the device lacks
// (float16_t arithmetic without shaderFloat16, float16_t buffers without
// storageBuffer16BitAccess, ...; the message names each) and for workgroup counts above the
// device's maxComputeWorkGroupCount.
//
// Thread safety: none; one thread uses an algorithm at a time.
#include <cstring>
#include <memory>
#include <vector>

#include "kompute/Memory.hpp"
#include "kompute/Tensor.hpp"
#include "kompute/TensorList.hpp"

namespace kp {

class Algorithm {
public:
    /// Builds the pipeline unless `mem_objects` or `spirv` is empty (then isInit() is false).
    template <typename S = float, typename P = float>
    Algorithm(std::shared_ptr<detail::Runtime> runtime,
              const std::vector<std::shared_ptr<Memory>>& mem_objects = {},
              const std::vector<uint32_t>& spirv = {}, const Workgroup& workgroup = {},
              const std::vector<S>& specialization_constants = {},
              const std::vector<P>& push_constants = {})
        : Algorithm(std::move(runtime), mem_objects, spirv, workgroup,
                    bytesOf(specialization_constants), sizeof(S), bytesOf(push_constants)) {}
    ~Algorithm();
    Algorithm(const Algorithm&) = delete;
    Algorithm& operator=(const Algorithm&) = delete;

    /// Replaces everything (an error leaves the algorithm as it was: the new pipeline is made
    /// first). The previous pipeline is destroyed once the device finished the work submitted
    /// so far; sequences that recorded a dispatch of it refuse to run that recording.
    template <typename S = float, typename P = float>
    void rebuild(const std::vector<std::shared_ptr<Memory>>& mem_objects,
                 const std::vector<uint32_t>& spirv, const Workgroup& workgroup = {},
                 const std::vector<S>& specialization_constants = {},
                 const std::vector<P>& push_constants = {}) {
        build(mem_objects, spirv, workgroup, bytesOf(specialization_constants), sizeof(S),
              bytesOf(push_constants));
    }
    /// rebuild() over Kompute 0.9's list of tensors (see TensorList.hpp).
    template <typename S = float, typename P = float, typename List, IfTypedList<List> = 0>
    void rebuild(const List& tensors, const std::vector<uint32_t>& spirv,
                 const Workgroup& workgroup = {}, const std::vector<S>& specialization_constants = {},
                 const std::vector<P>& push_constants = {}) {
        rebuild<S, P>(memoryList(tensors), spirv, workgroup, specialization_constants,
                      push_constants);
    }

    bool isInit() const noexcept;
    /// Whether it was made on the device of `runtime`, by any of its Managers (false after
    /// destroy()).
    bool belongsTo(const std::shared_ptr<detail::Runtime>& runtime) const noexcept {
        return m_runtime != nullptr && m_runtime == runtime;
    }
    /// Workgroup counts: x == 0 means one per element of the first memory object (`min_size`
    /// without objects); a 0 in y or z means 1. Each count must be at most the device's
    /// maxComputeWorkGroupCount for its axis (InvalidArgumentError, naming both, otherwise).
    void setWorkgroup(const Workgroup& workgroup, uint32_t min_size = 1);
    const Workgroup& getWorkgroup() const noexcept { return m_workgroup; }

    /// Replaces the push constants; their total bytes must equal those the pipeline was built
    /// with (std::runtime_error otherwise).
    void setPushConstants(const void* data, uint32_t count, uint32_t element_size);
    template <typename T>
    void setPushConstants(const std::vector<T>& values) {
        setPushConstants(values.data(), static_cast<uint32_t>(values.size()), sizeof(T));
    }
    template <typename T>
    std::vector<T> getPushConstants() const { return valuesOf<T>(m_push); }
    template <typename T>
    std::vector<T> getSpecializationConstants() const { return valuesOf<T>(m_specialization); }
    const std::vector<std::shared_ptr<Memory>>& getMemObjects() const noexcept {
        return m_mem_objects;
    }
    /// Kompute 0.9's name: the memory objects as tensors. Throws std::runtime_error naming the
    /// first one that is an image (getMemObjects() returns those too).
    std::vector<std::shared_ptr<Tensor>> getTensors() const;

    /// Throws vkdispatch::InvalidArgumentError naming push_consts when the push constants are
    /// fewer bytes than the shader's push-constant block (it would read bytes nobody set).
    /// Kompute makes such an algorithm, so the check waits until a dispatch is recorded.
    void checkPushConstants() const;
    /// Binds the pipeline and its descriptor set (checkPushConstants() first).
    void recordBindCore(const vk::CommandBuffer& cb);
    /// Pushes the current push constants (nothing when there are none).
    void recordBindPush(const vk::CommandBuffer& cb);
    void recordDispatch(const vk::CommandBuffer& cb);
    /// Identifies the current pipeline: a new value at every build, 0 when there is none (not
    /// built, or destroyed). Sequences compare it to refuse commands of a replaced pipeline.
    uint64_t buildId() const noexcept { return m_build_id; }
    /// Frees the pipeline once the device finished the work submitted so far (sequences that
    /// recorded a dispatch of it then refuse to run that recording); a second call does nothing.
    void destroy();

private:
    struct Pipeline;

    Algorithm(std::shared_ptr<detail::Runtime> runtime,
              const std::vector<std::shared_ptr<Memory>>& mem_objects,
              const std::vector<uint32_t>& spirv, const Workgroup& workgroup,
              std::vector<uint8_t> specialization, uint32_t specialization_size,
              std::vector<uint8_t> push);

    template <typename T>
    static std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
        std::vector<uint8_t> out(values.size() * sizeof(T));
        if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
        return out;
    }
    template <typename T>
    static std::vector<T> valuesOf(const std::vector<uint8_t>& bytes) {
        std::vector<T> out(bytes.size() / sizeof(T));
        if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
        return out;
    }
    void build(const std::vector<std::shared_ptr<Memory>>& mem_objects,
               const std::vector<uint32_t>& spirv, const Workgroup& workgroup,
               std::vector<uint8_t> specialization, uint32_t specialization_size,
               std::vector<uint8_t> push);
    /// The counts setWorkgroup() gives for `workgroup` over `mem_objects`, checked.
    Workgroup checkedWorkgroup(const Workgroup& workgroup,
                               const std::vector<std::shared_ptr<Memory>>& mem_objects,
                               uint32_t min_size) const;
    std::unique_ptr<Pipeline> createPipeline(
        const std::vector<std::shared_ptr<Memory>>& mem_objects,
        const std::vector<uint32_t>& spirv, const std::vector<uint8_t>& specialization,
        uint32_t specialization_size, uint32_t push_size) const;
    /// Waits until submitted work is done with the pipeline, then frees it.
    void releasePipeline();

    std::shared_ptr<detail::Runtime> m_runtime;
    std::vector<std::shared_ptr<Memory>> m_mem_objects;
    Workgroup m_workgroup{1, 1, 1};
    std::vector<uint8_t> m_specialization;
    std::vector<uint8_t> m_push;
    uint32_t m_declared_push = 0;  // bytes of the shader's push-constant block, 0 if unknown
    std::unique_ptr<Pipeline> m_pipeline;  // null when not built
    uint64_t m_build_id = 0;                // see buildId()
};

}  // namespace kp
