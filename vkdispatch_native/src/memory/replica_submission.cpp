#include "vkdispatch/replica_submission.hpp"

#include <algorithm>
#include <mutex>

#include "vkdispatch/atomic_max.hpp"

namespace vkdispatch {

uint64_t submitOnReplicas(Queue& queue, const std::vector<Buffer::Replica*>& replicas,
                          const Queue::Recorder& commands) {
    // Each replica's lock once, in one global (address) order: no deadlock with other callers.
    std::vector<FairMutex*> mutexes;
    std::vector<Queue*> others;
    for (Buffer::Replica* replica : replicas) {
        mutexes.push_back(&replica->transfer);
        if (replica->queue != &queue &&
            std::find(others.begin(), others.end(), replica->queue) == others.end())
            others.push_back(replica->queue);
    }
    std::sort(mutexes.begin(), mutexes.end());
    mutexes.erase(std::unique(mutexes.begin(), mutexes.end()), mutexes.end());
    std::vector<std::unique_lock<FairMutex>> locks;
    for (FairMutex* mutex : mutexes) locks.emplace_back(*mutex);

    uint64_t value = 0;
    if (others.size() == 1) {
        value = queue.submitAfter(commands, *others[0], others[0]->lastSubmitted());
    } else {
        // A semaphore wait holds back everything submitted to the queue after it, so waits in
        // submissions of their own, one per other queue, all come before the commands.
        for (Queue* other : others)
            queue.submitAfter([](VkCommandBuffer) {}, *other, other->lastSubmitted());
        value = queue.submit(commands);
    }
    for (Buffer::Replica* replica : replicas)
        if (replica->queue == &queue) detail::raiseTo(replica->last_use, value);
    // Their later work must not touch what the commands use. Not given up on Ctrl-C: the
    // commands are already submitted, and the caller frees what they use on an exception.
    for (Queue* other : others) {
        const uint64_t released = other->submitAfter([](VkCommandBuffer) {}, queue, value,
                                                     Queue::RoomWait::Uninterruptible);
        for (Buffer::Replica* replica : replicas)
            if (replica->queue == other) detail::raiseTo(replica->last_use, released);
    }
    return value;
}

}  // namespace vkdispatch
