#pragma once
// Kompute's log macros, KP_LOG_TRACE / DEBUG / INFO / WARN / ERROR(format, args...), with "{}"
// format strings (see Format.hpp), over vkdispatch's native log.
//
// Which macros are compiled in is chosen as in Kompute: KOMPUTE_OPT_LOG_LEVEL_DISABLED=1 turns
// them all off; otherwise those at or above KOMPUTE_OPT_ACTIVE_LOG_LEVEL (for example
// KOMPUTE_LOG_LEVEL_WARN; older Kompute releases named it KOMPUTE_OPT_LOG_LEVEL) are compiled,
// and without either, those at or above INFO (DEBUG in builds without NDEBUG), as Kompute's
// "Default" level. The CMake option KOMPUTE_OPT_LOG_LEVEL (Trace, Debug, Info, Warn, Error,
// Critical, Off, Default) of vkdispatch_native sets these definitions for programs that link
// vkdispatch_core. A compiled-out macro does not evaluate its arguments.
//
// Where the messages go: to the sink installed with vkdispatch::setLogSink (the Python module
// installs one that forwards to `logging`), subject to vkdispatch::setLogLevel; without a sink,
// as in a plain C++ program, to stderr.
#include <string>

#include "kompute/logger/Format.hpp"

#define KOMPUTE_LOG_LEVEL_TRACE 0
#define KOMPUTE_LOG_LEVEL_DEBUG 1
#define KOMPUTE_LOG_LEVEL_INFO 2
#define KOMPUTE_LOG_LEVEL_WARN 3
#define KOMPUTE_LOG_LEVEL_ERROR 4
#define KOMPUTE_LOG_LEVEL_CRITICAL 5
#define KOMPUTE_LOG_LEVEL_OFF 6

#if defined(KOMPUTE_OPT_ACTIVE_LOG_LEVEL)
#define VKDISPATCH_KP_LOG_LEVEL KOMPUTE_OPT_ACTIVE_LOG_LEVEL
#elif defined(KOMPUTE_OPT_LOG_LEVEL)
#define VKDISPATCH_KP_LOG_LEVEL KOMPUTE_OPT_LOG_LEVEL
#elif defined(NDEBUG)
#define VKDISPATCH_KP_LOG_LEVEL KOMPUTE_LOG_LEVEL_INFO
#else
#define VKDISPATCH_KP_LOG_LEVEL KOMPUTE_LOG_LEVEL_DEBUG
#endif

#if defined(KOMPUTE_OPT_LOG_LEVEL_DISABLED) && KOMPUTE_OPT_LOG_LEVEL_DISABLED
#undef VKDISPATCH_KP_LOG_LEVEL
#define VKDISPATCH_KP_LOG_LEVEL KOMPUTE_LOG_LEVEL_OFF
#endif

namespace kp::logger {

/// Sends `message`, logged at `level` (a KOMPUTE_LOG_LEVEL_* value) from file:line, to the
/// native log's sink, or to stderr when none is installed.
void write(int level, const char* file, int line, const std::string& message);

}  // namespace kp::logger

#define VKDISPATCH_KP_LOG(level, ...) \
    ::kp::logger::write(level, __FILE__, __LINE__, ::kp::logger::format(__VA_ARGS__))

#if VKDISPATCH_KP_LOG_LEVEL <= KOMPUTE_LOG_LEVEL_TRACE
#define KP_LOG_TRACE(...) VKDISPATCH_KP_LOG(KOMPUTE_LOG_LEVEL_TRACE, __VA_ARGS__)
#else
#define KP_LOG_TRACE(...) ((void)0)
#endif

#if VKDISPATCH_KP_LOG_LEVEL <= KOMPUTE_LOG_LEVEL_DEBUG
#define KP_LOG_DEBUG(...) VKDISPATCH_KP_LOG(KOMPUTE_LOG_LEVEL_DEBUG, __VA_ARGS__)
#else
#define KP_LOG_DEBUG(...) ((void)0)
#endif

#if VKDISPATCH_KP_LOG_LEVEL <= KOMPUTE_LOG_LEVEL_INFO
#define KP_LOG_INFO(...) VKDISPATCH_KP_LOG(KOMPUTE_LOG_LEVEL_INFO, __VA_ARGS__)
#else
#define KP_LOG_INFO(...) ((void)0)
#endif

#if VKDISPATCH_KP_LOG_LEVEL <= KOMPUTE_LOG_LEVEL_WARN
#define KP_LOG_WARN(...) VKDISPATCH_KP_LOG(KOMPUTE_LOG_LEVEL_WARN, __VA_ARGS__)
#else
#define KP_LOG_WARN(...) ((void)0)
#endif

#if VKDISPATCH_KP_LOG_LEVEL <= KOMPUTE_LOG_LEVEL_ERROR
#define KP_LOG_ERROR(...) VKDISPATCH_KP_LOG(KOMPUTE_LOG_LEVEL_ERROR, __VA_ARGS__)
#else
#define KP_LOG_ERROR(...) ((void)0)
#endif
