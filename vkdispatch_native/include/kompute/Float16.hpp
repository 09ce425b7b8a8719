#pragma once
// kp::float16: an IEEE 754 binary16 value (GLSL's float16_t, numpy's float16), the element type
// of half-precision tensors and images (TensorT<kp::float16>, Memory::DataTypes::eFloat16).
//
// It is a storage type, not an arithmetic one: C++17 has no portable 16-bit float (_Float16 is
// a compiler extension, std::float16_t arrives in C++23), and Kompute's uint16_t already means
// DataTypes::eUnsignedShort, so the element type needs a type of its own. Values convert
// exactly to float (implicitly) and from float by rounding to nearest, ties to even
// (explicitly, as C++23 asks of a narrowing conversion to std::float16_t); the bits are those of
// every other binary16 type, so data from one can be copied in with Memory::setData.
//
// Thread safety: a value type.
#include <cstdint>

namespace kp {

class float16 {
public:
    /// +0.
    constexpr float16() noexcept = default;
    /// `value` rounded to the nearest binary16 value, ties to even; beyond +-65504 it rounds to
    /// infinity as IEEE rounding does (from 65520 on), NaN stays NaN.
    explicit float16(float value) noexcept;
    /// The exact value (every binary16 value is a float).
    operator float() const noexcept;

    /// The value whose binary16 encoding is `bits` (sign, 5 exponent bits, 10 fraction bits).
    static constexpr float16 fromBits(uint16_t bits) noexcept {
        float16 value;
        value.m_bits = bits;
        return value;
    }
    constexpr uint16_t bits() const noexcept { return m_bits; }

private:
    uint16_t m_bits = 0;
};

static_assert(sizeof(float16) == 2, "kp::float16 must have the size of a GLSL float16_t");

}  // namespace kp
