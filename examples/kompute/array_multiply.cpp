// Kompute's array-multiply example on vkdispatch's kp API: out = a * b on the GPU, its GLSL
// (shaders/array_multiply.comp, which array_multiply.py uses too) compiled in-process. Prints
// the result and exits with status 1 if it is wrong.
#include <cstdio>
#include <vector>

#include <kompute/Kompute.hpp>

#include "example_shader.hpp"

int main() {
    kp::Manager mgr;
    auto a = mgr.tensor({2.0f, 4.0f, 6.0f});
    auto b = mgr.tensor({0.0f, 1.0f, 2.0f});
    auto out = mgr.tensor({0.0f, 0.0f, 0.0f});
    const std::vector<std::shared_ptr<kp::Memory>> params = {a, b, out};

    const auto spirv = kp::Shader::compileSource(exampleShader("array_multiply.comp"));
    auto algorithm = mgr.algorithm(params, spirv);
    mgr.sequence()
        ->record<kp::OpSyncDevice>(params)
        ->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpSyncLocal>(params)
        ->eval();

    const std::vector<float> result = out->vector();
    std::printf("out = [%g, %g, %g]\n", result[0], result[1], result[2]);
    return result == std::vector<float>{0.0f, 4.0f, 12.0f} ? 0 : 1;
}
