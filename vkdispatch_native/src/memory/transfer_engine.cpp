#include "vkdispatch/transfer_engine.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "vkdispatch/buffer_commands.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/profiler.hpp"
#include "vkdispatch/shared_host_memory.hpp"

namespace vkdispatch {

struct TransferEngine::Ring {
    struct Chunk {
        BoundBuffer staging;
        uint64_t last_use = 0;
    };
    FairMutex mutex;  // one staged transfer per queue at a time
    std::vector<Chunk> chunks;
    size_t next = 0;

    Chunk& take() { return chunks[next++ % chunks.size()]; }
};

struct TransferEngine::SharedRing {
    struct Chunk {
        std::unique_ptr<SharedHostMemory> memory;
        Queue* reader = nullptr;  // the queue of the last copy to or from it
        uint64_t last_use = 0;
    };
    FairMutex mutex;  // one copy through it at a time
    std::vector<Chunk> chunks;

    void allocate(Context& context, const TransferOptions& options) {
        if (!chunks.empty()) return;
        std::vector<Device*> devices;
        for (const auto& device : context.devices())
            if (SharedHostMemory::reaches(*device)) devices.push_back(device.get());
        for (int i = 0; i < options.chunk_count; ++i)
            chunks.push_back({std::make_unique<SharedHostMemory>(devices, options.chunk_bytes)});
    }
};

namespace {

void checkRange(const Buffer& buffer, uint64_t size, uint64_t offset) {
    if (offset > buffer.size() || size > buffer.size() - offset)
        throw InvalidArgumentError("size: " + std::to_string(size) + " bytes at offset " +
                                   std::to_string(offset) + " do not fit in a buffer of " +
                                   std::to_string(buffer.size()) + " bytes");
}

// One transfer command (a staging copy, an inline write), submitted alone on its queue;
// returns its timeline value.
uint64_t submitAlone(Queue& queue, Command& command, int queue_index) {
    // Profiled (vd.profile()) like a command list's commands.
    const std::shared_ptr<Profiler> profiler = command.context().profiler();
    std::shared_ptr<Profiler::Timestamps> timestamps =
        profiler ? profiler->begin(queue_index, 2) : nullptr;
    const uint64_t value = queue.submit([&](VkCommandBuffer cb) {
        if (!timestamps) return recordAlone(cb, command, queue_index);
        timestamps->reset(cb);
        timestamps->around(cb, command.label(), [&] { recordAlone(cb, command, queue_index); });
        timestamps->finish(cb);
    });
    if (profiler) profiler->collectAfter(queue, value, std::move(timestamps));
    command.markUsed(queue_index, value);
    return value;
}

}  // namespace

TransferEngine::TransferEngine(Context& context, const TransferOptions& options)
    : m_context(context), m_options(options), m_copier(options.copy_threads) {
    if (options.chunk_bytes == 0 || options.chunk_count < 1)
        throw InvalidArgumentError("TransferOptions: chunk_bytes and chunk_count must be positive");
    for (int q = 0; q < context.queueCount(); ++q) m_rings.push_back(std::make_unique<Ring>());
    m_shared = std::make_unique<SharedRing>();
}

TransferEngine::~TransferEngine() {
    // Staging chunks may still be read by the device; wait for their queues before freeing
    // (deaf to Ctrl-C, which would otherwise throw out of this destructor).
    for (int q = 0; q < static_cast<int>(m_rings.size()); ++q) {
        for (auto& chunk : m_rings[q]->chunks)
            m_context.queue(q).waitIgnoringInterrupts(chunk.last_use);
    }
    for (auto& chunk : m_shared->chunks)
        if (chunk.reader != nullptr) chunk.reader->waitIgnoringInterrupts(chunk.last_use);
}

TransferEngine::Ring& TransferEngine::ring(int queue_index) { return *m_rings.at(queue_index); }

void TransferEngine::allocateChunks(Ring& r, int queue_index) {
    if (!r.chunks.empty()) return;
    Device& device = m_context.deviceOfQueue(queue_index);
    for (int i = 0; i < m_options.chunk_count; ++i) {
        Ring::Chunk chunk;
        chunk.staging = createBoundBuffer(
            device, m_options.chunk_bytes,
            VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
            VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
        r.chunks.push_back(std::move(chunk));
    }
}

void TransferEngine::write(Buffer& buffer, const void* data, uint64_t size, uint64_t offset,
                           int queue_index) {
    checkRange(buffer, size, offset);
    const int first = queue_index == -1 ? 0 : queue_index;
    const int last = queue_index == -1 ? buffer.replicaCount() - 1 : queue_index;
    for (int q = first; q <= last; ++q) {
        Buffer::Replica& replica = buffer.replica(q);
        const auto* src = static_cast<const uint8_t*>(data);
        // A read or write of this replica from another thread happens wholly before or after.
        std::lock_guard<FairMutex> transfer(replica.transfer);
        if (m_options.map_directly && replica.directlyMapped()) {
            replica.queue->wait(replica.last_use.load());  // earlier work may still read it
            auto* mapped = static_cast<uint8_t*>(replica.storage.memory.mapped());
            m_copier.copy(mapped + offset, src, size);
            continue;
        }
        if (inlined(size, offset)) {
            writeInline(buffer, q, src, size, offset);
            continue;
        }
        Ring& r = ring(q);
        std::lock_guard<FairMutex> lock(r.mutex);
        upload(r, buffer, q, src, size, offset);
    }
}

bool TransferEngine::inlined(uint64_t size, uint64_t offset) const noexcept {
    return size <= std::min(kMaxInlineWrite, m_options.chunk_bytes) && size % 4 == 0 &&
           offset % 4 == 0;
}

void TransferEngine::writeInline(Buffer& buffer, int queue_index, const uint8_t* src,
                                 uint64_t size, uint64_t offset) {
    UpdateBufferCommand update(m_context, buffer, offset, src, size);
    submitAlone(*buffer.replica(queue_index).queue, update, queue_index);
}

void TransferEngine::upload(Ring& r, Buffer& buffer, int queue_index, const uint8_t* src,
                            uint64_t size, uint64_t offset) {
    allocateChunks(r, queue_index);
    Queue& queue = *buffer.replica(queue_index).queue;
    for (uint64_t done = 0; done < size;) {
        const uint64_t n = std::min(m_options.chunk_bytes, size - done);
        Ring::Chunk& chunk = r.take();
        queue.wait(chunk.last_use);
        m_copier.copy(chunk.staging.memory.mapped(), src + done, n);
        StagingCopyCommand copy(buffer, queue_index, chunk.staging.buffer.get(),
                                m_options.chunk_bytes,
                                StagingCopyCommand::Direction::Upload, offset + done, n);
        chunk.last_use = submitAlone(queue, copy, queue_index);
        done += n;
    }
}

void TransferEngine::read(Buffer& buffer, void* out, uint64_t size, uint64_t offset,
                          int queue_index) {
    checkRange(buffer, size, offset);
    Buffer::Replica& replica = buffer.replica(queue_index);
    auto* dst = static_cast<uint8_t*>(out);
    // No write of this replica can land in the middle of the copy out (see write()).
    std::lock_guard<FairMutex> transfer(replica.transfer);
    if (m_options.map_directly && replica.directlyMapped()) {
        // Every submission ends with a barrier that makes its writes visible to the host.
        replica.queue->waitIdle();
        const auto* mapped = static_cast<const uint8_t*>(replica.storage.memory.mapped());
        m_copier.copy(dst, mapped + offset, size);
        return;
    }
    Ring& r = ring(queue_index);
    std::lock_guard<FairMutex> lock(r.mutex);
    auto take = [&](const uint8_t* bytes, uint64_t n, uint64_t at) {
        m_copier.copy(dst + at, bytes, n);
    };
    download(r, buffer, queue_index, size, offset, take);
}

void TransferEngine::download(Ring& r, Buffer& buffer, int queue_index, uint64_t size,
                              uint64_t offset, const Consumer& consume) {
    allocateChunks(r, queue_index);
    Queue& queue = *buffer.replica(queue_index).queue;
    const uint64_t chunk_bytes = m_options.chunk_bytes;
    const uint64_t chunk_total = (size + chunk_bytes - 1) / chunk_bytes;
    std::vector<Ring::Chunk*> in_flight(chunk_total, nullptr);

    auto issue = [&](uint64_t c) {
        const uint64_t n = std::min(chunk_bytes, size - c * chunk_bytes);
        Ring::Chunk& chunk = r.take();
        queue.wait(chunk.last_use);
        StagingCopyCommand copy(buffer, queue_index, chunk.staging.buffer.get(), chunk_bytes,
                                StagingCopyCommand::Direction::Download, offset + c * chunk_bytes,
                                n);
        chunk.last_use = submitAlone(queue, copy, queue_index);
        in_flight[c] = &chunk;
    };

    const uint64_t ahead = std::min<uint64_t>(chunk_total, r.chunks.size());
    for (uint64_t c = 0; c < ahead; ++c) issue(c);
    for (uint64_t c = 0; c < chunk_total; ++c) {
        Ring::Chunk& chunk = *in_flight[c];
        queue.wait(chunk.last_use);
        const uint64_t n = std::min(chunk_bytes, size - c * chunk_bytes);
        consume(static_cast<const uint8_t*>(chunk.staging.memory.mapped()), n, c * chunk_bytes);
        if (c + ahead < chunk_total) issue(c + ahead);
    }
}

void TransferEngine::copy(Buffer& source, int src, Buffer& target, int dst,
                          uint64_t dst_offset) {
    if (&source.context() != &target.context())
        throw InvalidArgumentError("target: the buffers belong to different contexts");
    const uint64_t size = source.size();
    checkRange(target, size, dst_offset);
    Buffer::Replica &from = source.replica(src), &to = target.replica(dst);
    if (src == dst)
        throw InvalidArgumentError("dst: replica " + std::to_string(dst) + " is on the source's "
                                   "queue; copy it on the device");
    std::scoped_lock transfers(from.transfer, to.transfer);
    const bool map_from = m_options.map_directly && from.directlyMapped();
    const bool map_to = m_options.map_directly && to.directlyMapped();
    if (!map_from && !map_to && sharesHostMemory(src, dst))
        return copyThroughSharedRing(source, src, target, dst, dst_offset);
    std::scoped_lock rings(ring(src).mutex, ring(dst).mutex);
    auto* target_bytes = static_cast<uint8_t*>(to.storage.memory.mapped());
    if (map_to) to.queue->wait(to.last_use.load());  // earlier work may still read it
    auto put = [&](const uint8_t* bytes, uint64_t n, uint64_t at) {
        if (map_to)
            m_copier.copy(target_bytes + dst_offset + at, bytes, n);
        else
            upload(ring(dst), target, dst, bytes, n, dst_offset + at);
    };
    if (!map_from) return download(ring(src), source, src, size, 0, put);
    from.queue->waitIdle();  // see read(): the submissions' writes are then visible here
    put(static_cast<const uint8_t*>(from.storage.memory.mapped()), size, 0);
}

bool TransferEngine::sharesHostMemory(int src, int dst) const {
    return m_options.share_host_memory &&
           SharedHostMemory::reaches(m_context.deviceOfQueue(src)) &&
           SharedHostMemory::reaches(m_context.deviceOfQueue(dst));
}

void TransferEngine::copyThroughSharedRing(Buffer& source, int src, Buffer& target, int dst,
                                           uint64_t dst_offset) {
    std::lock_guard<FairMutex> lock(m_shared->mutex);
    m_shared->allocate(m_context, m_options);
    auto& chunks = m_shared->chunks;
    Queue &from = *source.replica(src).queue, &to = *target.replica(dst).queue;
    const Device& from_device = m_context.deviceOfQueue(src);
    const Device& to_device = m_context.deviceOfQueue(dst);
    const uint64_t size = source.size(), chunk_bytes = m_options.chunk_bytes;
    const uint64_t chunk_total = (size + chunk_bytes - 1) / chunk_bytes;
    auto bytes_of = [&](uint64_t c) { return std::min(chunk_bytes, size - c * chunk_bytes); };
    std::vector<uint64_t> downloaded(chunk_total);
    uint64_t issued = 0;
    auto download = [&] {
        auto& chunk = chunks[issued % chunks.size()];
        if (chunk.reader != nullptr) chunk.reader->wait(chunk.last_use);
        StagingCopyCommand copy(source, src, chunk.memory->bufferOn(from_device),
                                chunk.memory->size(), StagingCopyCommand::Direction::Download,
                                issued * chunk_bytes, bytes_of(issued));
        chunk.reader = &from;  // until the upload from it, which waits for the download
        chunk.last_use = downloaded[issued++] = submitAlone(from, copy, src);
    };
    // One chunk fewer than the ring ahead: the next download then reuses the chunk of the
    // upload before last, which has most likely finished, so the host rarely waits on it.
    const uint64_t ahead = std::max<uint64_t>(1, chunks.size() - 1);
    while (issued < std::min(chunk_total, ahead)) download();
    for (uint64_t c = 0; c < chunk_total; ++c) {
        auto& chunk = chunks[c % chunks.size()];
        from.wait(downloaded[c]);
        StagingCopyCommand copy(target, dst, chunk.memory->bufferOn(to_device),
                                chunk.memory->size(), StagingCopyCommand::Direction::Upload,
                                dst_offset + c * chunk_bytes, bytes_of(c));
        chunk.reader = &to;
        chunk.last_use = submitAlone(to, copy, dst);
        if (issued < chunk_total) download();
    }
}

}  // namespace vkdispatch
