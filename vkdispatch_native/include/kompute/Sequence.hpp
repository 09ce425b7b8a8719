#pragma once
// kp::Sequence: a command buffer on one queue of a Manager and the operations recorded into it.
// record() writes an operation's commands at once; eval() submits what was recorded and waits,
// evalAsync() submits and returns, evalAwait() waits and runs the operations' postEval(). A
// record() after an eval starts a new command buffer but keeps the operation list, as Kompute
// does. Made by Manager::sequence.
//
// destroy() of a memory object or algorithm frees its Vulkan resources, as in Kompute, so a
// command buffer recorded with it must not run again: record(), end(), eval() and evalAsync()
// throw std::runtime_error naming the operation and the destroyed (or rebuilt) object while
// the command buffer holds such commands (see OpBase::uses); clear() drops them, and a record()
// after an eval starts a new buffer without them.
//
// Thread safety: none; one thread uses a sequence at a time (sequences may run concurrently).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kompute/Algorithm.hpp"
#include "kompute/Memory.hpp"
#include "kompute/TensorList.hpp"
#include "kompute/operations/OpBase.hpp"

namespace kp {

class Sequence : public std::enable_shared_from_this<Sequence> {
public:
    /// On queue `queue_index` of the runtime's context (Manager::sequence maps its own queue
    /// indices to the context's). `total_timestamps` > 0 keeps that many timestamps after the
    /// start of the buffer (one after each recorded operation); std::runtime_error when the
    /// device cannot write timestamps.
    Sequence(std::shared_ptr<detail::Runtime> runtime, uint32_t queue_index,
             uint32_t total_timestamps = 0);
    ~Sequence();
    Sequence(const Sequence&) = delete;
    Sequence& operator=(const Sequence&) = delete;

    std::shared_ptr<Sequence> record(std::shared_ptr<OpBase> op);
    template <typename T, typename... Args>
    std::shared_ptr<Sequence> record(const MemoryObjects& mem_objects, Args&&... args) {
        return record(std::make_shared<T>(mem_objects.list(), std::forward<Args>(args)...));
    }
    /// The same over Kompute 0.9's list of tensors, given to T as it is (see TensorList.hpp).
    template <typename T, typename List, typename... Args>
    IfTypedList<List, std::shared_ptr<Sequence>> record(const List& tensors, Args&&... args) {
        return record(std::make_shared<T>(tensors, std::forward<Args>(args)...));
    }
    template <typename T, typename... Args>
    std::shared_ptr<Sequence> record(const std::shared_ptr<Algorithm>& algorithm, Args&&... args) {
        return record(std::make_shared<T>(algorithm, std::forward<Args>(args)...));
    }

    /// Submits what was recorded and waits; postEval() of every operation runs after.
    std::shared_ptr<Sequence> eval();
    /// clear(), record(op), eval().
    std::shared_ptr<Sequence> eval(std::shared_ptr<OpBase> op);
    template <typename T, typename... Args>
    std::shared_ptr<Sequence> eval(const MemoryObjects& mem_objects, Args&&... args) {
        return eval(std::make_shared<T>(mem_objects.list(), std::forward<Args>(args)...));
    }
    /// The same over Kompute 0.9's list of tensors, given to T as it is (see TensorList.hpp).
    template <typename T, typename List, typename... Args>
    IfTypedList<List, std::shared_ptr<Sequence>> eval(const List& tensors, Args&&... args) {
        return eval(std::make_shared<T>(tensors, std::forward<Args>(args)...));
    }
    template <typename T, typename... Args>
    std::shared_ptr<Sequence> eval(const std::shared_ptr<Algorithm>& algorithm, Args&&... args) {
        return eval(std::make_shared<T>(algorithm, std::forward<Args>(args)...));
    }

    /// Submits what was recorded and returns (std::runtime_error while a submission is running).
    std::shared_ptr<Sequence> evalAsync();
    std::shared_ptr<Sequence> evalAsync(std::shared_ptr<OpBase> op);
    template <typename T, typename... Args>
    std::shared_ptr<Sequence> evalAsync(const MemoryObjects& mem_objects, Args&&... args) {
        return evalAsync(std::make_shared<T>(mem_objects.list(), std::forward<Args>(args)...));
    }
    /// The same over Kompute 0.9's list of tensors, given to T as it is (see TensorList.hpp).
    template <typename T, typename List, typename... Args>
    IfTypedList<List, std::shared_ptr<Sequence>> evalAsync(const List& tensors, Args&&... args) {
        return evalAsync(std::make_shared<T>(tensors, std::forward<Args>(args)...));
    }
    template <typename T, typename... Args>
    std::shared_ptr<Sequence> evalAsync(const std::shared_ptr<Algorithm>& algorithm,
                                        Args&&... args) {
        return evalAsync(std::make_shared<T>(algorithm, std::forward<Args>(args)...));
    }
    /// Waits up to `timeout_ns` nanoseconds for the running submission, then runs postEval()
    /// (not after a timeout; the sequence counts as idle either way, as in Kompute, but a later
    /// record or eval waits for that buffer to finish before reusing it).
    std::shared_ptr<Sequence> evalAwait(uint64_t timeout_ns = UINT64_MAX);

    /// Starts recording (std::runtime_error while running); a no-op while recording.
    void begin();
    /// Ends recording (std::runtime_error while running).
    void end();
    /// Drops the operations (ending the recording); the command buffer too when it holds
    /// commands on a destroyed object.
    void clear();
    /// Records every operation again into a new command buffer.
    void rerecord();
    /// Raw device ticks: the start of the buffer, then one after each recorded operation.
    std::vector<uint64_t> getTimestamps();

    bool isRecording() const noexcept { return m_recording; }
    bool isRunning() const noexcept { return m_running; }
    bool isInit() const noexcept { return m_state != nullptr; }
    /// Waits for the last submission, then frees everything; a second call does nothing.
    void destroy();

private:
    struct State;
    /// Why the command buffer must not run: what of its commands' objects was destroyed ("" when
    /// nothing was).
    std::string staleCommands() const;
    void checkCommandsLive() const;  // throws staleCommands()
    /// Resets the command buffer (after its last submission finished).
    void discardCommands();
    void checkTimestampRoom() const;
    void writeTimestamp();
    void settle();  // waits until the last submission finished

    std::unique_ptr<State> m_state;  // null after destroy()
    std::vector<std::shared_ptr<OpBase>> m_operations;
    bool m_recording = false;
    bool m_running = false;
};

}  // namespace kp
