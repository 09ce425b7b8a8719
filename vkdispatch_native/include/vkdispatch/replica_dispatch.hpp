#pragma once
// Runs a compute plan once on one queue with its storage bindings pointed at chosen replicas of
// buffers, which may belong to another queue of the same device (replicas are shared by all of a
// device's queue families): kernels that combine replicas, such as a copy from one replica into
// another (NVIDIA runs vkCmdCopyBuffer on compute queues at a fraction of a copy kernel's
// bandwidth) and an all-reduce in one kernel. Ordered against the replicas' queues as
// replica_submission.hpp describes.
//
// Thread safety: holds the bound replicas' transfer locks while it submits.
#include <cstdint>
#include <vector>

namespace vkdispatch {

class Buffer;
class ComputePlan;

struct ReplicaBinding {
    Buffer* buffer = nullptr;
    int replica = 0;  // the queue index whose replica is bound
};

/// Dispatches `groups_x` workgroups of `plan` on queue `queue_index` with binding i bound to
/// all of `bindings[i]`, and `push_constants` (the plan's push-constant size). The replicas
/// must be on the queue's device (of any of its queues). Returns without waiting. Throws
/// InvalidArgumentError naming the binding or argument at fault (a count or size that does not
/// match the plan, a non-storage binding, another context or device), IndexOutOfRangeError for
/// a bad queue or replica index.
void dispatchOnReplicas(ComputePlan& plan, int queue_index,
                        const std::vector<ReplicaBinding>& bindings,
                        const std::vector<uint8_t>& push_constants, uint32_t groups_x);

}  // namespace vkdispatch
