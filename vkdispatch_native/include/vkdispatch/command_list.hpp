#pragma once
// A recorded sequence of compute dispatches, replayed `instance_count` times per submission with
// per-instance push constants, with the barriers that hazards between dispatches need.
//
// A submission keeps its Vulkan command buffer, per queue: the next submission with the same
// dispatches, descriptor-set versions, instance count and push constants submits it again
// without recording (replays cost the GPU's time only). Uniform data travels in a separate
// one-time command buffer submitted just before it, so uploading it does not stop the reuse.
//
// Thread safety: one thread at a time per CommandList (record, reset and submit need external
// synchronisation). Several command lists may submit to the same queues concurrently; plans may
// be shared between lists.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vkdispatch/barrier_plan.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class Buffer;
class ComputePlan;
class Context;
class DescriptorSet;

/// Queue-selection values of CommandList::submit besides a queue index.
constexpr int kAllQueues = -2;
constexpr int kLeastBusyQueue = -1;

/// Throws InvalidArgumentError naming the axis, the value and the limit when a workgroup count
/// is 0 or above `limits` (maxComputeWorkGroupCount).
void checkWorkgroupCounts(const std::array<uint32_t, 3>& blocks,
                          const std::array<uint32_t, 3>& limits);
/// Position of the smallest value in `outstanding` (submitted minus completed work per queue),
/// the first on ties; -1 when empty.
int leastBusyQueue(const std::vector<uint64_t>& outstanding);

class CommandList {
public:
    /// The context must outlive the list.
    explicit CommandList(Context& context);
    /// Hands kept command buffers back to their queues (freed once their work has finished).
    ~CommandList();
    CommandList(const CommandList&) = delete;
    CommandList& operator=(const CommandList&) = delete;

    /// Appends a dispatch of `blocks` workgroups of `plan` using `set` (a set of `plan`). The
    /// plan and set must stay alive until reset() and until submitted work has finished; the
    /// set's bindings are read at submit time. Throws InvalidArgumentError for zero or too many
    /// workgroups, or a plan/set of another context or of another plan.
    void recordDispatch(ComputePlan& plan, DescriptorSet& set, std::array<uint32_t, 3> blocks);
    /// Bytes of push-constant data one instance consumes (sum over the recorded plans).
    size_t instanceSize() const noexcept { return m_instance_size; }
    size_t dispatchCount() const noexcept { return m_dispatches.size(); }
    /// Forgets the recorded dispatches; submitted work is unaffected.
    void reset() noexcept;

    /// Runs the dispatches `instance_count` times back to back in one command buffer per target
    /// queue. Instance k reads its push constants from `push_constants[k * instanceSize()]`, each
    /// dispatch its plan's bytes in recording order. `queue_index`: kAllQueues (-2) = every queue,
    /// kLeastBusyQueue (-1) = the queue with the least outstanding work, >= 0 = that queue. When
    /// `uniform_size` > 0, `uniform_data` is first copied to offset 0 of `uniform_buffer` on the
    /// device (ordered before the dispatches). Returns the timeline value of the submission (of
    /// the last queue for kAllQueues). Throws InvalidArgumentError for a data size other than
    /// instanceSize() * instance_count, instance_count 0, uniform data without a fitting buffer
    /// or an unbound binding; IndexOutOfRangeError for a bad queue index.
    uint64_t submit(const uint8_t* push_constants, size_t size, uint32_t instance_count,
                    int queue_index, Buffer* uniform_buffer, const uint8_t* uniform_data,
                    size_t uniform_size);

private:
    struct Dispatch {
        ComputePlan* plan;
        DescriptorSet* set;
        std::array<uint32_t, 3> blocks;
        size_t push_constant_offset;  // within one instance's data
    };
    struct UniformUpload {
        Buffer* buffer = nullptr;
        const uint8_t* data = nullptr;
        size_t size = 0;
    };
    // A queue's kept recording and what it was recorded from.
    struct KeptRecording {
        VkCommandBuffer cb = VK_NULL_HANDLE;
        uint64_t last_use = 0;
        uint64_t generation = 0;
        uint64_t set_version = 0;
        uint32_t instance_count = 0;
        std::vector<uint8_t> push_constants;
    };

    void checkSubmission(size_t size, uint32_t instance_count, const UniformUpload& upload) const;
    std::vector<int> targetQueues(int queue_index) const;
    void record(VkCommandBuffer cb, int queue_index, const uint8_t* push_constants,
                uint32_t instance_count);
    void recordUniformUpload(VkCommandBuffer cb, int queue_index, const UniformUpload& upload);
    void markUsed(int queue_index, uint64_t value, const UniformUpload& upload);
    uint64_t newestSetVersion() const noexcept;
    bool matches(const KeptRecording& kept, uint64_t set_version, const uint8_t* push_constants,
                 size_t size, uint32_t instance_count) const noexcept;
    KeptRecording& keptFor(int queue_index, uint64_t set_version, const uint8_t* push_constants,
                           size_t size, uint32_t instance_count);
    uint64_t submitOn(int queue_index, KeptRecording& kept, const UniformUpload& upload);

    Context& m_context;
    std::array<uint32_t, 3> m_max_blocks{};  // minimum over the context's devices
    std::vector<Dispatch> m_dispatches;
    uint64_t m_generation = 0;  // changes with every recordDispatch() and reset()
    size_t m_instance_size = 0;
    std::vector<KeptRecording> m_kept;  // per queue
    HazardTracker m_tracker;           // reused by every recording
    std::vector<uint8_t> m_scratch;    // push constants / uniform tail padded to 4 bytes
};

}  // namespace vkdispatch
