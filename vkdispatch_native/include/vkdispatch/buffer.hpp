#pragma once
// A device buffer with one replica per queue of its context (each queue works on its own copy).
//
// Thread safety: the object may be shared; each replica's last-use value is atomic. Moving data
// in and out is TransferEngine's job; it holds a replica's transfer lock for the whole of each
// read or write of that replica, so host transfers of one replica never interleave.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "vkdispatch/fair_mutex.hpp"
#include "vkdispatch/memory_type.hpp"

namespace vkdispatch {

class Context;
class Queue;

class Buffer {
public:
    struct Replica {
        Queue* queue = nullptr;
        BoundBuffer storage;
        std::atomic<uint64_t> last_use{0};  // timeline value of the last submission touching it
        // Held across one host read or write of this replica (staging too), taken in turn.
        FairMutex transfer;

        /// Host-coherent mapped device memory can be read and written without staging.
        bool directlyMapped() const noexcept;
    };

    /// Allocates `size` bytes (> 0) on every queue of `context`; the context must outlive it.
    Buffer(Context& context, uint64_t size);
    /// Frees each replica once its queue has finished the last work that used it (never blocks).
    ~Buffer();
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    Context& context() const noexcept { return m_context; }
    uint64_t size() const noexcept { return m_size; }
    int replicaCount() const noexcept { return static_cast<int>(m_replicas.size()); }
    /// Throws IndexOutOfRangeError naming `queue_index` when out of range.
    Replica& replica(int queue_index);
    /// The host address of replica `queue_index` for a view that shares its memory (DLPack), or
    /// nullptr when that memory is not host-visible and coherent (a discrete GPU's). Returns
    /// once the work submitted so far that touches the replica has completed; host writes
    /// through the address are seen by work submitted after them.
    void* hostView(int queue_index);
    /// Returns once the work submitted so far that touches replica `queue_index` completed.
    void waitForWork(int queue_index);
    /// Whether hostView(queue_index) gives an address (without waiting for anything).
    bool hostVisible(int queue_index) { return replica(queue_index).directlyMapped(); }
    /// A number no other Buffer of the process has had: a cache key that, unlike the address,
    /// never names a later buffer.
    uint64_t serial() const noexcept { return m_serial; }

    /// Number of Buffer objects alive in the process (for leak tests).
    static int64_t liveCount() noexcept;

private:
    Context& m_context;
    uint64_t m_size;
    uint64_t m_serial;
    std::vector<std::unique_ptr<Replica>> m_replicas;
};

}  // namespace vkdispatch
