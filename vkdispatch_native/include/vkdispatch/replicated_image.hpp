#pragma once
// An image with one replica per queue of its context (as a Buffer has), for sampling in
// shaders. Between uses every replica is in VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL: shaders
// only read images, and write() and read() move a replica out of that layout and back inside
// one submission framed by full barriers, so dispatches need no image barriers of their own.
//
// Thread safety: the object may be shared; each replica's transfers hold its transfer lock.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "vkdispatch/fair_mutex.hpp"
#include "vkdispatch/image.hpp"

namespace vkdispatch {

class Context;
class Queue;

class ReplicatedImage {
public:
    struct Replica {
        Queue* queue = nullptr;
        Device* device = nullptr;  // the queue's
        std::unique_ptr<Image> image;
        std::atomic<uint64_t> last_use{0};  // timeline value of the last submission touching it
        FairMutex transfer;  // held across one host read or write of this replica
    };

    /// `spec` gains sampled and transfer usage. Throws InvalidArgumentError naming the format
    /// when a device of the context cannot sample such images. The context must outlive it.
    ReplicatedImage(Context& context, ImageSpec spec);
    /// Frees each replica once its queue has finished the last work that used it.
    ~ReplicatedImage();
    ReplicatedImage(const ReplicatedImage&) = delete;
    ReplicatedImage& operator=(const ReplicatedImage&) = delete;

    Context& context() const noexcept { return m_context; }
    const ImageSpec& spec() const noexcept { return m_spec; }
    /// Bytes of the tightly packed texels of one replica.
    uint64_t byteSize() const noexcept { return m_replicas.front()->image->byteSize(); }
    int replicaCount() const noexcept { return static_cast<int>(m_replicas.size()); }
    /// Whether every replica's device filters this image linearly (integer formats usually
    /// not: their samplers must filter to the nearest texel).
    bool filtersLinearly() const noexcept { return m_filters_linearly; }
    /// Throws IndexOutOfRangeError naming `queue_index` when out of range.
    Replica& replica(int queue_index);

    /// Copies `size` (= byteSize()) bytes of packed texels into replica `queue_index`, or into
    /// every replica for -1; returns once the copies finished.
    void write(const void* data, uint64_t size, int queue_index);
    /// Copies replica `queue_index` into `out` (`size` = byteSize() bytes, packed texels).
    void read(void* out, uint64_t size, int queue_index);

private:
    void checkSize(uint64_t size, const char* what) const;

    Context& m_context;
    ImageSpec m_spec;
    bool m_filters_linearly = true;
    std::vector<std::unique_ptr<Replica>> m_replicas;
};

}  // namespace vkdispatch
