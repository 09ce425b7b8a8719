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
