#include "kompute/logger/Logger.hpp"

#include <cstdio>
#include <cstring>

#include "vkdispatch/log.hpp"

namespace kp::logger {
namespace {

vkdispatch::LogLevel nativeLevel(int level) {
    if (level <= KOMPUTE_LOG_LEVEL_DEBUG) return vkdispatch::LogLevel::Verbose;
    if (level == KOMPUTE_LOG_LEVEL_INFO) return vkdispatch::LogLevel::Info;
    if (level == KOMPUTE_LOG_LEVEL_WARN) return vkdispatch::LogLevel::Warning;
    return vkdispatch::LogLevel::Error;
}

const char* levelName(int level) {
    static const char* const kNames[] = {"trace", "debug", "info", "warn", "error", "critical"};
    return level >= 0 && level <= KOMPUTE_LOG_LEVEL_CRITICAL ? kNames[level] : "error";
}

// The file name without its folders, as Kompute prints it.
const char* baseName(const char* path) {
    const char* slash = std::strrchr(path, '/');
    return slash != nullptr ? slash + 1 : path;
}

}  // namespace

void write(int level, const char* file, int line, const std::string& message) {
    if (vkdispatch::hasLogSink()) {
        vkdispatch::log(nativeLevel(level), message);
        return;
    }
    // A plain C++ program: Kompute's own default prints every compiled-in message.
    std::fprintf(stderr, "[%s] [%s:%d] %s\n", levelName(level), baseName(file), line,
                 message.c_str());
}

}  // namespace kp::logger
