#include "vkdispatch/log.hpp"

#include <atomic>
#include <mutex>

namespace vkdispatch {
namespace {

struct SinkState {
    std::mutex mutex;
    LogSink sink = nullptr;
    void* user = nullptr;
    std::atomic<int> level{static_cast<int>(LogLevel::Warning)};
};

SinkState& state() {
    static SinkState s;
    return s;
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

void setLogLevel(LogLevel level) { state().level.store(static_cast<int>(level)); }

LogLevel logLevel() { return static_cast<LogLevel>(state().level.load()); }

bool logEnabled(LogLevel level) { return static_cast<int>(level) >= state().level.load(); }

void log(LogLevel level, const std::string& message) {
    if (!logEnabled(level)) return;
    LogSink sink;
    void* user;
    {
        std::lock_guard<std::mutex> lock(state().mutex);
        sink = state().sink;
        user = state().user;
    }
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
