#pragma once
// The resources one dispatch of a ComputePlan uses: one descriptor set per queue of the plan's
// context, each pointing at that queue's replica of every bound buffer.
//
// Thread safety: bindBuffer() needs external synchronisation with itself and with submissions of
// command lists that use this set; the last-use values are atomic. Bound buffers must outlive
// the set or be re-bound (the Python bridge keeps references to them).
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "vkdispatch/barrier_plan.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/handle.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class Buffer;
class ComputePlan;
class ReplicatedImage;
class Sampler;
class DescriptorAllocator;
class Context;

class DescriptorSet {
public:
    /// What is bound to one binding: a buffer (bindBuffer) or an image and its sampler
    /// (bindImage); all null until bound.
    struct BufferBinding {
        Buffer* buffer = nullptr;
        ReplicatedImage* image = nullptr;
        Sampler* sampler = nullptr;
        uint64_t offset = 0;
        uint64_t range = 0;  // resolved: never 0 once bound
        bool uniform = false;
        bool read = false;
        bool write = false;

        bool bound() const noexcept { return buffer != nullptr || image != nullptr; }
    };

    /// Allocates a set per queue for `plan`. The plan must outlive every use of the set; the
    /// plan's context must outlive the set itself.
    explicit DescriptorSet(ComputePlan& plan);
    /// Frees each queue's set once the last submission that used it has finished (no block;
    /// the plan is not touched, so it may already be gone).
    ~DescriptorSet();
    DescriptorSet(const DescriptorSet&) = delete;
    DescriptorSet& operator=(const DescriptorSet&) = delete;

    /// Points `binding` at `range` bytes (0 = to the end) from `offset` of `buffer` on every
    /// queue, as a uniform or storage buffer; `read`/`write` describe the shader's access for
    /// barrier planning. Throws InvalidArgumentError naming the binding, what was expected and
    /// what was given, for a binding the plan lacks or declares with another type, a range
    /// outside the buffer or over the device limit, a misaligned offset, or a foreign buffer.
    /// A queue whose set may still be in use by the GPU gets a fresh set (the old one is retired).
    void bindBuffer(int binding, Buffer& buffer, uint64_t offset, uint64_t range, bool uniform,
                    bool read, bool write);

    /// Points sampler binding `binding` at each queue's replica of `image`, sampled with
    /// `sampler` (combined image sampler). Throws InvalidArgumentError naming the binding for a
    /// binding the plan lacks or declares with another type, or objects of another context.
    /// Both must outlive the set or be re-bound. Images need no barriers: shaders only read
    /// them and their writes are framed submissions (see ReplicatedImage).
    void bindImage(int binding, ReplicatedImage& image, Sampler& sampler);

    ComputePlan& plan() const noexcept { return m_plan; }
    /// The set to bind on queue `queue_index`; VK_NULL_HANDLE when the plan has no bindings.
    VkDescriptorSet handle(int queue_index) const noexcept { return m_queues[queue_index]->set; }
    const std::vector<BufferBinding>& bindings() const noexcept { return m_bindings; }
    /// One entry per bound buffer binding (compute stage), for HazardTracker.
    const std::vector<ResourceAccess>& accesses() const noexcept { return m_accesses; }
    /// Throws InvalidArgumentError naming the first binding that was never bound.
    void checkComplete() const;
    /// Changes whenever a binding changes: drawn from one process-wide increasing counter, so a
    /// set's version is above every version handed out before its last change.
    uint64_t version() const noexcept { return m_version; }
    /// Records that submission `value` on queue `queue_index` uses this set.
    void markUsed(int queue_index, uint64_t value) noexcept;

    /// Number of DescriptorSet objects alive in the process (for leak tests).
    static int64_t liveCount() noexcept;

private:
    struct PerQueue {
        std::shared_ptr<DescriptorAllocator> allocator;  // where `set` goes back to
        VkDescriptorSet set = VK_NULL_HANDLE;
        std::atomic<uint64_t> last_use{0};
    };

    void allocate(int queue_index);
    void retire(int queue_index) noexcept;
    void write(int queue_index, int binding);
    // Writes `binding` on every queue (a fresh set for queues whose set pending work uses) and
    // refreshes the buffer accesses.
    void update(int binding);
    void checkBindingType(int binding, BindingType given) const;
    void checkBinding(int binding, Buffer& buffer, uint64_t offset, uint64_t& range,
                      bool uniform) const;

    Context& m_context;
    ComputePlan& m_plan;
    std::vector<BufferBinding> m_bindings;
    std::vector<ResourceAccess> m_accesses;
    std::vector<std::unique_ptr<PerQueue>> m_queues;
    uint64_t m_version;
};

}  // namespace vkdispatch
