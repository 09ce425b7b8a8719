#pragma once
// The routes by which one replica of a Buffer is copied into a replica of a Buffer of the same
// context without passing through the host; each is a test of whether it reaches and the copy
// itself. Where neither reaches, copies go through host memory (shared_host_memory.hpp).
//
// On one device (memory/replica_copy.cpp): both replicas' queues are on one device (replicas
// are shared by all of a device's queue families, so no ownership transfer is needed). The
// copy runs on the destination queue once the source queue has finished the work submitted
// before the call (a semaphore wait on the device), and the source queue's later work waits for
// the copy, so it cannot overwrite the source while the copy reads it (see
// replica_submission.hpp). It returns without waiting.
//
// Through CUDA (interop/cuda_peer_copy.cpp), between GPUs that the CUDA driver sees and that
// reach each other's memory (NVLink, or PCIe peer to peer): Vulkan offers no path between
// devices there, and the route through host memory moved 38-47 GB/s between two H100s where
// CUDA's peer copy moved 341-374. Each replica is seen through the CUDA import of its memory
// (CudaView), and the bytes cross between the GPUs in CUDA's own memory (imported memory does
// not travel over NVLink). The copy starts once the work submitted before it to both replicas'
// queues is done (host waits, as the route through host memory does) and returns once it is
// done, so later work on either queue sees the bytes.
//
// Thread safety: each holds both replicas' transfer locks while it submits or copies.
#include <cstdint>

namespace vkdispatch {

class Buffer;

/// Whether replica `src` of a buffer can be copied into replica `dst` of a buffer of the same
/// context on the device (a replica is never copied onto itself).
bool copiesOnDevice(Buffer& buffer, int src, int dst);
/// Copies all of replica `src` of `source` into replica `dst` of `target` from byte
/// `dst_offset`. Throws InvalidArgumentError unless copiesOnDevice(), the buffers share a
/// context and the bytes fit; IndexOutOfRangeError for a bad index.
void copyReplicaOnDevice(Buffer& source, int src, Buffer& target, int dst,
                         uint64_t dst_offset = 0);

/// Whether replica `src` of `buffer` reaches replica `dst` through a CUDA peer copy: the two
/// replicas are on different CUDA devices that can access each other's memory.
bool copiesThroughCuda(Buffer& buffer, int src, int dst);
/// As copyReplicaOnDevice, through CUDA; throws InvalidArgumentError unless
/// copiesThroughCuda() and the bytes fit, Error naming a driver call that failed.
void copyReplicaThroughCuda(Buffer& source, int src, Buffer& target, int dst,
                            uint64_t dst_offset = 0);

}  // namespace vkdispatch
