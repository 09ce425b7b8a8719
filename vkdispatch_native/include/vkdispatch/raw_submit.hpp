#pragma once
// The reference figure of the dispatch benchmark: the latency of a tiny dispatch submitted and
// waited for with plain Vulkan calls (one pre-recorded command buffer, a fence), no Python and
// none of the runtime's bookkeeping in the loop.
//
// Thread safety: uses queue 0 directly; no other work may be submitted while it runs.

namespace vkdispatch {

class Context;

/// Mean microseconds of vkQueueSubmit + vkWaitForFences of a 64-invocation dispatch.
double rawSubmitWaitMicroseconds(Context& context, int iterations);

}  // namespace vkdispatch
