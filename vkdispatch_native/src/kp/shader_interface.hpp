#pragma once
// What a SPIR-V module's interface asks of the pipeline layout, read from its types and
// decorations: a layout with fewer push-constant bytes than the module's block, or without a
// binding the module uses, is invalid usage (the shader reads bytes nobody set, or a resource
// nobody bound), which Kompute programs otherwise reach silently.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace kp::detail {

/// Bytes from the start of the push-constant block to the end of its last member; nullopt where
/// the module declares none or a member's type has no size this reader knows (the caller then
/// checks nothing). `words` must be valid SPIR-V (see checkSpirv).
std::optional<uint32_t> declaredPushConstantBytes(const std::vector<uint32_t>& words);

/// What a binding holds: a buffer (storage or uniform) or an image (storage, sampled or a
/// sampler).
enum class BindingKind { Buffer, Image };

/// The bindings of descriptor set `set` whose variables some instruction uses (declared but
/// unused ones need no descriptor), with what each holds. `words` must be valid SPIR-V.
std::map<uint32_t, BindingKind> usedBindings(const std::vector<uint32_t>& words, uint32_t set);

}  // namespace kp::detail
