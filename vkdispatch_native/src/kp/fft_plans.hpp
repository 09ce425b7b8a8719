#pragma once
// The VkFFT plans of one device's kp::Managers (its runtime holds them), so that OpFFT
// operations of one layout share a plan (VkFFT compiles its kernels once) and another OpFFT on
// the same tensor shares the binding too (its applications are bound to the tensor's buffer
// once).
//
// A binding is only valid while its tensor's buffer lives, and a buffer freed by destroy() may
// come back with the same handle for another tensor (VkFFT issue #185 is that mix-up). So a
// binding is found by the tensor object, held weakly, and dropped once that is gone or
// destroyed; operations hold their bindings themselves, so dropping one here frees nothing a
// recording still uses.
//
// Thread safety: safe to share (one mutex; plans are built under it, one at a time, as VkFFT
// builds them anyway).
#include <list>
#include <memory>
#include <mutex>

#include "fft_layout.hpp"

namespace vkdispatch {
class Context;
class VkfftBinding;
class VkfftPlan;
}  // namespace vkdispatch

namespace kp {
class Tensor;
}

namespace kp::detail {

class FftPlans {
public:
    FftPlans();
    ~FftPlans();
    FftPlans(const FftPlans&) = delete;
    FftPlans& operator=(const FftPlans&) = delete;

    /// The binding of `tensor` (alive, made on `context`) to the plan of `layout`, each built on
    /// first use. Throws what VkfftPlan throws for a layout VkFFT cannot plan.
    std::shared_ptr<vkdispatch::VkfftBinding> binding(vkdispatch::Context& context,
                                                      const FftLayout& layout,
                                                      const std::shared_ptr<Tensor>& tensor);

    /// How many plans, and bindings per plan, are remembered (the least recently used go).
    static constexpr size_t kRememberedPlans = 16;
    static constexpr size_t kRememberedBindings = 16;

private:
    struct Bound {
        std::weak_ptr<Tensor> tensor;
        std::shared_ptr<vkdispatch::VkfftBinding> binding;
    };
    struct Planned {
        FftLayout layout;
        std::shared_ptr<vkdispatch::VkfftPlan> plan;
        std::list<Bound> bound;  // most recent first
    };

    /// The plan of `layout`, moved to the front (m_mutex held).
    Planned& planned(vkdispatch::Context& context, const FftLayout& layout);

    std::mutex m_mutex;
    std::list<Planned> m_plans;  // most recent first
};

}  // namespace kp::detail
