#include "vkdispatch/compiler.hpp"

#include <shaderc/shaderc.hpp>

namespace vkdispatch {

struct Compiler::Impl {
    shaderc::Compiler compiler;
};

Compiler::Compiler() : m_impl(std::make_unique<Impl>()) {}
Compiler::~Compiler() = default;

CompileResult Compiler::compileCompute(const std::string& glsl, const std::string& name,
                                       Optimization optimization) const {
    shaderc::CompileOptions options;
    options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
    options.SetTargetSpirv(shaderc_spirv_version_1_5);
    options.SetOptimizationLevel(static_cast<shaderc_optimization_level>(optimization));
    const shaderc::SpvCompilationResult result = m_impl->compiler.CompileGlslToSpv(
        glsl, shaderc_glsl_compute_shader, name.c_str(), "main", options);
    CompileResult out;
    out.ok = result.GetCompilationStatus() == shaderc_compilation_status_success;
    out.log = result.GetErrorMessage();
    if (out.ok) out.spirv.assign(result.cbegin(), result.cend());
    return out;
}

std::string Compiler::version() {
    unsigned int version = 0, revision = 0;
    shaderc_get_spv_version(&version, &revision);
    return "shaderc-spv" + std::to_string(version) + "." + std::to_string(revision) + "-vk1.2";
}

}  // namespace vkdispatch
