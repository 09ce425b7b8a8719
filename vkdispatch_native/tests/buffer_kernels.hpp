#pragma once
// Small uint kernels and plan builders shared by the command-recording tests
// (test_commands.cpp, test_recorded_barriers.cpp). Every kernel takes `n` as its only push
// constant and runs 64 invocations per workgroup.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "compute_helpers.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_set.hpp"

namespace vkdispatch::test {

// data[i] = data[i] * 3 + 1 for i < pc.n (a dependent read-modify-write).
inline const char* const kTriplePlusOne = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer D { uint data[]; };
layout(push_constant) uniform PC { uint n; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) data[i] = data[i] * 3u + 1u;
}
)";

// dst[i] = src[i] * 3 + 1 for i < pc.n: src is only read, dst only written.
inline const char* const kTripleInto = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer S { uint src[]; };
layout(set = 0, binding = 1) writeonly buffer D { uint dst[]; };
layout(push_constant) uniform PC { uint n; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) dst[i] = src[i] * 3u + 1u;
}
)";

inline uint32_t triplePlusOne(uint32_t value) { return value * 3u + 1u; }

inline std::vector<uint32_t> randomWords(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<uint32_t> out(n);
    for (auto& v : out) v = rng() % 100000u;
    return out;
}

inline uint32_t groupsFor(size_t n) { return static_cast<uint32_t>((n + 63) / 64); }

/// `count` copies of the 32-bit `value` as push-constant bytes.
inline std::vector<uint8_t> repeatedWord(uint32_t value, size_t count) {
    std::vector<uint8_t> out(4 * count);
    for (size_t k = 0; k < count; ++k) std::memcpy(out.data() + 4 * k, &value, 4);
    return out;
}

// A plan over one storage buffer (read and written) with its set bound to `buffer`.
struct OneBufferPlan {
    ComputePlan plan;
    DescriptorSet set;
    OneBufferPlan(Context& context, const char* glsl, const char* name, Buffer& buffer)
        : plan(context, compileOrFail(glsl, name), {BindingType::StorageBuffer}, 4, name),
          set(plan) {
        set.bindBuffer(0, buffer, 0, 0, false, true, true);
    }
};

// kTripleInto with its set bound to `src` (read) and `dst` (written).
struct TripleIntoPlan {
    ComputePlan plan;
    DescriptorSet set;
    TripleIntoPlan(Context& context, Buffer& src, Buffer& dst)
        : plan(context, compileOrFail(kTripleInto, "triple_into"),
               {BindingType::StorageBuffer, BindingType::StorageBuffer}, 4, "triple_into"),
          set(plan) {
        set.bindBuffer(0, src, 0, 0, false, true, false);
        set.bindBuffer(1, dst, 0, 0, false, false, true);
    }
};

}  // namespace vkdispatch::test
