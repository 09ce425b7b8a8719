#include "kompute/operations/OpMult.hpp"

#include <stdexcept>
#include <string>

#include "kompute/Shader.hpp"
#include "vkdispatch/errors.hpp"

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
    // Its shader multiplies floats, one invocation per element of lhs: other types would be
    // read as float bits, and a shorter rhs or result read or written past its end.
    const char* const roles[] = {"lhs", "rhs", "result"};
    for (size_t i = 0; i < 3; ++i) {
        const auto& memory = objects[i];
        if (!memory || !memory->isInit()) continue;  // rebuild names destroyed ones
        if (memory->type() != Memory::Type::eTensor ||
            memory->dataType() != Memory::DataTypes::eFloat)
            throw vkdispatch::InvalidArgumentError(
                std::string("Kompute OpMult multiplies float tensors: memory object ") +
                std::to_string(i) + " (" + roles[i] + ") is not a tensor of float type");
        if (i > 0 && objects[0] && objects[0]->isInit() && memory->size() < objects[0]->size())
            throw vkdispatch::InvalidArgumentError(
                std::string("Kompute OpMult: memory object ") + std::to_string(i) + " (" +
                roles[i] + ") has size " + std::to_string(memory->size()) +
                ", smaller than lhs's " + std::to_string(objects[0]->size()));
    }
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
