#include "kompute/Sequence.hpp"

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "runtime.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/queue.hpp"

namespace kp {
namespace {

constexpr const char* kBeginWhileRunning =
    "Kompute Sequence begin called when sequence still running";

// An operation whose commands a command buffer holds, and what they used when it was recorded.
struct Recorded {
    std::shared_ptr<OpBase> op;  // kept alive while the buffer may run
    OpUses uses;
    std::vector<bool> live;  // which of uses.mem_objects were alive then
    uint64_t build = 0;      // uses.algorithm's buildId() then

    explicit Recorded(std::shared_ptr<OpBase> recorded)
        : op(std::move(recorded)), uses(op->uses()) {
        for (const auto& memory : uses.mem_objects) live.push_back(memory && memory->isInit());
        if (uses.algorithm) build = uses.algorithm->buildId();
    }

    // What of it was destroyed (or rebuilt) since it was recorded; "" when nothing was.
    std::string gone() const {
        const auto& algorithm = uses.algorithm;
        if (build != 0 && algorithm->buildId() != build)
            return std::string("dispatches an algorithm that has been ") +
                   (algorithm->isInit() ? "rebuilt" : "destroyed") + " since";
        for (size_t i = 0; i < live.size(); ++i) {
            if (!live[i] || uses.mem_objects[i]->isInit()) continue;
            const bool image = uses.mem_objects[i]->type() == Memory::Type::eImage;
            return std::string("uses ") + (image ? "an image" : "a tensor") + " (memory object " +
                   std::to_string(i) + ") that has been destroyed since";
        }
        return "";
    }
};

}  // namespace

struct Sequence::State {
    std::shared_ptr<detail::Runtime> runtime;
    vkdispatch::Queue* queue = nullptr;
    vkdispatch::UniqueCommandPool pool;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    bool recorded = false;            // cb holds a finished recording
    std::vector<Recorded> in_buffer;  // the operations whose commands cb holds
    uint64_t submitted = 0;           // timeline value of the running submission
    VkQueryPool timestamps = VK_NULL_HANDLE;
    uint32_t total_timestamps = 0;

    ~State() {
        if (timestamps != VK_NULL_HANDLE)
            vkDestroyQueryPool(runtime->handle(), timestamps, nullptr);
    }
};

Sequence::Sequence(std::shared_ptr<detail::Runtime> runtime, uint32_t queue_index,
                   uint32_t total_timestamps)
    : m_state(std::make_unique<State>()) {
    State& s = *m_state;
    s.runtime = std::move(runtime);
    s.queue = &s.runtime->context->queue(static_cast<int>(queue_index));
    const VkDevice device = s.runtime->handle();
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool_info.queueFamilyIndex = s.queue->family();
    VkCommandPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateCommandPool(device, &pool_info, nullptr, &pool),
             "creating the command pool of a kp::Sequence");
    s.pool = vkdispatch::UniqueCommandPool(device, pool);
    VkCommandBufferAllocateInfo cb_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cb_info.commandPool = pool;
    cb_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cb_info.commandBufferCount = 1;
    VK_CHECK(vkAllocateCommandBuffers(device, &cb_info, &s.cb),
             "allocating the command buffer of a kp::Sequence");
    if (total_timestamps > 0) {
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(s.runtime->device().physical(), &properties);
        if (!properties.limits.timestampComputeAndGraphics)
            throw std::runtime_error("Device does not support timestamps");
        VkQueryPoolCreateInfo query_info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
        query_info.queryCount = total_timestamps + 1;
        VK_CHECK(vkCreateQueryPool(device, &query_info, nullptr, &s.timestamps),
                 "creating the timestamp pool of a kp::Sequence");
        s.total_timestamps = total_timestamps;
    }
}

Sequence::~Sequence() { destroy(); }

void Sequence::destroy() {
    if (!m_state) return;
    // Deaf to Ctrl-C: the destructor calls this and must not throw, and the command buffer
    // freed below may not be given up while the GPU still runs it.
    if (m_state->submitted != 0) m_state->queue->waitIgnoringInterrupts(m_state->submitted);
    m_running = m_recording = false;
    m_operations.clear();
    m_state.reset();
}

namespace {
std::runtime_error destroyedError() {
    return std::runtime_error("Kompute Sequence was destroyed: it cannot be used");
}
}  // namespace

void Sequence::checkTimestampRoom() const {
    const State& s = *m_state;
    if (s.timestamps != VK_NULL_HANDLE && m_operations.size() >= s.total_timestamps)
        throw std::runtime_error("Kompute Sequence recorded more operations than its " +
                                 std::to_string(s.total_timestamps) + " timestamps");
}

void Sequence::writeTimestamp() {
    State& s = *m_state;
    if (s.timestamps == VK_NULL_HANDLE) return;
    vkCmdWriteTimestamp(s.cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, s.timestamps,
                        static_cast<uint32_t>(m_operations.size()));
}

std::string Sequence::staleCommands() const {
    for (const Recorded& recorded : m_state->in_buffer) {
        const std::string gone = recorded.gone();
        if (!gone.empty())
            return std::string("Kompute Sequence cannot run its commands: the ") +
                   recorded.uses.operation + " recorded into them " + gone +
                   "; clear() the sequence and record operations on live objects";
    }
    return "";
}

void Sequence::checkCommandsLive() const {
    const std::string stale = staleCommands();
    if (!stale.empty()) throw std::runtime_error(stale);
}

void Sequence::discardCommands() {
    settle();
    State& s = *m_state;
    VK_CHECK(vkResetCommandBuffer(s.cb, 0), "resetting the command buffer of a kp::Sequence");
    s.in_buffer.clear();
    s.recorded = false;
    m_recording = false;
}

void Sequence::settle() {
    // After an evalAwait that timed out the sequence counts as idle (Kompute's rule) while the
    // GPU may still run its buffer: it must finish before the buffer is reset or resubmitted.
    State& s = *m_state;
    if (s.submitted != 0) s.queue->wait(s.submitted);
}

void Sequence::begin() {
    if (!m_state) throw destroyedError();
    if (m_running) throw std::runtime_error(kBeginWhileRunning);
    if (m_recording) return;
    settle();
    State& s = *m_state;
    VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(s.cb, &info), "beginning a kp::Sequence");
    s.in_buffer.clear();
    s.recorded = false;
    m_recording = true;
    // Kompute's operations only order transfers and dispatches among themselves: the buffer
    // is framed against earlier submissions to the queue here, and before host reads in end().
    vkdispatch::recordEntryBarrier(s.cb);
    if (s.timestamps != VK_NULL_HANDLE) {
        vkCmdResetQueryPool(s.cb, s.timestamps, 0, s.total_timestamps + 1);
        vkCmdWriteTimestamp(s.cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, s.timestamps, 0);
    }
}

void Sequence::end() {
    if (!m_state) throw destroyedError();
    if (m_running) throw std::runtime_error(kBeginWhileRunning);
    if (!m_recording) return;
    checkCommandsLive();  // adding to a buffer that uses a freed object is invalid usage
    State& s = *m_state;
    vkdispatch::recordFullBarrier(s.cb, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    VK_CHECK(vkEndCommandBuffer(s.cb), "ending a kp::Sequence");
    m_recording = false;
    s.recorded = true;
}

namespace {

// Objects of another runtime live on another device (another physical device, or the VkDevice
// of a Manager over the program's handles): recording them into this sequence's buffer is
// invalid usage (a crash under the validation layer).
void checkSameDevice(const OpUses& uses, const std::shared_ptr<detail::Runtime>& runtime) {
    for (size_t i = 0; i < uses.mem_objects.size(); ++i) {
        const auto& memory = uses.mem_objects[i];
        if (memory && memory->isInit() && !memory->belongsTo(runtime))
            throw vkdispatch::InvalidArgumentError(
                std::string("Kompute Sequence cannot record ") + uses.operation +
                ": memory object " + std::to_string(i) +
                " was made on another device than the sequence's");
    }
    if (uses.algorithm && uses.algorithm->isInit() && !uses.algorithm->belongsTo(runtime))
        throw vkdispatch::InvalidArgumentError(
            std::string("Kompute Sequence cannot record ") + uses.operation +
            ": its algorithm was made on another device than the sequence's");
}

}  // namespace

std::shared_ptr<Sequence> Sequence::record(std::shared_ptr<OpBase> op) {
    if (!op) throw std::runtime_error("Kompute Sequence record was given no operation");
    if (m_state) checkSameDevice(op->uses(), m_state->runtime);
    begin();
    checkCommandsLive();
    checkTimestampRoom();  // before the operation's commands: a refused one leaves no trace
    // Listed first: commands it writes before a failure count too.
    m_state->in_buffer.emplace_back(op);
    op->record(vk::CommandBuffer(m_state->cb));
    m_operations.push_back(std::move(op));
    writeTimestamp();
    return shared_from_this();
}

std::shared_ptr<Sequence> Sequence::evalAsync() {
    if (!m_state) throw destroyedError();
    if (m_recording) end();
    if (m_running)
        throw std::runtime_error("Kompute Sequence evalAsync called when an eval async was "
                                 "called without successful wait");
    checkCommandsLive();
    settle();
    State& s = *m_state;
    const vk::CommandBuffer cb(s.cb);
    for (const auto& op : m_operations) op->preEval(cb);
    s.submitted = s.recorded ? s.queue->submitRecorded(s.cb) : 0;
    m_running = true;
    return shared_from_this();
}

std::shared_ptr<Sequence> Sequence::evalAsync(std::shared_ptr<OpBase> op) {
    clear();
    record(std::move(op));
    return evalAsync();
}

std::shared_ptr<Sequence> Sequence::evalAwait(uint64_t timeout_ns) {
    if (!m_state) throw destroyedError();
    if (!m_running) return shared_from_this();
    State& s = *m_state;
    bool finished = true;
    if (s.submitted != 0) {
        if (timeout_ns == UINT64_MAX) {
            s.queue->wait(s.submitted);
        } else {
            const auto deadline = std::chrono::steady_clock::now() +
                                  std::chrono::nanoseconds(timeout_ns);
            s.queue->flushThrough(s.submitted);  // polled below: it must be on its way
            while (!(finished = s.queue->completed(s.submitted)) &&
                   std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    }
    m_running = false;
    if (!finished) return shared_from_this();
    const vk::CommandBuffer cb(s.cb);
    for (const auto& op : m_operations) op->postEval(cb);
    return shared_from_this();
}

std::shared_ptr<Sequence> Sequence::eval() {
    evalAsync();
    return evalAwait();
}

std::shared_ptr<Sequence> Sequence::eval(std::shared_ptr<OpBase> op) {
    clear();
    record(std::move(op));
    return eval();
}

void Sequence::clear() {
    m_operations.clear();
    if (!m_state) return;
    if (!staleCommands().empty()) discardCommands();
    else if (m_recording) end();
}

void Sequence::rerecord() {
    end();
    auto operations = std::move(m_operations);
    m_operations.clear();
    for (auto& op : operations) record(std::move(op));
}

std::vector<uint64_t> Sequence::getTimestamps() {
    if (!m_state) throw destroyedError();
    State& s = *m_state;
    if (s.timestamps == VK_NULL_HANDLE)
        throw std::runtime_error("Timestamp latching not enabled");
    std::vector<uint64_t> ticks(m_operations.size() + 1);
    if (!s.recorded || m_running) return ticks;
    // No WAIT: the buffer has finished, and an operation recorded into an earlier buffer (a
    // record() after an eval) has no timestamp in this one; its entry stays 0.
    VK_CHECK(vkGetQueryPoolResults(s.runtime->handle(), s.timestamps, 0,
                                   static_cast<uint32_t>(ticks.size()),
                                   ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                   VK_QUERY_RESULT_64_BIT),
             "reading the timestamps of a kp::Sequence");
    return ticks;
}

}  // namespace kp
