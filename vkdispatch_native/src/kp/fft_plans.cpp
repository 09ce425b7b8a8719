#include "fft_plans.hpp"

#include "kompute/Tensor.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/vkfft_plan.hpp"

namespace kp::detail {
namespace {

// Moves `it` to the front of `list` and drops what lies beyond `limit` entries.
template <typename List>
typename List::value_type& promote(List& list, typename List::iterator it, size_t limit) {
    list.splice(list.begin(), list, it);
    while (list.size() > limit) list.pop_back();
    return list.front();
}

}  // namespace

FftPlans::FftPlans() = default;
FftPlans::~FftPlans() = default;

FftPlans::Planned& FftPlans::planned(vkdispatch::Context& context, const FftLayout& layout) {
    for (auto it = m_plans.begin(); it != m_plans.end(); ++it)
        if (it->layout == layout) return promote(m_plans, it, kRememberedPlans);
    // No kernels saved by earlier processes: kp has no disk cache of its own.
    auto plan = std::make_shared<vkdispatch::VkfftPlan>(context, layout.geometry(),
                                                        std::vector<std::vector<uint32_t>>{});
    m_plans.push_front(Planned{layout, std::move(plan), {}});
    return promote(m_plans, m_plans.begin(), kRememberedPlans);
}

std::shared_ptr<vkdispatch::VkfftBinding> FftPlans::binding(vkdispatch::Context& context,
                                                            const FftLayout& layout,
                                                            const std::shared_ptr<Tensor>& tensor) {
    std::lock_guard<std::mutex> lock(m_mutex);
    Planned& entry = planned(context, layout);
    entry.bound.remove_if([](const Bound& bound) {
        const auto held = bound.tensor.lock();
        return !held || !held->isInit();
    });
    for (auto it = entry.bound.begin(); it != entry.bound.end(); ++it)
        if (it->tensor.lock() == tensor)
            return promote(entry.bound, it, kRememberedBindings).binding;
    // One set of buffers per queue: every queue of the device sees the same tensor buffer.
    vkdispatch::VkfftBuffers buffers;
    buffers.buffer = tensor->getPrimaryBuffer();
    std::vector<vkdispatch::VkfftBuffers> per_queue(context.queueCount(), buffers);
    entry.bound.push_front(Bound{tensor, entry.plan->bind(per_queue)});
    return promote(entry.bound, entry.bound.begin(), kRememberedBindings).binding;
}

}  // namespace kp::detail
