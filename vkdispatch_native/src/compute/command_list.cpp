#include "vkdispatch/command_list.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "vkdispatch/buffer_commands.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/dispatch_command.hpp"
#include "vkdispatch/errors.hpp"

namespace vkdispatch {

int leastBusyQueue(const std::vector<uint64_t>& outstanding) {
    if (outstanding.empty()) return -1;
    return static_cast<int>(std::min_element(outstanding.begin(), outstanding.end()) -
                            outstanding.begin());
}

CommandList::CommandList(Context& context)
    : m_context(context),
      m_kept(static_cast<size_t>(context.queueCount())),
      m_profiled(static_cast<size_t>(context.queueCount())) {}

CommandList::~CommandList() {
    for (size_t q = 0; q < m_kept.size(); ++q) {
        if (m_kept[q].cb != VK_NULL_HANDLE)
            m_context.queue(static_cast<int>(q)).recycle(m_kept[q].cb, m_kept[q].last_use);
        releaseProfiled(static_cast<int>(q));
    }
}

void CommandList::checkCommand(const Command* command) const {
    if (command == nullptr) throw InvalidArgumentError("command: expected a command, got none");
    if (&command->context() != &m_context)
        throw InvalidArgumentError("command: it belongs to another context than the command list");
}

void CommandList::record(std::unique_ptr<Command> command) {
    checkCommand(command.get());
    std::lock_guard<std::mutex> lock(m_mutex);
    append(std::move(command));
}

bool CommandList::tryRecord(std::unique_ptr<Command>& command) {
    checkCommand(command.get());
    std::unique_lock<std::mutex> lock(m_mutex, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    append(std::move(command));
    return true;
}

void CommandList::append(std::unique_ptr<Command> command) {
    m_push_constant_offsets.push_back(m_instance_size);
    m_instance_size += command->pushConstantSize();
    m_commands.push_back(std::move(command));
    m_command_count = m_commands.size();
    ++m_generation;
}

void CommandList::recordDispatch(ComputePlan& plan, DescriptorSet& set,
                                 std::array<uint32_t, 3> blocks) {
    record(std::make_unique<DispatchCommand>(plan, set, blocks));
}

void CommandList::reset() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_commands.clear();
    m_push_constant_offsets.clear();
    m_instance_size = 0;
    m_command_count = 0;
    ++m_generation;
}

size_t CommandList::profiledRecordings(int queue_index) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_profiled.at(static_cast<size_t>(queue_index)).size();
}

void CommandList::checkSubmission(size_t size, uint32_t instance_count) const {
    if (instance_count == 0)
        throw InvalidArgumentError("instance_count: expected at least 1, got 0");
    const uint64_t expected = uint64_t(m_instance_size.load()) * instance_count;
    if (size != expected)
        throw InvalidArgumentError(
            "push_constants: expected " + std::to_string(expected) + " bytes (instance size " +
            std::to_string(m_instance_size.load()) + " x instance_count " +
            std::to_string(instance_count) + "), got " + std::to_string(size));
    for (const auto& command : m_commands) command->checkReady();
}

std::vector<int> CommandList::targetQueues(int queue_index) const {
    if (queue_index == kAllQueues) {
        std::vector<int> all(m_context.queueCount());
        for (int q = 0; q < m_context.queueCount(); ++q) all[q] = q;
        return all;
    }
    if (queue_index == kLeastBusyQueue) {
        std::vector<uint64_t> outstanding;
        for (int q = 0; q < m_context.queueCount(); ++q) {
            Queue& queue = m_context.queue(q);
            const uint64_t submitted = queue.lastSubmitted();
            outstanding.push_back(submitted - std::min(submitted, queue.completedValue()));
        }
        return {leastBusyQueue(outstanding)};
    }
    if (queue_index < 0)
        throw IndexOutOfRangeError("queue_index: " + std::to_string(queue_index) +
                                   " is neither a queue nor -1 (least busy) or -2 (all queues)");
    m_context.queue(queue_index, "queue_index");  // throws IndexOutOfRangeError naming the range
    return {queue_index};
}

void CommandList::recordCommands(VkCommandBuffer cb, int queue_index,
                                 const uint8_t* push_constants, uint32_t instance_count,
                                 Profiler::Timestamps* timestamps) {
    AccessMask scope = 0;
    for (const auto& command : m_commands) {
        const auto& accesses = command->accesses();
        scope |= accessMaskOf(accesses.data(), accesses.size());
    }
    m_tracker.reset(scope);  // Queue::record starts every command buffer with a full barrier
    RecordState state;
    state.queue_index = queue_index;
    state.scratch = &m_scratch;
    const size_t instance_size = m_instance_size.load();
    for (uint32_t instance = 0; instance < instance_count; ++instance) {
        const uint8_t* instance_data = push_constants + size_t(instance) * instance_size;
        for (size_t i = 0; i < m_commands.size(); ++i) {
            Command& command = *m_commands[i];
            if (command.ordersEverything()) {
                m_tracker.fullBarrier();  // the command records the barrier itself
            } else {
                const Barrier barrier = m_tracker.admit(command.accesses());
                if (barrier.needed()) recordBarrier(cb, barrier);
            }
            const uint8_t* data = instance_data + m_push_constant_offsets[i];
            if (timestamps != nullptr && !command.ordersEverything())
                timestamps->around(cb, command.label(), [&] { command.record(cb, state, data); });
            else
                command.record(cb, state, data);
        }
    }
}

void CommandList::markUsed(int queue_index, uint64_t value) {
    for (const auto& command : m_commands) command->markUsed(queue_index, value);
}

uint64_t CommandList::newestVersion() const noexcept {
    uint64_t newest = 0;
    for (const auto& command : m_commands) newest = std::max(newest, command->version());
    return newest;
}

bool CommandList::matches(const KeptRecording& kept, uint64_t version,
                          const uint8_t* push_constants, size_t size,
                          uint32_t instance_count) const noexcept {
    return kept.cb != VK_NULL_HANDLE && kept.generation == m_generation &&
           kept.version == version && kept.instance_count == instance_count &&
           kept.push_constants.size() == size &&
           (size == 0 || std::memcmp(kept.push_constants.data(), push_constants, size) == 0);
}

CommandList::KeptRecording& CommandList::keptFor(int queue_index, uint64_t version,
                                                 const uint8_t* push_constants, size_t size,
                                                 uint32_t instance_count) {
    KeptRecording& kept = m_kept[queue_index];
    if (matches(kept, version, push_constants, size, instance_count)) return kept;
    Queue& queue = m_context.queue(queue_index);
    if (kept.cb != VK_NULL_HANDLE) queue.recycle(kept.cb, kept.last_use);
    kept = KeptRecording{};
    // Submitted again while earlier submissions of it may still run.
    VkCommandBuffer cb = queue.record(VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
                                      [&](VkCommandBuffer target) {
                                          recordCommands(target, queue_index, push_constants,
                                                         instance_count);
                                      });
    kept = KeptRecording{cb, 0, m_generation, version, instance_count,
                         std::vector<uint8_t>(push_constants, push_constants + size)};
    return kept;
}

uint64_t CommandList::submitOn(int queue_index, KeptRecording& kept, Command* upload) {
    Queue& queue = m_context.queue(queue_index);
    if (upload == nullptr) {
        kept.last_use = queue.submitRecorded(kept.cb);
    } else {
        // The kept recording starts with a full barrier, which orders the upload before it.
        kept.last_use = queue.submit(
            [&](VkCommandBuffer cb) { recordAlone(cb, *upload, queue_index); }, kept.cb);
        upload->markUsed(queue_index, kept.last_use);
    }
    return kept.last_use;
}

CommandList::ProfiledRecording CommandList::profiledFor(int queue_index, Profiler& profiler,
                                                        uint64_t version,
                                                        const uint8_t* push_constants,
                                                        size_t size, uint32_t instance_count) {
    std::deque<ProfiledRecording>& kept = m_profiled[queue_index];
    Queue& queue = m_context.queue(queue_index);
    // Runs finish in the order they were submitted: if any kept recording is free, the oldest is.
    if (!kept.empty() && queue.completed(kept.front().kept.last_use)) {
        ProfiledRecording oldest = std::move(kept.front());
        kept.pop_front();
        oldest.timestamps->read();  // before the next run rewrites them
        if (matches(oldest.kept, version, push_constants, size, instance_count)) return oldest;
        queue.recycle(oldest.kept.cb, oldest.kept.last_use);
    }
    ProfiledRecording fresh;
    fresh.timestamps =
        profiler.begin(queue_index, static_cast<uint32_t>(2 * m_commands.size() * instance_count));
    // Submitted again only after its previous run has finished (its timestamps are its own).
    fresh.kept.cb = queue.record(0, [&](VkCommandBuffer target) {
        fresh.timestamps->reset(target);
        recordCommands(target, queue_index, push_constants, instance_count,
                       fresh.timestamps.get());
        fresh.timestamps->finish(target);
    });
    fresh.kept.generation = m_generation;
    fresh.kept.version = version;
    fresh.kept.instance_count = instance_count;
    fresh.kept.push_constants.assign(push_constants, push_constants + size);
    return fresh;
}

uint64_t CommandList::submitProfiled(int queue_index, Profiler& profiler, uint64_t version,
                                     const uint8_t* push_constants, size_t size,
                                     uint32_t instance_count, Command* upload) {
    ProfiledRecording recording =
        profiledFor(queue_index, profiler, version, push_constants, size, instance_count);
    Queue& queue = m_context.queue(queue_index);
    uint64_t value = 0;
    try {
        value = submitOn(queue_index, recording.kept, upload);
    } catch (...) {
        // Not submitted: freed once the run it last ran, if any, has finished.
        queue.recycle(recording.kept.cb, recording.kept.last_use);
        throw;
    }
    profiler.collectAfter(queue, value, recording.timestamps);
    m_profiled[queue_index].push_back(std::move(recording));
    return value;
}

void CommandList::releaseProfiled(int queue_index) {
    std::deque<ProfiledRecording>& kept = m_profiled[queue_index];
    // Their timestamps stay alive with the reads pending on the queue until their runs finish.
    for (const ProfiledRecording& recording : kept)
        m_context.queue(queue_index).recycle(recording.kept.cb, recording.kept.last_use);
    kept.clear();
}

uint64_t CommandList::submit(const uint8_t* push_constants, size_t size, uint32_t instance_count,
                             int queue_index, Buffer* uniform_buffer, const uint8_t* uniform_data,
                             size_t uniform_size) {
    std::lock_guard<std::mutex> lock(m_mutex);
    checkSubmission(size, instance_count);
    if (size > 0 && push_constants == nullptr)
        throw InvalidArgumentError("push_constants: no data for " + std::to_string(size) +
                                   " bytes");
    std::unique_ptr<UpdateBufferCommand> upload;
    if (uniform_size > 0) {
        if (uniform_buffer == nullptr)
            throw InvalidArgumentError("uniform_buffer: " + std::to_string(uniform_size) +
                                       " bytes of uniform data need a buffer to go to");
        upload = std::make_unique<UpdateBufferCommand>(m_context, *uniform_buffer, 0,
                                                       uniform_data, uniform_size);
    }
    const uint64_t version = newestVersion();
    const std::shared_ptr<Profiler> profiler = m_context.profiler();
    uint64_t value = 0;
    for (int q : targetQueues(queue_index)) {
        if (profiler && profiler->timestamps(q)) {
            value = submitProfiled(q, *profiler, version, push_constants, size, instance_count,
                                   upload.get());
        } else {
            if (!m_profiled[q].empty()) releaseProfiled(q);
            value = submitOn(q, keptFor(q, version, push_constants, size, instance_count),
                             upload.get());
        }
        markUsed(q, value);
    }
    return value;
}

}  // namespace vkdispatch
