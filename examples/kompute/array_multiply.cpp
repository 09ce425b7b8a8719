// Kompute's array-multiply example on vkdispatch's kp API: out = a * b on the GPU, its GLSL
// compiled in-process. Prints the result and exits with status 1 if it is wrong.
#include <cstdio>
#include <vector>

#include <kompute/Kompute.hpp>

static const char* kShader = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { float a[]; };
layout(set = 0, binding = 1) buffer B { float b[]; };
layout(set = 0, binding = 2) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = a[i] * b[i];
}
)";

int main() {
    kp::Manager mgr;
    auto a = mgr.tensor({2.0f, 4.0f, 6.0f});
    auto b = mgr.tensor({0.0f, 1.0f, 2.0f});
    auto out = mgr.tensor({0.0f, 0.0f, 0.0f});
    const std::vector<std::shared_ptr<kp::Memory>> params = {a, b, out};

    auto algorithm = mgr.algorithm(params, kp::Shader::compileSource(kShader));
    mgr.sequence()
        ->record<kp::OpSyncDevice>(params)
        ->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpSyncLocal>(params)
        ->eval();

    const std::vector<float> result = out->vector();
    std::printf("out = [%g, %g, %g]\n", result[0], result[1], result[2]);
    return result == std::vector<float>{0.0f, 4.0f, 12.0f} ? 0 : 1;
}
