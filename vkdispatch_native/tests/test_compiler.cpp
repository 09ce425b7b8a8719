#include <gtest/gtest.h>

#include <thread>

#include "vkdispatch/compiler.hpp"

using namespace vkdispatch;

namespace {
const char* kValid = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { float data[]; };
void main() { data[gl_GlobalInvocationID.x] *= 2.0; }
)";
constexpr uint32_t kSpirvMagic = 0x07230203;
}  // namespace

TEST(Compiler, ValidComputeShaderYieldsSpirv) {
    Compiler compiler;
    const CompileResult result = compiler.compileCompute(kValid, "double");
    ASSERT_TRUE(result.ok) << result.log;
    ASSERT_GT(result.spirv.size(), 5u);
    EXPECT_EQ(result.spirv[0], kSpirvMagic);
}

TEST(Compiler, SyntaxErrorReportsNameAndLine) {
    Compiler compiler;
    const CompileResult result =
        compiler.compileCompute("#version 450\nvoid main() {\n  float x = ;\n}\n", "broken");
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(result.spirv.empty());
    EXPECT_NE(result.log.find("broken:3"), std::string::npos) << result.log;
}

TEST(Compiler, ConcurrentCompilesAllSucceed) {
    Compiler compiler;
    std::vector<std::thread> threads;
    std::vector<int> ok(8, 0);
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&, i] { ok[i] = compiler.compileCompute(kValid, "t").ok; });
    for (auto& t : threads) t.join();
    EXPECT_EQ(ok, std::vector<int>(8, 1));
}

TEST(Compiler, VersionIsStable) {
    EXPECT_FALSE(Compiler::version().empty());
    EXPECT_EQ(Compiler::version(), Compiler::version());
}
