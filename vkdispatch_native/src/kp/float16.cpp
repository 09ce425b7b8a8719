#include "kompute/Float16.hpp"

#include <cmath>
#include <cstring>

namespace kp {
namespace {

// binary32 and binary16 layouts: sign, exponent (bias 127 / 15), fraction (23 / 10 bits).
constexpr uint32_t kFloatExponentMask = 0x7f800000;
constexpr uint32_t kFloatAbsMask = 0x7fffffff;
constexpr uint32_t kDroppedBits = 23 - 10;            // fraction bits binary16 lacks
constexpr uint32_t kRebias = (127 - 15) << 10;        // exponent bias difference, in place
constexpr uint32_t kFirstNormal = (127 - 14) << 23;   // 2^-14, binary16's smallest normal
constexpr uint32_t kFirstInfinite = (127 + 16) << 23;  // 2^16: past every finite binary16
constexpr uint16_t kInfinity = 0x7c00;
constexpr uint16_t kQuietBit = 0x0200;

uint32_t bitsOf(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

float floatOf(uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// `value` >> `shift` (1 to 31), rounded to nearest, ties to even.
uint32_t shiftRounded(uint32_t value, uint32_t shift) {
    const uint32_t kept = value >> shift;
    const uint32_t rest = value & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    return kept + (rest > half || (rest == half && (kept & 1)));
}

// The binary16 bits of |value| for a finite `abs` (its binary32 bits without the sign).
uint16_t finiteMagnitude(uint32_t abs) {
    if (abs >= kFirstInfinite) return kInfinity;
    if (abs >= kFirstNormal) {
        // Rebiasing the exponent in place keeps exponent and fraction adjacent, so a rounding
        // carry out of the fraction bumps the exponent, up to infinity past 65504 (as it should).
        return static_cast<uint16_t>(shiftRounded(abs, kDroppedBits) - kRebias);
    }
    // Subnormal (or zero): the count of 2^-24 units in the value. Below 2^-25 everything rounds
    // to zero, and the shift would leave the 32 bits.
    const uint32_t exponent = abs >> 23;
    if (exponent < 127 - 25) return 0;
    const uint32_t significand = (abs & 0x7fffff) | 0x800000;  // with the implicit leading 1
    return static_cast<uint16_t>(shiftRounded(significand, 126 - exponent));
}

}  // namespace

float16::float16(float value) noexcept {
    const uint32_t bits = bitsOf(value);
    const uint32_t abs = bits & kFloatAbsMask;
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
    if (abs > kFloatExponentMask) {  // NaN: quiet, keeping the payload's top bits
        const uint32_t payload = (abs >> kDroppedBits) & 0x3ff;
        m_bits = static_cast<uint16_t>(sign | kInfinity | kQuietBit | payload);
    } else {
        m_bits = sign | (abs == kFloatExponentMask ? kInfinity : finiteMagnitude(abs));
    }
}

float16::operator float() const noexcept {
    const uint32_t sign = uint32_t(m_bits & 0x8000) << 16;
    const uint32_t exponent = (m_bits >> 10) & 0x1f;
    const uint32_t fraction = m_bits & 0x3ff;
    if (exponent == 0x1f) return floatOf(sign | kFloatExponentMask | (fraction << kDroppedBits));
    if (exponent != 0)
        return floatOf(sign | (((exponent << 10) + kRebias) << kDroppedBits) |
                       (fraction << kDroppedBits));
    // Subnormal or zero: fraction units of 2^-24, exact in a float.
    const float magnitude = std::ldexp(static_cast<float>(fraction), -24);
    return sign ? -magnitude : magnitude;
}

}  // namespace kp
