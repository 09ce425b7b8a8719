#pragma once
// Native logging: messages go to one sink installed by the embedding layer (the Python bridge
// forwards them to the `logging` module). Below-threshold messages cost one atomic load.
//
// Thread safety: every function is safe to call from any thread. A sink that must take a lock of
// its own (Python's GIL) can deadlock with a thread that holds that lock while it waits for one
// that the logging thread holds (the validation layer logs from inside Vulkan calls, under the
// layer's own locks): setDeliveryCheck() names the threads that may run the sink at once; the
// others' messages wait, in order, for deliverDeferredLogs() or the next log() on such a thread.
#include <string>
#include <vector>

namespace vkdispatch {

enum class LogLevel : int { Verbose = 0, Info = 1, Warning = 2, Error = 3 };

/// Receives every message at or above the threshold; `user` is the pointer given to setLogSink.
using LogSink = void (*)(int level, const char* message, void* user);

void setLogSink(LogSink sink, void* user);
/// Whether the calling thread may run the sink now (for Python: it holds the GIL).
using DeliveryCheck = bool (*)();
/// Without a check (the default) every thread runs the sink at once.
void setDeliveryCheck(DeliveryCheck check);
/// Runs the sink for the messages deferred so far, oldest first, on the calling thread (one the
/// check allows). Costs one atomic load when none wait.
void deliverDeferredLogs();
/// Whether a sink is installed (without one, log() drops every message).
bool hasLogSink();
void setLogLevel(LogLevel level);
LogLevel logLevel();
bool logEnabled(LogLevel level);
void log(LogLevel level, const std::string& message);

/// Validation-layer errors are collected here per thread (the layer reports them from inside
/// the Vulkan call that caused them, on its thread, where throwing is not allowed) and turned
/// into exceptions by that thread's check after the call.
void recordValidationError(const std::string& message);
/// Returns and clears every validation error recorded so far on the calling thread.
std::vector<std::string> takeValidationErrors();

}  // namespace vkdispatch
