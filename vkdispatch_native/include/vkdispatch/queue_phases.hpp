#pragma once
// Where a submission + wait spends its time, phase by phase, for the runtime's Queue and for
// plain Vulkan doing the same work (a 256-byte vkCmdFillBuffer, a barrier to the host, a
// timeline semaphore signalled and its counter polled): a benchmark's decomposition of the
// host cost of an immediate call + wait or a small read (benchmarks/host_latency.py).
//
// Thread safety: uses queue 0; no other work may be submitted while it runs.

namespace vkdispatch {

class Context;

/// Mean microseconds per phase over `iterations` submissions.
struct QueuePhases {
    double record = 0;  ///< recording the command buffer (inside submit for the runtime)
    double submit = 0;  ///< vkQueueSubmit (the runtime: record + its submit path)
    double device = 0;  ///< from submit's return until the timeline counter reaches the value
    double wait = 0;    ///< the runtime's wait() for a value already reached (0 for raw)
};

/// What the raw command buffer records before its fill.
enum class RawEntry {
    None,     ///< nothing (the fill is its only work)
    Runtime,  ///< the runtime's recordEntryBarrier()
    Full,     ///< ALL_COMMANDS -> ALL_COMMANDS, MEMORY_WRITE -> MEMORY_READ | MEMORY_WRITE
};

QueuePhases runtimeQueuePhases(Context& context, int iterations);
QueuePhases rawQueuePhases(Context& context, int iterations, RawEntry entry = RawEntry::None);

}  // namespace vkdispatch
