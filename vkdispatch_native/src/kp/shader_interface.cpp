#include "shader_interface.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace kp::detail {
namespace {

// The SPIR-V opcodes, decorations and storage class this reader needs (SPIR-V spec, section 3).
enum Op : uint32_t {
    kOpName = 5, kOpMemberName = 6, kOpEntryPoint = 15, kOpTypeBool = 20,
    kOpTypeImage = 25, kOpTypeSampler = 26, kOpTypeSampledImage = 27, kOpTypeRuntimeArray = 29, kOpTypeInt = 21, kOpTypeFloat = 22, kOpTypeVector = 23,
    kOpTypeMatrix = 24, kOpTypeArray = 28, kOpTypeStruct = 30, kOpTypePointer = 32,
    kOpConstant = 43, kOpVariable = 59, kOpDecorate = 71, kOpMemberDecorate = 72,
};
constexpr uint32_t kArrayStride = 6, kMatrixStride = 7, kBinding = 33, kDescriptorSet = 34,
                   kOffset = 35;
constexpr uint32_t kPushConstant = 9;
constexpr size_t kHeaderWords = 5;

struct Module {
    std::map<uint32_t, std::vector<uint32_t>> types;  // id -> the instruction's words
    std::map<uint32_t, uint32_t> constants;           // id -> its first value word
    std::map<uint32_t, uint32_t> array_strides;       // type id -> ArrayStride
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> offsets;         // (struct, member)
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> matrix_strides;  // (struct, member)
    std::vector<uint32_t> push_pointers;  // pointer types of PushConstant variables
    std::map<uint32_t, uint32_t> bindings;            // variable id -> Binding
    std::map<uint32_t, uint32_t> sets;                // variable id -> DescriptorSet
    std::map<uint32_t, uint32_t> variable_types;      // variable id -> its pointer type
    // Every word of an instruction that is neither a name, a decoration, the entry point nor a
    // variable's declaration: the ids (and some literals) the module uses.
    std::set<uint32_t> used;
};

Module read(const std::vector<uint32_t>& words) {
    Module m;
    for (size_t at = kHeaderWords; at < words.size();) {
        const uint32_t count = words[at] >> 16, op = words[at] & 0xffff;
        if (count == 0 || at + count > words.size()) break;
        const uint32_t* w = &words[at];
        switch (op) {
            case kOpTypeBool: case kOpTypeInt: case kOpTypeFloat: case kOpTypeVector:
            case kOpTypeMatrix: case kOpTypeArray: case kOpTypeStruct: case kOpTypePointer:
            case kOpTypeImage: case kOpTypeSampler: case kOpTypeSampledImage:
            case kOpTypeRuntimeArray:
                m.types[w[1]] = std::vector<uint32_t>(w, w + count);
                break;
            case kOpConstant:
                if (count >= 4) m.constants[w[2]] = w[3];
                break;
            case kOpVariable:
                if (count >= 4 && w[3] == kPushConstant) m.push_pointers.push_back(w[1]);
                if (count >= 3) m.variable_types[w[2]] = w[1];
                break;
            case kOpDecorate:
                if (count >= 4 && w[2] == kArrayStride) m.array_strides[w[1]] = w[3];
                if (count >= 4 && w[2] == kBinding) m.bindings[w[1]] = w[3];
                if (count >= 4 && w[2] == kDescriptorSet) m.sets[w[1]] = w[3];
                break;
            case kOpMemberDecorate:
                if (count >= 5 && w[3] == kOffset) m.offsets[{w[1], w[2]}] = w[4];
                if (count >= 5 && w[3] == kMatrixStride) m.matrix_strides[{w[1], w[2]}] = w[4];
                break;
            default:
                break;
        }
        if (op != kOpName && op != kOpMemberName && op != kOpEntryPoint && op != kOpVariable &&
            op != kOpDecorate && op != kOpMemberDecorate)
            m.used.insert(w + 1, w + count);
        at += count;
    }
    return m;
}

template <typename Map, typename Key>
std::optional<uint32_t> find(const Map& map, const Key& key) {
    const auto found = map.find(key);
    return found == map.end() ? std::nullopt : std::optional<uint32_t>(found->second);
}

// Bytes of a value of `type`; `matrix_stride` where it is a struct member decorated so.
std::optional<uint32_t> sizeOf(const Module& m, uint32_t type,
                               std::optional<uint32_t> matrix_stride = std::nullopt) {
    const auto found = m.types.find(type);
    if (found == m.types.end()) return std::nullopt;
    const std::vector<uint32_t>& t = found->second;
    switch (t[0] & 0xffff) {
        case kOpTypeBool: return 4;
        case kOpTypeInt: case kOpTypeFloat: return t[2] / 8;
        case kOpTypeVector: {
            const auto component = sizeOf(m, t[2]);
            return component ? std::optional<uint32_t>(*component * t[3]) : std::nullopt;
        }
        case kOpTypeMatrix:
            return matrix_stride ? std::optional<uint32_t>(*matrix_stride * t[3]) : std::nullopt;
        case kOpTypeArray: {
            const auto stride = find(m.array_strides, type);
            const auto length = find(m.constants, t[3]);
            return stride && length ? std::optional<uint32_t>(*stride * *length) : std::nullopt;
        }
        case kOpTypeStruct: {
            uint32_t end = 0;
            for (uint32_t member = 0; member + 2 < t.size(); ++member) {
                const auto offset = find(m.offsets, std::pair{type, member});
                const auto size = sizeOf(m, t[member + 2],
                                         find(m.matrix_strides, std::pair{type, member}));
                if (!offset || !size) return std::nullopt;
                end = std::max(end, *offset + *size);
            }
            return end;
        }
        default:
            return std::nullopt;
    }
}

// An image, sampler or sampled image, or an array of them, is bound as an image; the rest
// (blocks) as buffers.
BindingKind kindOf(const Module& m, uint32_t variable) {
    const auto pointer = m.variable_types.find(variable);
    if (pointer == m.variable_types.end()) return BindingKind::Buffer;
    const auto pointer_type = m.types.find(pointer->second);
    if (pointer_type == m.types.end() || pointer_type->second.size() < 4)
        return BindingKind::Buffer;
    uint32_t type = pointer_type->second[3];
    for (;;) {
        const auto found = m.types.find(type);
        if (found == m.types.end()) return BindingKind::Buffer;
        const uint32_t op = found->second[0] & 0xffff;
        if (op == kOpTypeImage || op == kOpTypeSampler || op == kOpTypeSampledImage)
            return BindingKind::Image;
        if (op != kOpTypeArray && op != kOpTypeRuntimeArray) return BindingKind::Buffer;
        type = found->second[2];
    }
}

}  // namespace

std::optional<uint32_t> declaredPushConstantBytes(const std::vector<uint32_t>& words) {
    const Module m = read(words);
    std::optional<uint32_t> largest;
    for (uint32_t pointer : m.push_pointers) {
        const auto found = m.types.find(pointer);
        if (found == m.types.end() || found->second.size() < 4) return std::nullopt;
        const auto size = sizeOf(m, found->second[3]);
        if (!size) return std::nullopt;
        largest = std::max(largest.value_or(0), *size);
    }
    return largest;
}

std::map<uint32_t, BindingKind> usedBindings(const std::vector<uint32_t>& words,
                                             uint32_t set) {
    const Module m = read(words);
    std::map<uint32_t, BindingKind> found;
    for (const auto& [variable, binding] : m.bindings) {
        const auto in = m.sets.find(variable);
        if (in != m.sets.end() && in->second == set && m.used.count(variable))
            found[binding] = kindOf(m, variable);
    }
    return found;
}

}  // namespace kp::detail
