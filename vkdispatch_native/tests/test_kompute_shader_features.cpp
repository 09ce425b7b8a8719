// kp::detail::checkShaderFeatures, which kp::Algorithm runs on every module, over compiled
// shaders and descriptions of devices without the features they need (no device: lavapipe and
// most GPUs offer them all).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compute_helpers.hpp"
#include "kompute/Kompute.hpp"
#include "kp/shader_features.hpp"

namespace {

using vkdispatch::test::messageOf;

// float16_t buffers and float16_t arithmetic: capabilities StorageBuffer16BitAccess and Float16.
const char* kHalfArithmetic = R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer X { float16_t x[]; };
void main() { uint i = gl_GlobalInvocationID.x; x[i] = x[i] * float16_t(3.0); }
)";

// float16_t buffers with float arithmetic: StorageBuffer16BitAccess only.
const char* kHalfStorage = R"(#version 450
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer X { float16_t x[]; };
void main() { uint i = gl_GlobalInvocationID.x; x[i] = float16_t(float(x[i]) * 3.0); }
)";

// A device that offers every feature the check knows, named for the messages.
vkdispatch::DeviceInfo everything() {
    vkdispatch::DeviceInfo device;
    device.device_name = "test device";
    device.float_16_support = device.storage_buffer_16_bit_access =
        device.uniform_and_storage_buffer_16_bit_access = device.storage_push_constant_16 =
            device.int_16_support = device.int_64_support = device.float_64_support = true;
    return device;
}

std::string refusal(const char* source, const vkdispatch::DeviceInfo& device) {
    const auto spirv = kp::Shader::compileSource(source);
    return messageOf([&] { kp::detail::checkShaderFeatures(spirv, device); });
}

}  // namespace

TEST(KomputeShaderFeatures, Float16ArithmeticNeedsShaderFloat16) {
    auto device = everything();
    EXPECT_EQ(refusal(kHalfArithmetic, device), "");
    device.float_16_support = false;
    const auto message = refusal(kHalfArithmetic, device);
    EXPECT_NE(message.find("spirv: "), std::string::npos) << message;
    EXPECT_NE(message.find("'test device'"), std::string::npos) << message;
    EXPECT_NE(message.find("shaderFloat16, for capability Float16"), std::string::npos) << message;
    EXPECT_EQ(message.find("storageBuffer16BitAccess,"), std::string::npos) << message;
    // Storage with float arithmetic is what such a device runs.
    EXPECT_EQ(refusal(kHalfStorage, device), "");
}

TEST(KomputeShaderFeatures, Float16BuffersNeedStorageBuffer16BitAccess) {
    auto device = everything();
    device.storage_buffer_16_bit_access = false;
    const auto message = refusal(kHalfStorage, device);
    EXPECT_NE(message.find("storageBuffer16BitAccess, for capability StorageBuffer16BitAccess"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find("shaderFloat16"), std::string::npos) << message;
    // Every missing feature is named, not just the first.
    device.float_16_support = false;
    const auto both = refusal(kHalfArithmetic, device);
    EXPECT_NE(both.find("shaderFloat16,"), std::string::npos) << both;
    EXPECT_NE(both.find("storageBuffer16BitAccess,"), std::string::npos) << both;
}

TEST(KomputeShaderFeatures, DoubleArithmeticNeedsShaderFloat64) {
    auto device = everything();
    device.float_64_support = false;
    const auto message = refusal(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer X { double x[]; };
void main() { x[gl_GlobalInvocationID.x] *= 2.0lf; }
)", device);
    EXPECT_NE(message.find("shaderFloat64, for capability Float64"), std::string::npos) << message;
}
