#pragma once
// The size of the push-constant block a SPIR-V module declares, read from its types and
// decorations: a pipeline whose layout holds fewer push-constant bytes than the block is invalid
// usage (the shader reads bytes nobody set), which Kompute programs otherwise reach silently.
#include <cstdint>
#include <optional>
#include <vector>

namespace kp::detail {

/// Bytes from the start of the push-constant block to the end of its last member; nullopt where
/// the module declares none or a member's type has no size this reader knows (the caller then
/// checks nothing). `words` must be valid SPIR-V (see checkSpirv).
std::optional<uint32_t> declaredPushConstantBytes(const std::vector<uint32_t>& words);

}  // namespace kp::detail
