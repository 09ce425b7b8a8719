#pragma once
// A recorded sequence of commands (command.hpp: dispatches, copies, fills, updates, barriers),
// replayed `instance_count` times per submission with per-instance push constants, with the
// barriers that hazards between commands need (planned from the commands' declared accesses).
//
// A submission keeps its Vulkan command buffer, per queue: the next submission with the same
// commands, command versions, instance count and push constants submits it again without
// recording (replays cost the GPU's time only). Uniform data travels in a separate one-time
// command buffer submitted just before it, so uploading it does not stop the reuse.
//
// While the context profiles (profiler.hpp), submissions run recordings with timestamps around
// their commands, kept as well, per queue, in the order of their runs: one whose previous run
// has finished (the oldest) is read and submitted again, and a new one is recorded only while
// every kept one is still running (so about as many are kept as runs are in flight; they go
// when a submission runs without profiling, or with the list).
//
// Thread safety: every method may be called from any thread; one internal lock serialises them
// per list (so a submission sees a consistent list, and kept recordings are replaced safely).
// Several command lists may submit to the same queues concurrently; plans, sets and buffers may
// be shared between lists.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "vkdispatch/barrier_plan.hpp"
#include "vkdispatch/command.hpp"
#include "vkdispatch/profiler.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class Buffer;
class ComputePlan;
class Context;
class DescriptorSet;

/// Queue-selection values of CommandList::submit besides a queue index.
constexpr int kAllQueues = -2;
constexpr int kLeastBusyQueue = -1;

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

    /// Appends `command`, which the list owns until reset(); what it borrows must stay alive
    /// until then and until submitted work has finished. Throws InvalidArgumentError for a
    /// command of another context.
    void record(std::unique_ptr<Command> command);
    /// As record(), but returns false at once, leaving `command` untouched, when another thread
    /// holds the list (a caller that must not block while holding a lock of its own, such as
    /// Python's GIL, then retries with record() after releasing it).
    bool tryRecord(std::unique_ptr<Command>& command);
    /// Appends a DispatchCommand (see dispatch_command.hpp for its errors).
    void recordDispatch(ComputePlan& plan, DescriptorSet& set, std::array<uint32_t, 3> blocks);
    /// Bytes of push-constant data one instance consumes (sum over the recorded commands).
    size_t instanceSize() const noexcept { return m_instance_size.load(); }
    size_t commandCount() const noexcept { return m_command_count.load(); }
    /// Forgets the recorded commands; submitted work is unaffected.
    void reset();
    /// Recordings with timestamps kept for queue `queue_index` (see the class comment), for
    /// tests.
    size_t profiledRecordings(int queue_index) const;

    /// Runs the commands `instance_count` times back to back in one command buffer per target
    /// queue. Instance k reads its push constants from `push_constants[k * instanceSize()]`, each
    /// command its bytes in recording order. `queue_index`: kAllQueues (-2) = every queue,
    /// kLeastBusyQueue (-1) = the queue with the least outstanding work, >= 0 = that queue. When
    /// `uniform_size` > 0, `uniform_data` is first copied to offset 0 of `uniform_buffer` on the
    /// device (ordered before the commands). Returns the timeline value of the submission (of
    /// the last queue for kAllQueues). Throws InvalidArgumentError for a data size other than
    /// instanceSize() * instance_count, instance_count 0, uniform data without a fitting buffer
    /// or a command that is not ready (an unbound binding); IndexOutOfRangeError for a bad
    /// queue index.
    uint64_t submit(const uint8_t* push_constants, size_t size, uint32_t instance_count,
                    int queue_index, Buffer* uniform_buffer, const uint8_t* uniform_data,
                    size_t uniform_size);

private:
    // A queue's kept recording and what it was recorded from.
    struct KeptRecording {
        VkCommandBuffer cb = VK_NULL_HANDLE;
        uint64_t last_use = 0;
        uint64_t generation = 0;
        uint64_t version = 0;
        uint32_t instance_count = 0;
        std::vector<uint8_t> push_constants;
    };

    void checkCommand(const Command* command) const;
    void append(std::unique_ptr<Command> command);  // m_mutex held
    void checkSubmission(size_t size, uint32_t instance_count) const;
    std::vector<int> targetQueues(int queue_index) const;
    void recordCommands(VkCommandBuffer cb, int queue_index, const uint8_t* push_constants,
                        uint32_t instance_count, Profiler::Timestamps* timestamps = nullptr);
    void markUsed(int queue_index, uint64_t value);
    uint64_t newestVersion() const noexcept;
    bool matches(const KeptRecording& kept, uint64_t version, const uint8_t* push_constants,
                 size_t size, uint32_t instance_count) const noexcept;
    KeptRecording& keptFor(int queue_index, uint64_t version, const uint8_t* push_constants,
                           size_t size, uint32_t instance_count);
    uint64_t submitOn(int queue_index, KeptRecording& kept, Command* upload);

    // A kept recording with timestamps around its commands (profiling on).
    struct ProfiledRecording {
        KeptRecording kept;
        std::shared_ptr<Profiler::Timestamps> timestamps;
    };
    // Submits a recording with timestamps: the oldest kept one where it has finished and
    // matches, else a new one.
    uint64_t submitProfiled(int queue_index, Profiler& profiler, uint64_t version,
                            const uint8_t* push_constants, size_t size, uint32_t instance_count,
                            Command* upload);
    ProfiledRecording profiledFor(int queue_index, Profiler& profiler, uint64_t version,
                                  const uint8_t* push_constants, size_t size,
                                  uint32_t instance_count);
    void releaseProfiled(int queue_index);  // hands the queue's back (profiling is off)

    Context& m_context;
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Command>> m_commands;
    std::vector<size_t> m_push_constant_offsets;  // per command, within one instance's data
    uint64_t m_generation = 0;                    // changes with every record() and reset()
    // Written under m_mutex, read without it (a caller sizing its push constants).
    std::atomic<size_t> m_instance_size{0};
    std::atomic<size_t> m_command_count{0};
    std::vector<KeptRecording> m_kept;  // per queue
    std::vector<std::deque<ProfiledRecording>> m_profiled;  // per queue, oldest run first
    HazardTracker m_tracker;           // reused by every recording
    std::vector<uint8_t> m_scratch;    // push constants padded to 4 bytes
};

}  // namespace vkdispatch
