// A Kompute program whose shader is compiled when it is built: CMake's vulkan_compile_shader
// turns shaders/saxpy.comp into saxpy.hpp, which declares kp::SAXPY_COMP_SPV. It computes
// y = a * x + y for random x and y, reports with Kompute's KP_LOG_* macros, and exits with
// status 1 if any element differs from the host's result.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <kompute/Kompute.hpp>
#include <kompute/logger/Logger.hpp>

#include "saxpy.hpp"

int main() {
    const uint32_t n = 1000;
    const float a = 2.5f;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
    std::vector<float> x(n), y(n);
    for (auto& v : x) v = uniform(rng);
    for (auto& v : y) v = uniform(rng);

    kp::Manager mgr;
    auto tx = mgr.tensor(x);
    auto ty = mgr.tensor(y);
    const std::vector<uint32_t> spirv(kp::SAXPY_COMP_SPV.begin(), kp::SAXPY_COMP_SPV.end());
    auto algorithm =
        mgr.algorithm({tx, ty}, spirv, {}, std::vector<float>{}, std::vector<float>{a});
    mgr.sequence()
        ->record<kp::OpSyncDevice>({tx, ty})
        ->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpSyncLocal>({ty})
        ->eval();

    const std::vector<float> result = ty->vector();
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
        const float expected = a * x[i] + y[i];  // the device may fuse it: compare with a margin
        if (std::fabs(result[i] - expected) > 1e-5f * (1.0f + std::fabs(expected))) {
            if (wrong == 0) KP_LOG_ERROR("y[{}] is {}, expected {}", i, result[i], expected);
            ++wrong;
        }
    }
    KP_LOG_INFO("saxpy of {} elements with a = {} ({} SPIR-V words): {} wrong", n, a,
                spirv.size(), wrong);
    return wrong == 0 ? 0 : 1;
}
