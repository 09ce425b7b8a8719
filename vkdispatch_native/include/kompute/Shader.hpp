#pragma once
// kp::Shader::compileSource: GLSL compute source to SPIR-V words in-process (shaderc, as the rest
// of vkdispatch compiles), so Kompute programs need no glslangValidator step.
#include <cstdint>
#include <string>
#include <vector>

namespace kp {

class Shader {
public:
    /// Throws std::runtime_error with the compiler's log when `source` does not compile.
    static std::vector<uint32_t> compileSource(const std::string& source);
};

}  // namespace kp
