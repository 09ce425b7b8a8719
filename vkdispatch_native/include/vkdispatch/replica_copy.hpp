#pragma once
// Copies one replica of a Buffer into a replica of a Buffer of the same context on the device,
// without the host, when both replicas' queues are on one device (replicas are shared by all
// of a device's queue families, so no ownership transfer is needed). The copy runs on the
// destination queue once the source queue has finished the work submitted before the call (a
// semaphore wait on the device), and the source queue's later work waits for the copy, so it
// cannot overwrite the source while the copy reads it (see replica_submission.hpp).
//
// Thread safety: holds both replicas' transfer locks while it submits.
#include <cstdint>

namespace vkdispatch {

class Buffer;

/// Whether replica `src` of a buffer can be copied into replica `dst` of a buffer of the same
/// context on the device (see above; a replica is never copied onto itself).
bool copiesOnDevice(Buffer& buffer, int src, int dst);
/// Copies all of replica `src` of `source` into replica `dst` of `target` from byte
/// `dst_offset`; returns without waiting. Throws InvalidArgumentError unless copiesOnDevice(),
/// the buffers share a context and the bytes fit; IndexOutOfRangeError for a bad index.
void copyReplicaOnDevice(Buffer& source, int src, Buffer& target, int dst,
                         uint64_t dst_offset = 0);

}  // namespace vkdispatch
