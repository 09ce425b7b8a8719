#pragma once
// The reference figures of the dispatch benchmark, measured with plain Vulkan calls (one
// pre-recorded command buffer, a fence), no Python and none of the runtime's bookkeeping: the
// latency of a tiny dispatch submitted and waited for (the wait blocks on the fence or polls it),
// and the cost per dispatch of a long chain of dependent dispatches in one submission.
//
// Thread safety: uses queue 0 directly; no other work may be submitted while it runs.

#include <cstdint>

namespace vkdispatch {

class Context;

/// Mean microseconds of vkQueueSubmit + a wait for the fence (vkWaitForFences, or a
/// vkGetFenceStatus loop when `poll`) of a 64-invocation dispatch.
double rawSubmitWaitMicroseconds(Context& context, int iterations, bool poll = false);
/// rawSubmitWaitMicroseconds(poll = true) with the runtime's kind of completion signal: each
/// submission signals the next value of a timeline semaphore, whose counter the host polls.
double rawTimelineSubmitWaitMicroseconds(Context& context, int iterations);
/// Mean microseconds of a host read of `bytes` of a device buffer (copy into host-visible
/// staging, barrier to the host, fence polled, memcpy out), the command buffer recorded once
/// or, with `rerecord`, before every read.
double rawReadMicroseconds(Context& context, int iterations, uint64_t bytes, bool rerecord);
/// Microseconds per dispatch of one submission of `count` 64-invocation dispatches, each behind
/// a compute-to-compute barrier (none when not `barriers`: racing, for the cost of a dispatch
/// without a dependency), including the wait for the last.
double rawDependentDispatchMicroseconds(Context& context, int count, bool barriers = true);
/// Microseconds per dispatch of `dispatches` dependent 64-invocation dispatches submitted back
/// to back (each its own command buffer), `per_submit` command buffers per vkQueueSubmit, each
/// submission signalling a timeline semaphore, including one wait for the last: with
/// `per_submit` 1, what the driver charges a script that submits every call.
double rawBackToBackMicroseconds(Context& context, int dispatches, int per_submit);

}  // namespace vkdispatch
