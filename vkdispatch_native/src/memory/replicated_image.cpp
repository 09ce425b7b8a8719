#include "vkdispatch/replicated_image.hpp"

#include <cstring>
#include <functional>
#include <string>

#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/replica_index.hpp"
#include "vkdispatch/memory_type.hpp"
#include "vkdispatch/mip_chain.hpp"

namespace vkdispatch {
namespace {

constexpr VkImageLayout kSteady = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;

void toSteady(VkCommandBuffer cb, Image& image) {
    image.recordTransition(cb, kSteady, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                           VK_ACCESS_SHADER_READ_BIT);
}

BoundBuffer staging(Device& device, uint64_t size) {
    return createBoundBuffer(device, size,
                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                             0);
}

// Runs `copy` on the replica's queue in one submission that leaves the image steady, and waits.
void runCopy(ReplicatedImage::Replica& r,
             const std::function<void(VkCommandBuffer, Image&)>& copy) {
    Image& image = *r.image;
    const uint64_t done = r.queue->submit([&](VkCommandBuffer cb) {
        copy(cb, image);
        toSteady(cb, image);
    });
    r.last_use = done;
    r.queue->wait(done);
}

}  // namespace

ReplicatedImage::ReplicatedImage(Context& context, ImageSpec spec)
    : m_context(context), m_spec(spec) {
    m_spec.usage |= VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                    VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    for (int q = 0; q < context.queueCount(); ++q) {
        auto replica = std::make_unique<Replica>();
        replica->queue = &context.queue(q);
        replica->device = &context.deviceOfQueue(q);
        replica->image = std::make_unique<Image>(*replica->device, m_spec);
        m_filters_linearly &=
            vkdispatch::filtersLinearly(*replica->device, m_spec.format, m_spec.tiling);
        Image& image = *replica->image;
        replica->last_use =
            replica->queue->submit([&](VkCommandBuffer cb) { toSteady(cb, image); });
        m_replicas.push_back(std::move(replica));
    }
}

ReplicatedImage::~ReplicatedImage() {
    for (auto& replica : m_replicas) {
        std::shared_ptr<Image> image(std::move(replica->image));
        replica->queue->retire(replica->last_use.load(), [image]() mutable { image.reset(); });
    }
}

ReplicatedImage::Replica& ReplicatedImage::replica(int queue_index) {
    return detail::replicaAt(m_replicas, queue_index);
}

void ReplicatedImage::checkSize(uint64_t size, const char* what) const {
    if (size != byteSize())
        throw InvalidArgumentError(std::string(what) + ": the image holds " +
                                   std::to_string(byteSize()) + " bytes, got " +
                                   std::to_string(size));
}

void ReplicatedImage::write(const void* data, uint64_t size, int queue_index) {
    checkSize(size, "data");
    if (queue_index != -1) replica(queue_index);  // checks the index
    const int first = queue_index == -1 ? 0 : queue_index;
    const int last = queue_index == -1 ? replicaCount() - 1 : queue_index;
    const std::vector<uint8_t> mips =
        m_spec.mip_levels > 1
            ? hostMipLevels(m_spec, static_cast<const uint8_t*>(data),
                            m_replicas.front()->image->blitsLinearly())
            : std::vector<uint8_t>();
    for (int q = first; q <= last; ++q) {
        Replica& r = *m_replicas[q];
        std::lock_guard<FairMutex> lock(r.transfer);
        BoundBuffer buffer = staging(*r.device, size + mips.size());
        std::memcpy(buffer.memory.mapped(), data, size);
        if (!mips.empty())
            std::memcpy(static_cast<uint8_t*>(buffer.memory.mapped()) + size, mips.data(),
                        mips.size());
        runCopy(r, [&](VkCommandBuffer cb, Image& image) {
            image.recordCopyFromBuffer(cb, buffer.buffer.get(), 0);
            image.recordCopyMipsFromBuffer(cb, buffer.buffer.get(), size);
        });
    }
}

void ReplicatedImage::read(void* out, uint64_t size, int queue_index) {
    checkSize(size, "out");
    Replica& r = replica(queue_index);
    std::lock_guard<FairMutex> lock(r.transfer);
    BoundBuffer buffer = staging(*r.device, size);
    runCopy(r, [&](VkCommandBuffer cb, Image& image) {
        image.recordCopyToBuffer(cb, buffer.buffer.get(), 0);
    });
    std::memcpy(out, buffer.memory.mapped(), size);
}

}  // namespace vkdispatch
