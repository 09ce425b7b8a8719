#pragma once
// One VkFFT application: VkFFT's kernels for one transform on one queue's device, bound to one
// fixed set of buffers.
//
// Why the buffers are fixed: VkFFT rewrites an application's descriptor sets whenever it is
// appended with other buffers, which Vulkan forbids while a recording that binds those sets is
// pending or kept for replay. So an application never changes its buffers; vkfft_plan.hpp keeps one
// per set of buffers, and later applications of a plan load the kernels the first one compiled
// (binary()) instead of compiling again.
//
// Only vkfft_application.cpp includes vkFFT.h (and works around its glslang mismatch).
//
// Thread safety: none; VkfftPlan serialises the use of each application.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vkdispatch/errors.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class Device;
class Queue;

enum class VkfftPrecision : uint8_t { Single = 0, Double = 1 };

/// What VkFFT is asked to compute, in VkFFT's axis order (size[0] is the contiguous axis).
struct VkfftGeometry {
    uint32_t dimensions = 1;                // 1..3
    std::array<uint64_t, 3> size{1, 1, 1};  // unused dimensions are 1
    std::array<bool, 3> omitted{};          // dimensions batched over instead of transformed
    uint64_t batches = 1;
    VkfftPrecision precision = VkfftPrecision::Single;
    bool r2c = false;        // real <-> complex along dimension 0 (padded in-place rows)
    bool normalize = false;  // inverses divide by the product of the transformed sizes
    std::array<uint64_t, 3> pad_left{}, pad_right{};  // a zero block per dimension (right > 0)
    bool frequency_zeropadding = false;
    uint32_t kernel_count = 0;  // > 0: multiply by that many kernels between the transforms
    bool kernel_convolution = false;  // the plan prepares a kernel (a forward transform)
    uint32_t conjugate_convolution = 0;
    uint32_t coordinate_features = 1;
    uint64_t input_bytes = 0;  // > 0: one run reads a separate input buffer of this size
    bool keep_shader_code = false;
    // The transform repeated over `runs` consecutive blocks of its buffers (each block what one
    // run uses), each run at byte offsets VkFFT takes as push constants: batches for
    // convolutions, which VkFFT 1.2.26 gets wrong with numberBatches > 1.
    uint32_t runs = 1;

    /// Bytes of one complex element.
    uint64_t complexBytes() const noexcept { return precision == VkfftPrecision::Double ? 16 : 8; }
    /// Bytes of the (in-place) data buffer VkFFT works on, every run together.
    uint64_t bufferBytes() const noexcept;
    /// Bytes of the separate input buffer, every run together (0 without one).
    uint64_t inputBytes() const noexcept { return runs * input_bytes; }
    /// Bytes of a convolution's kernel buffer, every run together (0 without one): one
    /// spectrum per output, as many as the data buffer holds.
    uint64_t kernelBytes() const noexcept { return kernel_count > 0 ? bufferBytes() : 0; }
    /// Throws InvalidArgumentError naming the field when the geometry cannot be planned.
    void check() const;
};

/// The buffers an application is bound to (VK_NULL_HANDLE where not used).
struct VkfftBuffers {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkBuffer input = VK_NULL_HANDLE;
    VkBuffer kernel = VK_NULL_HANDLE;
};

/// A VkFFT call failed; the message gives VkFFT's result name and meaning.
class VkfftError : public Error {
public:
    VkfftError(int result, const std::string& operation);
    int result() const noexcept { return m_result; }

private:
    int m_result;
};

/// The name of a VkFFTResult code, e.g. "VKFFT_ERROR_UNSUPPORTED_RADIX".
std::string vkfftResultName(int result);
/// VkFFT's version as major * 10000 + minor * 100 + patch.
int vkfftVersion() noexcept;

class VkfftApplication {
public:
    /// Builds the kernels on `queue`'s device, loading `binary` (what binary() of an earlier
    /// application of the same geometry on the same device returned) when it is not empty,
    /// else compiling them; its pipelines are created through `cache` (VK_NULL_HANDLE: none).
    /// Throws InvalidArgumentError for a geometry VkFFT cannot plan, VkfftError for other
    /// failures.
    VkfftApplication(Device& device, Queue& queue, const VkfftGeometry& geometry,
                     const std::vector<uint32_t>& binary, VkPipelineCache cache = VK_NULL_HANDLE);
    ~VkfftApplication();
    VkfftApplication(const VkfftApplication&) = delete;
    VkfftApplication& operator=(const VkfftApplication&) = delete;

    /// The compiled kernels, for later applications (empty when they were loaded).
    const std::vector<uint32_t>& binary() const noexcept;
    /// Binds the application to its buffers, once, before the first append(). Throws
    /// std::logic_error when called twice.
    void bind(const VkfftBuffers& buffers);
    /// Records every run of the transform into `cb` (the application may be used on any queue
    /// of its device): direction -1 forward, 1 inverse. VkFFT binds pipelines and descriptor
    /// sets of its own and puts compute barriers between its dispatches. Throws
    /// std::logic_error before bind(), VkfftError when VkFFT fails.
    void append(VkCommandBuffer cb, int direction);

    struct State;  // VkFFT's structures, known only to the .cpp

private:
    std::unique_ptr<State> m_state;
};

}  // namespace vkdispatch
