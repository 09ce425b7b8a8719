#include "kompute/Shader.hpp"

#include <stdexcept>

#include "vkdispatch/compiler.hpp"

namespace kp {

std::vector<uint32_t> Shader::compileSource(const std::string& source) {
    static const vkdispatch::Compiler compiler;  // thread-safe: compiles are guarded inside
    auto result = compiler.compileCompute(source, "kp::Shader");
    if (!result.ok) throw std::runtime_error("Kompute Shader failed to compile: " + result.log);
    return std::move(result.spirv);
}

}  // namespace kp
