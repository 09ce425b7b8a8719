#pragma once
// Moves bytes between host memory and buffer replicas. Host-coherent device memory is copied
// directly; a small write (whole 4-byte words, at most kMaxInlineWrite bytes and one staging
// chunk) travels inside its command buffer (vkCmdUpdateBuffer), a call like any other that a
// queue's submission window may gather with its neighbours; otherwise data streams through a
// small ring of reusable staging chunks (pinned host memory) per queue, so the host copy of
// one chunk overlaps the device copy of the previous one.
// A replica is copied into a replica of another queue (of another device, say) chunk by chunk.
// Where both devices import host memory, through a ring of chunks imported into every device
// (SharedHostMemory): the source queue downloads into a chunk, the destination queue uploads
// from it while the next chunks download, and the host only waits. Otherwise from the source
// queue's ring into the destination queue's ring, copied by the host.
//
// Thread safety: safe to share. Each read or write of a replica holds that replica's transfer
// lock from its first copy to its last, so a read racing a write of the same replica returns
// the data wholly before or wholly after it, and racing writes leave one of them whole; staged
// transfers through one queue are serialised as well (they share the queue's ring). Transfers
// are not ordered against command lists another thread submits meanwhile. Threads waiting for
// one replica (or one queue's ring) get it in the order they asked (FairMutex): a thread writing
// in a loop cannot keep another's read waiting.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/parallel_copy.hpp"

namespace vkdispatch {

class Context;

/// The largest write that travels inside its command buffer (vkCmdUpdateBuffer's limit). A
/// 4 KiB write took 17.8 us through a staging chunk on an H200 host, one submission and the
/// chunk's bookkeeping; inline it needs no chunk, so nothing waits for one to come free.
constexpr uint64_t kMaxInlineWrite = 65536;

struct TransferOptions {
    uint64_t chunk_bytes = uint64_t(16) << 20;
    int chunk_count = 3;
    int copy_threads = 0;      // see ParallelCopier
    bool map_directly = true;  // false forces staging even for host-visible memory (tests)
    // false copies between replicas through each queue's ring even where the devices import
    // host memory (tests)
    bool share_host_memory = true;
};

class TransferEngine {
public:
    explicit TransferEngine(Context& context, const TransferOptions& options = {});
    ~TransferEngine();

    /// Copies `size` bytes from `data` to offset `offset` of replica `queue_index`, or of every
    /// replica when `queue_index` is -1 (one replica after the other, each atomically). Returns
    /// once later submissions and reads, from any thread, will see the data.
    void write(Buffer& buffer, const void* data, uint64_t size, uint64_t offset, int queue_index);
    /// Copies `size` bytes at `offset` of replica `queue_index` into `out`, after all work
    /// submitted to that queue and every write of the replica returned before the call.
    void read(Buffer& buffer, void* out, uint64_t size, uint64_t offset, int queue_index);
    /// Copies all of replica `src` of `source` into replica `dst` of `target` (a buffer of the
    /// same context) from byte `dst_offset`, through host memory: the source once the work
    /// submitted to its queue before the call is done, the target ahead of its queue's later
    /// work. Returns when the source has been read. For replicas of any two queues; replicas of
    /// one queue are refused (copy those on the device, see replica_routes.hpp).
    void copy(Buffer& source, int src, Buffer& target, int dst, uint64_t dst_offset);

private:
    struct Ring;
    struct SharedRing;
    // Receives `size` downloaded bytes that belong at byte `at` of the range read.
    using Consumer = std::function<void(const uint8_t* bytes, uint64_t size, uint64_t at)>;

    Ring& ring(int queue_index);
    // Through the ring's staging chunks, as StagingCopyCommands on queue `queue_index`; the
    // caller holds the ring's lock.
    void upload(Ring& ring, Buffer& buffer, int queue_index, const uint8_t* src, uint64_t size,
                uint64_t offset);
    void download(Ring& ring, Buffer& buffer, int queue_index, uint64_t size, uint64_t offset,
                  const Consumer& consume);
    void allocateChunks(Ring& ring, int queue_index);
    // Whether a write of `size` bytes at `offset` travels inside its command buffer.
    bool inlined(uint64_t size, uint64_t offset) const noexcept;
    // As an UpdateBufferCommand on queue `queue_index`; the caller holds the replica's lock.
    void writeInline(Buffer& buffer, int queue_index, const uint8_t* src, uint64_t size,
                     uint64_t offset);
    // Whether copies from queue `src` to queue `dst` can go through the shared ring.
    bool sharesHostMemory(int src, int dst) const;
    // copy() through the shared ring; the caller holds both replicas' transfer locks.
    void copyThroughSharedRing(Buffer& source, int src, Buffer& target, int dst,
                               uint64_t dst_offset);

    Context& m_context;
    TransferOptions m_options;
    ParallelCopier m_copier;
    // One per queue, chunks allocated on first use. Uploads and downloads share it: run side
    // by side (a ring per direction) they were slower than one after the other on an H100
    // host (benchmarks/overlap.py, twelfth session).
    std::vector<std::unique_ptr<Ring>> m_rings;
    std::unique_ptr<SharedRing> m_shared;  // chunks allocated on the first copy through it
};

}  // namespace vkdispatch
