#pragma once
// Helpers shared by the Kompute API tests.
#include <memory>
#include <random>
#include <vector>

#include "kompute/Kompute.hpp"

namespace vkdispatch::test {

/// `n` floats uniform in [low, high), reproducible from `seed`.
inline std::vector<float> randomFloats(size_t n, unsigned seed, float low = -8.0f,
                                       float high = 8.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(low, high);
    std::vector<float> out(n);
    for (auto& v : out) v = uniform(rng);
    return out;
}

/// `n` integers uniform in [-100, 100] as T, reproducible from `seed`.
template <typename T>
std::vector<T> randomValues(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> values(-100, 100);
    std::vector<T> out(n);
    for (auto& v : out) v = static_cast<T>(values(rng));
    return out;
}

/// y[i] = x[i] * 3 + 1 over buffers x (binding 0) and y (binding 1), one workgroup per element.
inline const char* const kAffine = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() { uint i = gl_GlobalInvocationID.x; y[i] = x[i] * 3.0 + 1.0; }
)";

/// out[x + y * width] = 2 * image(x, y) + 1: a shader reading a 1-channel float image, one
/// workgroup per texel.
inline const char* const kReadImage = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D source;
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
    ivec2 p = ivec2(gl_WorkGroupID.xy);
    o[p.x + p.y * gl_NumWorkGroups.x] = 2.0 * imageLoad(source, p).r + 1.0;
}
)";

/// Records into `sequence` the upload of `input`, a dispatch of `algorithm` and the download of
/// `output`, then runs it.
inline void uploadDispatchDownload(kp::Sequence& sequence,
                                   const std::shared_ptr<kp::Algorithm>& algorithm,
                                   const std::shared_ptr<kp::Memory>& input,
                                   const std::shared_ptr<kp::Memory>& output) {
    sequence.record<kp::OpSyncDevice>({input})
        ->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpSyncLocal>({output})
        ->eval();
}

}  // namespace vkdispatch::test
