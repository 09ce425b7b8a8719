#pragma once
// Copies between replicas on two GPUs through CUDA's peer copy (NVLink, or PCIe peer to peer)
// where the CUDA driver sees both devices and they can reach each other's memory: Vulkan offers
// no path between devices there, and the route through host memory moved 38-47 GB/s between
// two H100s where CUDA's peer copy moved 341-374. Each replica is seen through the CUDA import
// of its memory (CudaView), and the bytes cross between the GPUs in CUDA's own memory (imported
// memory does not travel over NVLink); the copy starts once the work submitted before it to
// both replicas' queues is done (host waits, as the route through host memory does) and
// returns once it is done, so later work on either queue sees the bytes.
//
// Thread safety: holds both replicas' transfer locks while it copies.
#include <cstdint>

namespace vkdispatch {

class Buffer;

/// Whether replica `src` of `buffer` reaches replica `dst` through a CUDA peer copy: the two
/// replicas are on different CUDA devices that can access each other's memory.
bool copiesThroughCuda(Buffer& buffer, int src, int dst);
/// Copies all of replica `src` of `source` into replica `dst` of `target` (a buffer of the same
/// context) from byte `dst_offset`. Throws InvalidArgumentError unless copiesThroughCuda() and
/// the bytes fit, Error naming a driver call that failed.
void copyReplicaThroughCuda(Buffer& source, int src, Buffer& target, int dst,
                            uint64_t dst_offset = 0);

}  // namespace vkdispatch
