#pragma once
// GLSL -> SPIR-V compilation with shaderc, in-process.
//
// Thread safety: compile() may be called from many threads at once (shaderc's compiler object is
// documented as safe to share; each call builds its own options object).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vkdispatch {

enum class Optimization : int { None = 0, Size = 1, Performance = 2 };

struct CompileResult {
    bool ok = false;
    std::vector<uint32_t> spirv;
    std::string log;  // compiler errors and warnings, empty when clean
};

class Compiler {
public:
    Compiler();
    ~Compiler();
    Compiler(const Compiler&) = delete;
    Compiler& operator=(const Compiler&) = delete;

    /// Compiles one compute shader for Vulkan 1.2 (SPIR-V 1.5). `name` labels messages.
    CompileResult compileCompute(const std::string& glsl, const std::string& name,
                                 Optimization optimization = Optimization::Performance) const;
    /// A string that changes whenever the compiler would produce different code (cache keys).
    static std::string version();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace vkdispatch
