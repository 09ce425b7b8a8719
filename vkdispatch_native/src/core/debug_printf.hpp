#pragma once
// Shader printf in debug mode: the Khronos validation layer's printf buffer size, and the
// layer's printf messages turned into log lines.
//
// Thread safety: logShaderPrintf may be called from any thread (the layer calls it from the
// thread that waits for the work). PrintfBufferSetting changes the process environment: create
// instances in debug mode from one thread at a time.
#include <string>

#include "vkdispatch/vk.hpp"

namespace vkdispatch {

/// While alive, makes the validation layer of an instance created now keep
/// VKDISPATCH_PRINTF_BUFFER_SIZE bytes (256 KiB by default) of printf output per dispatch.
///
/// Debian 12's layer (1.3.239, before VK_EXT_layer_settings) reads the size only from a layer
/// settings file, as newer layers still can, and reads that file when the instance is created:
/// so a file holding just this setting is written to a private folder named in
/// VK_LAYER_SETTINGS_PATH, and both go away with this object. A settings file of the user's own
/// is left in charge. Throws InvalidArgumentError for a bad VKDISPATCH_PRINTF_BUFFER_SIZE.
class PrintfBufferSetting {
public:
    PrintfBufferSetting();
    ~PrintfBufferSetting();
    PrintfBufferSetting(const PrintfBufferSetting&) = delete;
    PrintfBufferSetting& operator=(const PrintfBufferSetting&) = delete;

private:
    std::string m_folder;  // the temporary settings folder; empty when none was written
};

/// Logs one message the layer sent under its debug printf id: a printed line as
/// "shader printf: <text>", a full buffer as a warning that lines were dropped and what to do.
void logShaderPrintf(VkDebugUtilsMessageSeverityFlagBitsEXT severity, const std::string& message);

}  // namespace vkdispatch
