#include "vkdispatch/replica_routes.hpp"

#include <string>

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/replica_submission.hpp"

namespace vkdispatch {

bool copiesOnDevice(Buffer& buffer, int src, int dst) {
    const Buffer::Replica &from = buffer.replica(src), &to = buffer.replica(dst);
    return src != dst && from.queue->device() == to.queue->device();
}

void copyReplicaOnDevice(Buffer& source, int src, Buffer& target, int dst,
                         uint64_t dst_offset) {
    if (&source.context() != &target.context())
        throw InvalidArgumentError("target: the buffers belong to different contexts");
    Buffer::Replica &from = source.replica(src), &to = target.replica(dst);
    if (&from == &to || from.queue->device() != to.queue->device())
        throw InvalidArgumentError("dst: replica " + std::to_string(dst) +
                                   " cannot be copied from replica " + std::to_string(src) +
                                   " on the device (another device, or itself)");
    if (dst_offset > target.size() || source.size() > target.size() - dst_offset)
        throw InvalidArgumentError(
            "dst_offset: " + std::to_string(source.size()) + " bytes from byte " +
            std::to_string(dst_offset) + " do not fit in " + std::to_string(target.size()));
    const VkBuffer from_handle = from.storage.buffer.get(), to_handle = to.storage.buffer.get();
    const VkBufferCopy region{0, dst_offset, source.size()};
    submitOnReplicas(*to.queue, {&from, &to}, [&](VkCommandBuffer cb) {
        vkCmdCopyBuffer(cb, from_handle, to_handle, 1, &region);
    });
}

}  // namespace vkdispatch
