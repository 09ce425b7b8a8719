#include "vkdispatch/log.hpp"

#include <atomic>
#include <deque>
#include <mutex>
#include <utility>

namespace vkdispatch {
namespace {

struct SinkState {
    std::mutex mutex;
    LogSink sink = nullptr;
    void* user = nullptr;
    std::atomic<int> level{static_cast<int>(LogLevel::Warning)};
    std::atomic<DeliveryCheck> check{nullptr};
};

// Messages logged where the sink may not run, waiting for a thread where it may. Bounded: a
// program that never calls back into the library for a long time (shader printf in a loop of
// graph replays from another thread) must not grow without end; the oldest go first.
constexpr size_t kMaxDeferred = 1 << 20;

struct Deferred {
    std::mutex mutex;  // never held while a sink runs
    std::deque<std::pair<int, std::string>> messages;
    size_t dropped = 0;
    std::atomic<bool> any{false};
};

Deferred& deferred() {
    static Deferred* d = new Deferred;  // never destroyed, as state()
    return *d;
}

void defer(LogLevel level, const std::string& message) {
    Deferred& d = deferred();
    std::lock_guard<std::mutex> lock(d.mutex);
    if (d.messages.size() >= kMaxDeferred) {
        d.messages.pop_front();
        ++d.dropped;
    }
    d.messages.emplace_back(static_cast<int>(level), message);
    d.any.store(true);
}

// Never destroyed: threads of an abandoned context (one the exit did not wait for) may still
// log while the process's static objects are being destroyed.
SinkState& state() {
    static SinkState* s = new SinkState;
    return *s;
}

// The sink and its user pointer as set now (read together; called outside the lock).
std::pair<LogSink, void*> currentSink() {
    std::lock_guard<std::mutex> lock(state().mutex);
    return {state().sink, state().user};
}

// The validation layer reports from inside the Vulkan call that caused the message, on the
// calling thread: keeping the messages per thread hands them to that call and no other.
std::vector<std::string>& threadValidationErrors() {
    thread_local std::vector<std::string> errors;
    return errors;
}

}  // namespace

void setLogSink(LogSink sink, void* user) {
    std::lock_guard<std::mutex> lock(state().mutex);
    state().sink = sink;
    state().user = user;
}

bool hasLogSink() {
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().sink != nullptr;
}

void setDeliveryCheck(DeliveryCheck check) { state().check.store(check); }

void deliverDeferredLogs() {
    Deferred& d = deferred();
    if (!d.any.load()) return;
    std::deque<std::pair<int, std::string>> messages;
    size_t dropped;
    {
        std::lock_guard<std::mutex> lock(d.mutex);
        messages.swap(d.messages);
        dropped = d.dropped;
        d.dropped = 0;
        d.any.store(false);
    }
    const auto [sink, user] = currentSink();
    if (sink == nullptr) return;
    if (dropped > 0) {
        const std::string note = std::to_string(dropped) +
                                 " log messages were dropped: more than " +
                                 std::to_string(kMaxDeferred) +
                                 " waited for a thread that may deliver them";
        sink(static_cast<int>(LogLevel::Warning), note.c_str(), user);
    }
    for (const auto& [level, message] : messages) sink(level, message.c_str(), user);
}

void setLogLevel(LogLevel level) { state().level.store(static_cast<int>(level)); }

LogLevel logLevel() { return static_cast<LogLevel>(state().level.load()); }

bool logEnabled(LogLevel level) { return static_cast<int>(level) >= state().level.load(); }

void log(LogLevel level, const std::string& message) {
    if (!logEnabled(level)) return;
    const DeliveryCheck check = state().check.load();
    if (check != nullptr && !check()) {
        defer(level, message);
        return;
    }
    deliverDeferredLogs();  // the older messages first
    const auto [sink, user] = currentSink();
    if (sink != nullptr) sink(static_cast<int>(level), message.c_str(), user);
}

void recordValidationError(const std::string& message) {
    threadValidationErrors().push_back(message);
}

std::vector<std::string> takeValidationErrors() {
    std::vector<std::string> out;
    out.swap(threadValidationErrors());
    return out;
}

}  // namespace vkdispatch
