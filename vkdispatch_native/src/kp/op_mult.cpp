#include "kompute/operations/OpMult.hpp"

#include <stdexcept>
#include <string>

#include "kompute/Shader.hpp"

namespace kp {
namespace {

const char* kMultiply = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer L { float lhs[]; };
layout(set = 0, binding = 1) buffer R { float rhs[]; };
layout(set = 0, binding = 2) buffer O { float result[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    result[i] = lhs[i] * rhs[i];
}
)";

const std::vector<uint32_t>& multiplySpirv() {
    static const std::vector<uint32_t> words = Shader::compileSource(kMultiply);
    return words;
}

const std::shared_ptr<Algorithm>& rebuilt(const std::vector<std::shared_ptr<Memory>>& objects,
                                          const std::shared_ptr<Algorithm>& algorithm) {
    if (objects.size() != 3)
        throw std::runtime_error("Kompute OpMult expected 3 mem objects but got " +
                                 std::to_string(objects.size()));
    if (!algorithm) throw std::runtime_error("Kompute OpMult was given no algorithm");
    algorithm->rebuild(objects, multiplySpirv());
    return algorithm;
}

}  // namespace

OpMult::OpMult(const std::vector<std::shared_ptr<Memory>>& mem_objects,
               const std::shared_ptr<Algorithm>& algorithm)
    : OpAlgoDispatch(rebuilt(mem_objects, algorithm)) {}

OpUses OpMult::uses() const {
    OpUses uses = OpAlgoDispatch::uses();
    uses.operation = "OpMult";
    return uses;
}

}  // namespace kp
