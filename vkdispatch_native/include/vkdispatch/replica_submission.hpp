#pragma once
// One submission on a queue that touches replicas of several queues of its device (replicas are
// shared by all of a device's queue families): what copying between replicas and dispatching on
// chosen replicas have in common. The submission waits on the device for the work submitted
// before it to the other replicas' queues, and their later work waits for it, so neither side
// reads or overwrites the replicas while the other uses them.
//
// Thread safety: holds the replicas' transfer locks while it submits.
#include <cstdint>
#include <vector>

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/queue.hpp"

namespace vkdispatch {

/// Submits `commands` on `queue`, ordered as described above against the queues of
/// `replicas` (each on `queue`'s device; duplicates allowed), and raises each replica's last
/// use. Returns the submission's timeline value on `queue`.
uint64_t submitOnReplicas(Queue& queue, const std::vector<Buffer::Replica*>& replicas,
                          const Queue::Recorder& commands);

}  // namespace vkdispatch
