#include "spirv_check.hpp"

#include <spirv-tools/libspirv.hpp>

#include <cstdio>
#include <string>

#include "vkdispatch/errors.hpp"

namespace kp::detail {
namespace {

constexpr uint32_t kMagic = 0x07230203;
constexpr size_t kHeaderWords = 5;  // magic, version, generator, id bound, schema

spv_target_env environment(uint32_t vulkan_minor) {
    switch (vulkan_minor) {
        case 0: return SPV_ENV_VULKAN_1_0;
        case 1: return SPV_ENV_VULKAN_1_1;
        case 2: return SPV_ENV_VULKAN_1_2;
        default: return SPV_ENV_VULKAN_1_3;  // the newest this spirv-tools knows
    }
}

std::string hex(uint32_t word) {
    char text[11];
    std::snprintf(text, sizeof text, "0x%08x", static_cast<unsigned>(word));
    return text;
}

void checkHeader(const std::vector<uint32_t>& words) {
    if (words.size() < kHeaderWords)
        throw vkdispatch::InvalidArgumentError(
            "spirv: " + std::to_string(words.size()) + " words (" +
            std::to_string(words.size() * 4) + " bytes) are no SPIR-V module: its header alone "
            "is 5 words (magic number, version, generator, bound, schema)");
    if (words[0] != kMagic)
        throw vkdispatch::InvalidArgumentError("spirv: the first word is " + hex(words[0]) +
                                               ", not the SPIR-V magic number " + hex(kMagic));
}

}  // namespace

void checkSpirv(const std::vector<uint32_t>& words, uint32_t vulkan_minor) {
    checkHeader(words);
    spvtools::SpirvTools tools(environment(vulkan_minor));
    std::string log;
    tools.SetMessageConsumer([&log](spv_message_level_t, const char*,
                                    const spv_position_t& position, const char* message) {
        log += "\n  word " + std::to_string(position.index) + ": " + message;
    });
    spvtools::ValidatorOptions options;
    options.SetSkipBlockLayout(true);
    options.SetAllowLocalSizeId(true);
    if (!tools.Validate(words.data(), words.size(), options))
        throw vkdispatch::InvalidArgumentError(
            "spirv: the module (" + std::to_string(words.size()) +
            " words) is not valid SPIR-V for Vulkan 1." +
            std::to_string(vulkan_minor < 3 ? vulkan_minor : 3) + ", says spirv-tools' validator:" +
            log);
}

}  // namespace kp::detail
