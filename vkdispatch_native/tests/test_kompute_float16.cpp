// Half precision (Kompute issue #416): kp::float16 against an independent decoder and a
// nearest-value search over every binary16 value, and TensorT<kp::float16> through the device
// and through shaders that compute in float16_t and in float, against host computations on
// random data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "compute_helpers.hpp"
#include "kompute/Kompute.hpp"
#include "kompute_helpers.hpp"
#include "vkdispatch/log.hpp"

namespace {

using kp::float16;
using kp::Memory;
using vkdispatch::test::randomFloats;

const double kTiny = std::ldexp(1.0, -24);  // binary16's smallest subnormal

// The value of binary16 `bits` from the format's definition (NaN for NaNs).
double decode(uint16_t bits) {
    const int exponent = (bits >> 10) & 0x1f, fraction = bits & 0x3ff;
    const double sign = (bits & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0x1f)
        return fraction ? std::numeric_limits<double>::quiet_NaN()
                        : sign * std::numeric_limits<double>::infinity();
    if (exponent == 0) return sign * std::ldexp(fraction, -24);
    return sign * std::ldexp(1024 + fraction, exponent - 25);
}

// The binary16 bits nearest to `value` (ties to the even encoding), by searching every finite
// non-negative value; infinity from 65520 on, where IEEE rounding leaves the finite range.
uint16_t nearestBits(float value) {
    static const std::vector<double> finite = [] {
        std::vector<double> out;
        for (uint32_t bits = 0; bits <= 0x7bff; ++bits) out.push_back(decode(uint16_t(bits)));
        return out;
    }();
    const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
    const double magnitude = std::fabs(double(value));
    if (magnitude >= 65520.0) return sign | 0x7c00;
    const auto above = std::lower_bound(finite.begin(), finite.end(), magnitude);
    uint32_t best = uint32_t(above - finite.begin());
    if (best == finite.size() ||
        (best > 0 && magnitude - finite[best - 1] < finite[best] - magnitude) ||
        (best > 0 && magnitude - finite[best - 1] == finite[best] - magnitude && (best & 1)))
        --best;
    return uint16_t(sign | best);
}

std::vector<float16> toFloat16(const std::vector<float>& values) {
    std::vector<float16> out;
    for (float value : values) out.push_back(float16(value));
    return out;
}

// y = a * x + b over float16_t buffers x and y, y[i] = `expression` (a and b arrive as float push
// constants), with GLSL extension `extension`.
std::string axpbShader(const std::string& extension, const std::string& expression) {
    return "#version 450\n#extension " + extension + R"( : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer X { float16_t x[]; };
layout(set = 0, binding = 1) buffer Y { float16_t y[]; };
layout(push_constant) uniform P { float a; float b; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    y[i] = )" + expression + ";\n}\n";
}

// Runs `source` (from axpbShader) on `x` and returns y.
std::vector<float16> runAxpb(kp::Manager& mgr, const std::string& source,
                             const std::vector<float16>& x, float a, float b) {
    auto in = mgr.tensorT<float16>(x);
    auto out = mgr.tensorT<float16>(x.size());
    auto algorithm = mgr.algorithm<float, float>({in, out}, kp::Shader::compileSource(source), {},
                                                 {}, {a, b});
    vkdispatch::test::uploadDispatchDownload(*mgr.sequence(), algorithm, in, out);
    return out->vector();
}

#define KP_REQUIRE_DEVICE() VKD_REQUIRE_DEVICE()

}  // namespace

TEST(KomputeFloat16, EveryBinary16ValueConvertsToItsFloatAndBack) {
    for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
        const float value = float16::fromBits(uint16_t(bits));
        const double expected = decode(uint16_t(bits));
        if (std::isnan(expected)) {
            EXPECT_TRUE(std::isnan(value)) << bits;
            const uint16_t back = float16(value).bits();
            EXPECT_EQ(back & 0x7c00, 0x7c00) << bits;
            EXPECT_NE(back & 0x3ff, 0) << bits;  // still NaN, not infinity
            EXPECT_EQ(back & 0x8000, bits & 0x8000) << bits;
            continue;
        }
        EXPECT_EQ(double(value), expected) << bits;
        EXPECT_EQ(std::signbit(value), (bits & 0x8000) != 0) << bits;
        EXPECT_EQ(float16(value).bits(), bits) << bits;
    }
}

TEST(KomputeFloat16, FloatsRoundToTheNearestValueTiesToEven) {
    std::mt19937 rng(416);
    std::uniform_real_distribution<float> exponent(-27.0f, 17.0f);
    for (int i = 0; i < 200000; ++i) {
        const float value = (i & 1 ? -1.0f : 1.0f) * std::exp2(exponent(rng));
        ASSERT_EQ(float16(value).bits(), nearestBits(value)) << value;
    }
    // Ties and edges a random draw rarely hits.
    const float tiny = float(kTiny);
    for (float value : {65504.0f, 65519.99f, 65520.0f, 1e6f, 0.5f * tiny,
                        std::nextafter(0.5f * tiny, 1.0f), 1.5f * tiny, 2.5f * tiny,
                        std::ldexp(1.0f, -14), std::ldexp(2047.0f, -25),
                        1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11), -0.0f})
        EXPECT_EQ(float16(value).bits(), nearestBits(value)) << value;
    // A NaN whose payload lies only in the bits binary16 drops stays NaN, not infinity.
    const uint32_t low_payload_nan = 0x7f800001;
    float nan;
    std::memcpy(&nan, &low_payload_nan, sizeof nan);
    EXPECT_TRUE(std::isnan(float(float16(nan))));
    EXPECT_EQ(float16(std::numeric_limits<float>::infinity()).bits(), 0x7c00);
    EXPECT_EQ(float16(-std::numeric_limits<float>::infinity()).bits(), 0xfc00);
}

TEST(KomputeFloat16, IsADataTypeOfItsOwn) {
    static_assert(Memory::dataType<float16>() == Memory::DataTypes::eFloat16);
    static_assert(Memory::dataType<uint16_t>() == Memory::DataTypes::eUnsignedShort);
    EXPECT_EQ(kp::elementSize(Memory::DataTypes::eFloat16), 2u);
    EXPECT_EQ(kp::toString(Memory::DataTypes::eFloat16), "eFloat16");
}

class KomputeFloat16Device : public ::testing::Test {
protected:
    void TearDown() override {
        for (const auto& error : vkdispatch::takeValidationErrors()) ADD_FAILURE() << error;
    }
};

TEST_F(KomputeFloat16Device, TensorsRoundTripThroughTheDevice) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto values = toFloat16(randomFloats(301, 1, -1000.0f, 1000.0f));
    auto tensor = mgr.tensorT<float16>(values);
    EXPECT_EQ(tensor->dataType(), Memory::DataTypes::eFloat16);
    EXPECT_EQ(tensor->memorySize(), 2 * values.size());
    auto sequence = mgr.sequence();
    sequence->eval<kp::OpSyncDevice>({tensor});
    tensor->setData(std::vector<float16>(values.size()));  // only the device keeps the values
    sequence->eval<kp::OpSyncLocal>({tensor});
    const auto back = tensor->vector();
    ASSERT_EQ(back.size(), values.size());
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(back[i].bits(), values[i].bits()) << i;
}

TEST_F(KomputeFloat16Device, ShadersComputeInFloat16Arithmetic) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto x = toFloat16(randomFloats(1000, 2));
    const float a = 1.7f, b = -2.3f;
    const auto y = runAxpb(mgr,
                           axpbShader("GL_EXT_shader_explicit_arithmetic_types_float16",
                                      "float16_t(a) * x[i] + float16_t(b)"),
                           x, a, b);
    // Two roundings to binary16 (after the product and after the sum; or one, fused), each off
    // by at most half a unit in the last place (2^-11 relative) of what it rounds, or half a
    // subnormal unit.
    const double a16 = float16(a), b16 = float16(b);
    for (size_t i = 0; i < x.size(); ++i) {
        const double product = a16 * float(x[i]), exact = product + b16;
        const double bound =
            std::ldexp(std::fabs(product), -10) + std::ldexp(std::fabs(exact), -11) + kTiny;
        EXPECT_NEAR(float(y[i]), exact, bound) << i << ": x = " << float(x[i]);
    }
}

TEST_F(KomputeFloat16Device, ShadersComputeInFloatOverFloat16Storage) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto x = toFloat16(randomFloats(1000, 3));
    const float a = -0.37f, b = 5.1f;
    const auto y = runAxpb(
        mgr, axpbShader("GL_EXT_shader_16bit_storage", "float16_t(a * float(x[i]) + b)"), x, a, b);
    // The float result, rounded once to binary16 (the conversion's rounding mode is the
    // device's: within one unit in the last place, 2^-10 relative, or one subnormal unit).
    for (size_t i = 0; i < x.size(); ++i) {
        const float exact = a * float(x[i]) + b;
        EXPECT_NEAR(float(y[i]), exact, std::ldexp(std::fabs(exact), -10) + kTiny) << i;
    }
}

// Three float16 push constants are 6 bytes, which Vulkan cannot push as they are (ranges and
// pushes are whole 4-byte words): the algorithm rounds its range up and pads the push.
TEST_F(KomputeFloat16Device, Float16PushConstantsEndingMidWord) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto x = randomFloats(500, 4);
    const std::vector<float16> constants = toFloat16({1.37f, -0.625f, 3.1f});
    const std::string source = R"(#version 450
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform P { float16_t a; float16_t b; float16_t c; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    y[i] = float(a) * x[i] + float(b) * float(c);
}
)";
    auto in = mgr.tensorT<float>(x);
    auto out = mgr.tensorT<float>(x.size());
    auto algorithm = mgr.algorithm<float, float16>({in, out}, kp::Shader::compileSource(source),
                                                   {}, {}, constants);
    EXPECT_EQ(algorithm->getPushConstants<float16>().size(), 3u);
    vkdispatch::test::uploadDispatchDownload(*mgr.sequence(), algorithm, in, out);
    const auto y = out->vector();
    const float a = constants[0], b = constants[1], c = constants[2];
    for (size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(y[i], a * x[i] + b * c, 1e-5f * (std::fabs(a * x[i]) + std::fabs(b * c)))
            << i;
}

// A float16 specialization constant (2 bytes in the map entry) reaches the shader.
TEST_F(KomputeFloat16Device, Float16SpecializationConstants) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto x = randomFloats(300, 5);
    const std::vector<float16> constants = toFloat16({-2.71875f, 0.4375f});
    const std::string source = R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(constant_id = 0) const float16_t a = float16_t(1.0);
layout(constant_id = 1) const float16_t b = float16_t(0.0);
layout(set = 0, binding = 0) buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    y[i] = float(a) * x[i] + float(b);
}
)";
    auto in = mgr.tensorT<float>(x);
    auto out = mgr.tensorT<float>(x.size());
    auto algorithm = mgr.algorithm<float16, float>({in, out}, kp::Shader::compileSource(source),
                                                   {}, constants, {});
    EXPECT_EQ(algorithm->getSpecializationConstants<float16>().size(), 2u);
    vkdispatch::test::uploadDispatchDownload(*mgr.sequence(), algorithm, in, out);
    const auto y = out->vector();
    const float a = constants[0], b = constants[1];
    for (size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(y[i], a * x[i] + b, 1e-5f * (std::fabs(a * x[i]) + std::fabs(b))) << i;
}
