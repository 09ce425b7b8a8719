#pragma once
// Copies one replica of a Buffer into another on the device, without the host: when both
// replicas' queues are on one device and in one queue family (replicas are exclusive to their
// family). The copy runs on the destination queue once the source queue has finished the work
// submitted before the call (a semaphore wait on the device), and the source queue's later
// work waits for the copy, so it cannot overwrite the source while the copy reads it.
//
// Thread safety: holds both replicas' transfer locks while it submits.
namespace vkdispatch {

class Buffer;

/// Whether replica `src` can be copied into replica `dst` on the device (see above).
bool copiesOnDevice(Buffer& buffer, int src, int dst);
/// Copies replica `src` into replica `dst` (src != dst); returns without waiting. Throws
/// InvalidArgumentError unless copiesOnDevice(), IndexOutOfRangeError for a bad index.
void copyReplicaOnDevice(Buffer& buffer, int src, int dst);

}  // namespace vkdispatch
