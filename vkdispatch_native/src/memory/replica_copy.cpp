#include "vkdispatch/replica_copy.hpp"

#include <mutex>
#include <string>

#include "vkdispatch/atomic_max.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/queue.hpp"

namespace vkdispatch {

bool copiesOnDevice(Buffer& buffer, int src, int dst) {
    Buffer::Replica &from = buffer.replica(src), &to = buffer.replica(dst);
    return src != dst && from.queue->device() == to.queue->device() &&
           from.queue->family() == to.queue->family();
}

void copyReplicaOnDevice(Buffer& buffer, int src, int dst) {
    if (!copiesOnDevice(buffer, src, dst))
        throw InvalidArgumentError("dst: replica " + std::to_string(dst) +
                                   " cannot be copied from replica " + std::to_string(src) +
                                   " on the device (another device or queue family, or itself)");
    Buffer::Replica &from = buffer.replica(src), &to = buffer.replica(dst);
    std::scoped_lock lock(from.transfer, to.transfer);
    const VkBuffer source = from.storage.buffer.get(), target = to.storage.buffer.get();
    const VkBufferCopy region{0, 0, buffer.size()};
    const uint64_t copied = to.queue->submitAfter(
        [&](VkCommandBuffer cb) { vkCmdCopyBuffer(cb, source, target, 1, &region); },
        *from.queue, from.queue->lastSubmitted());
    detail::raiseTo(to.last_use, copied);
    // Later work on the source queue waits for the copy (the wait covers all of it).
    const uint64_t released = from.queue->submitAfter([](VkCommandBuffer) {}, *to.queue, copied);
    detail::raiseTo(from.last_use, released);
}

}  // namespace vkdispatch
