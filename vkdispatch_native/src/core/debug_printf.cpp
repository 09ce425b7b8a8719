#include "debug_printf.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "vkdispatch/errors.hpp"
#include "vkdispatch/log.hpp"

namespace vkdispatch {
namespace {

// The validation layer keeps 1,024 bytes of shader printf output per dispatch by default (25
// lines of two values: a line takes 8 words plus one per value) and drops the rest. 256 KiB
// holds 4,096 such lines; the layer allocates and clears the buffer for every recorded dispatch,
// so the size is a memory cost per dispatch in debug mode.
constexpr const char* kPrintfBufferVariable = "VKDISPATCH_PRINTF_BUFFER_SIZE";
constexpr unsigned long kDefaultPrintfBufferBytes = 256 * 1024;
constexpr unsigned long kMinPrintfBufferBytes = 128;  // the range the layer documents
constexpr unsigned long kMaxPrintfBufferBytes = 1024 * 1024;

unsigned long printfBufferBytes() {
    const char* text = std::getenv(kPrintfBufferVariable);
    if (text == nullptr || *text == '\0') return kDefaultPrintfBufferBytes;
    const std::string value(text);
    const bool digits = value.size() <= 8 && std::all_of(value.begin(), value.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    const unsigned long bytes = digits ? std::stoul(value) : 0;
    if (bytes < kMinPrintfBufferBytes || bytes > kMaxPrintfBufferBytes)
        throw InvalidArgumentError(std::string(kPrintfBufferVariable) +
                                   " must be a number of bytes from " +
                                   std::to_string(kMinPrintfBufferBytes) + " to " +
                                   std::to_string(kMaxPrintfBufferBytes) + ", got '" + value + "'");
    return bytes;
}

bool isFile(const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// Where the layer would find a settings file the user wrote (vkconfig's, the one named by
// VK_LAYER_SETTINGS_PATH, or one in the working directory); empty when there is none.
std::string userLayerSettings() {
    const char* named = std::getenv("VK_LAYER_SETTINGS_PATH");
    if (named != nullptr && *named != '\0') return named;
    const char* data_home = std::getenv("XDG_DATA_HOME");
    const char* home = std::getenv("HOME");
    const std::string share = data_home != nullptr && *data_home != '\0' ? data_home
                              : home != nullptr ? std::string(home) + "/.local/share"
                                                : std::string();
    const std::string vkconfig = share + "/vulkan/settings.d/vk_layer_settings.txt";
    if (!share.empty() && isFile(vkconfig)) return vkconfig;
    return isFile("vk_layer_settings.txt") ? "vk_layer_settings.txt" : std::string();
}

// Older layers put "<severity>: [ <id> ] <objects> | MessageID = 0x<n> | " before the printed
// text, newer ones send the text alone.
std::string printedText(const std::string& message) {
    const size_t marker = message.find("| MessageID = 0x");
    if (marker == std::string::npos) return message;
    const size_t text = message.find(" | ", marker + 1);
    return text == std::string::npos ? message : message.substr(text + 3);
}

std::string printfTruncatedAdvice() {
    return std::string("shader printf: lines were dropped: a dispatch printed more than the "
                       "validation layer's printf buffer holds (") +
           kPrintfBufferVariable + " bytes per dispatch, " +
           std::to_string(kDefaultPrintfBufferBytes) +
           " by default). To see every line, print from fewer invocations (inside vc.if_block) "
           "or set " + kPrintfBufferVariable + " (up to " +
           std::to_string(kMaxPrintfBufferBytes) + ") before vkdispatch initializes";
}

}  // namespace

void logShaderPrintf(VkDebugUtilsMessageSeverityFlagBitsEXT severity, const std::string& message) {
    // The layer tells of a full buffer once per dispatch, as a warning under the printf id.
    if ((severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) &&
        message.find("truncated") != std::string::npos) {
        log(LogLevel::Warning, printfTruncatedAdvice());
        return;
    }
    log(LogLevel::Warning, "shader printf: " + printedText(message));
}

PrintfBufferSetting::PrintfBufferSetting() {
    const unsigned long bytes = printfBufferBytes();
    const std::string existing = userLayerSettings();
    if (!existing.empty()) {
        log(LogLevel::Info, "debug printf: the layer settings in '" + existing +
                                "' are used, so its khronos_validation.printf_buffer_size "
                                "applies (1024 bytes when unset), not " +
                                kPrintfBufferVariable);
        return;
    }
    std::error_code no_temp;
    std::string folder =
        (std::filesystem::temp_directory_path(no_temp) / "vkdispatch-layer-XXXXXX").string();
    if (no_temp || mkdtemp(folder.data()) == nullptr) {
        log(LogLevel::Warning, "debug printf: cannot create a folder for the layer settings; "
                               "the layer keeps its 1024-byte printf buffer");
        return;
    }
    m_folder = folder;
    std::ofstream(m_folder + "/vk_layer_settings.txt")
        << "khronos_validation.printf_buffer_size = " << bytes << "\n";
    setenv("VK_LAYER_SETTINGS_PATH", m_folder.c_str(), 1);
}

PrintfBufferSetting::~PrintfBufferSetting() {
    if (m_folder.empty()) return;
    unsetenv("VK_LAYER_SETTINGS_PATH");
    std::error_code ignored;
    std::filesystem::remove_all(m_folder, ignored);
}

}  // namespace vkdispatch
