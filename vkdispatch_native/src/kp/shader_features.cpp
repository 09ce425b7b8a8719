#include "shader_features.hpp"

#include <string>

#include "vkdispatch/errors.hpp"

namespace kp::detail {
namespace {

constexpr uint32_t kOpCapability = 17;
constexpr size_t kHeaderWords = 5;

// A SPIR-V capability (its number in the SPIR-V spec, section 3.31) and the Vulkan feature a
// device must have enabled for modules that declare it.
struct Requirement {
    uint32_t capability;
    const char* capability_name;
    const char* feature;
    bool vkdispatch::DeviceInfo::*offered;
    const char* use;  // what GLSL asks for it, and any cheaper way
};

constexpr Requirement kRequirements[] = {
    {9, "Float16", "shaderFloat16", &vkdispatch::DeviceInfo::float_16_support,
     "float16_t arithmetic (GL_EXT_shader_explicit_arithmetic_types_float16); float16_t buffers "
     "whose values are converted to float for arithmetic need only storageBuffer16BitAccess "
     "(GL_EXT_shader_16bit_storage)"},
    {4433, "StorageBuffer16BitAccess", "storageBuffer16BitAccess",
     &vkdispatch::DeviceInfo::storage_buffer_16_bit_access,
     "16-bit values in storage buffers (GL_EXT_shader_16bit_storage)"},
    {4434, "UniformAndStorageBuffer16BitAccess", "uniformAndStorageBuffer16BitAccess",
     &vkdispatch::DeviceInfo::uniform_and_storage_buffer_16_bit_access,
     "16-bit values in uniform buffers"},
    {4435, "StoragePushConstant16", "storagePushConstant16",
     &vkdispatch::DeviceInfo::storage_push_constant_16, "16-bit push constants"},
    {22, "Int16", "shaderInt16", &vkdispatch::DeviceInfo::int_16_support,
     "16-bit integer arithmetic"},
    {11, "Int64", "shaderInt64", &vkdispatch::DeviceInfo::int_64_support, "64-bit integers"},
    {10, "Float64", "shaderFloat64", &vkdispatch::DeviceInfo::float_64_support,
     "double arithmetic"},
};

std::vector<uint32_t> capabilities(const std::vector<uint32_t>& words) {
    std::vector<uint32_t> found;
    for (size_t at = kHeaderWords; at < words.size();) {
        const uint32_t count = words[at] >> 16, op = words[at] & 0xffff;
        if (count == 0 || at + count > words.size()) break;
        if (op == kOpCapability && count >= 2) found.push_back(words[at + 1]);
        at += count;
    }
    return found;
}

std::string missingText(const Requirement& requirement) {
    return std::string("\n  ") + requirement.feature + ", for capability " +
           requirement.capability_name + ": " + requirement.use;
}

}  // namespace

void checkShaderFeatures(const std::vector<uint32_t>& words,
                         const vkdispatch::DeviceInfo& device) {
    std::string missing;
    for (uint32_t capability : capabilities(words))
        for (const auto& requirement : kRequirements)
            if (requirement.capability == capability && !(device.*requirement.offered))
                missing += missingText(requirement);
    if (!missing.empty())
        throw vkdispatch::InvalidArgumentError(
            "spirv: the shader needs device features that '" + device.device_name +
            "' does not offer:" + missing);
}

}  // namespace kp::detail
