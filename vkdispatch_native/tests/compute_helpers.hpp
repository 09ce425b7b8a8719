#pragma once
// Helpers shared by the compute tests: GLSL compilation and typed buffer transfers.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "device_fixture.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compiler.hpp"
#include "vkdispatch/transfer_engine.hpp"

namespace vkdispatch::test {

inline Context& context() { return *deviceEnvironment().context; }

inline TransferEngine& transfers() {
    static TransferEngine engine(context());
    return engine;
}

/// What `action` throws (any std::exception), or "" when it returns.
inline std::string messageOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const std::exception& error) {
        return error.what();
    }
    return "";
}

inline std::vector<uint32_t> compileOrFail(const std::string& glsl, const std::string& name) {
    static Compiler compiler;
    const CompileResult result = compiler.compileCompute(glsl, name);
    EXPECT_TRUE(result.ok) << result.log;
    return result.spirv;
}

template <typename T>
void upload(TransferEngine& engine, Buffer& buffer, const std::vector<T>& values) {
    engine.write(buffer, values.data(), values.size() * sizeof(T), 0, -1);
}

template <typename T>
void upload(Buffer& buffer, const std::vector<T>& values) {
    upload(transfers(), buffer, values);
}

template <typename T>
std::vector<T> download(TransferEngine& engine, Buffer& buffer, size_t count,
                        int queue_index = 0) {
    std::vector<T> out(count);
    engine.read(buffer, out.data(), count * sizeof(T), 0, queue_index);
    return out;
}

template <typename T>
std::vector<T> download(Buffer& buffer, size_t count, int queue_index = 0) {
    return download<T>(transfers(), buffer, count, queue_index);
}

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
    const auto* p = reinterpret_cast<const uint8_t*>(values.data());
    return std::vector<uint8_t>(p, p + values.size() * sizeof(T));
}

}  // namespace vkdispatch::test
