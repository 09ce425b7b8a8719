#pragma once
// A VkFFT transform of one geometry on a context: the kernels built for it on each device (built
// when the plan is created, so a size VkFFT cannot plan fails there, and saved for the next
// process with binaries()) and the applications bound to the buffers it has run on.
//
// A VkfftBinding is the set of applications (one per queue) bound to one (buffer, input, kernel)
// triple; commands share it, and it outlives the plan while a command holds it. The plan
// remembers its most recent bindings so that calling the same transform on the same buffers
// again reuses them; an older binding is released when no command holds it, its applications
// once their queues have finished with them.
//
// Thread safety: safe to share; each binding serialises the use of its applications.
#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "vkdispatch/vkfft_application.hpp"

namespace vkdispatch {

class Buffer;
class Context;
class PipelineCache;

class VkfftBinding {
public:
    struct Kernels;  // what every binding of a plan builds its applications from

    VkfftBinding(std::shared_ptr<Kernels> kernels, const VkfftBuffers* per_queue);
    /// Hands each application to its queue, destroyed once the queue passes its last use.
    ~VkfftBinding();
    VkfftBinding(const VkfftBinding&) = delete;
    VkfftBinding& operator=(const VkfftBinding&) = delete;

    /// Records the transform for queue `queue_index` (direction -1 forward, 1 inverse).
    void append(int queue_index, VkCommandBuffer cb, int direction);
    /// Submission `value` of queue `queue_index` uses the applications.
    void markUsed(int queue_index, uint64_t value) noexcept;

private:
    struct PerQueue {
        std::unique_ptr<VkfftApplication> application;
        std::atomic<uint64_t> last_use{0};  // raised at each submission without the lock
    };

    std::shared_ptr<Kernels> m_kernels;
    std::mutex m_mutex;
    std::vector<PerQueue> m_queues;
};

class VkfftPlan {
public:
    /// Builds the kernels on every device of `context`; `binaries[d]` (when given and not empty)
    /// are kernels an earlier plan of the same geometry saved for device d, loaded instead of
    /// compiled. Pipelines are created through `cache` when it is not null (it must belong to
    /// `context` and outlive the plan). Throws InvalidArgumentError for a geometry that cannot
    /// be planned (naming the field, or with VkFFT's reason) or a cache of another context,
    /// VkfftError for other VkFFT failures.
    VkfftPlan(Context& context, const VkfftGeometry& geometry,
              const std::vector<std::vector<uint32_t>>& binaries, PipelineCache* cache = nullptr);
    VkfftPlan(const VkfftPlan&) = delete;
    VkfftPlan& operator=(const VkfftPlan&) = delete;

    Context& context() const noexcept;
    const VkfftGeometry& geometry() const noexcept;
    /// The kernels of each device, to save for later processes.
    std::vector<std::vector<uint32_t>> binaries() const;
    /// The binding for these buffers (`input` and `kernel` may be null), shared with earlier
    /// calls while the plan remembers it. Buffers must belong to the plan's context and be large
    /// enough (checked by VkfftCommand).
    std::shared_ptr<VkfftBinding> binding(Buffer& buffer, Buffer* input, Buffer* kernel);
    /// A new binding to raw buffers, `per_queue[q]` for queue q of the context, that the plan
    /// does not remember: for callers that own their buffers and their own cache of bindings
    /// (kp::OpFFT). The buffers must outlive the binding and every recording that uses it.
    std::shared_ptr<VkfftBinding> bind(const std::vector<VkfftBuffers>& per_queue);

    /// How many bindings a plan remembers.
    static constexpr size_t kRememberedBindings = 4;

private:
    using Key = std::tuple<uint64_t, uint64_t, uint64_t>;  // buffer serials (0 = none)

    std::shared_ptr<VkfftBinding::Kernels> m_kernels;
    std::mutex m_mutex;
    std::list<std::pair<Key, std::shared_ptr<VkfftBinding>>> m_recent;  // most recent first
};

}  // namespace vkdispatch
