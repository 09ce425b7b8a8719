#pragma once
// What a SPIR-V module's interface asks of the pipeline layout, read from its types and
// decorations: a layout with fewer push-constant bytes than the module's block, or without a
// binding the module uses, is invalid usage (the shader reads bytes nobody set, or a resource
// nobody bound), which Kompute programs otherwise reach silently.
#include <cstdint>
#include <optional>
#include <vector>

namespace kp::detail {

/// Bytes from the start of the push-constant block to the end of its last member; nullopt where
/// the module declares none or a member's type has no size this reader knows (the caller then
/// checks nothing). `words` must be valid SPIR-V (see checkSpirv).
std::optional<uint32_t> declaredPushConstantBytes(const std::vector<uint32_t>& words);

/// The bindings of descriptor set `set` whose variables some instruction uses (declared but
/// unused ones need no descriptor), ascending. `words` must be valid SPIR-V.
std::vector<uint32_t> usedBindings(const std::vector<uint32_t>& words, uint32_t set);

}  // namespace kp::detail
