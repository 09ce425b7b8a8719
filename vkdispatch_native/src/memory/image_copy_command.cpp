#include "vkdispatch/image_copy_command.hpp"

#include <string>

#include "vkdispatch/atomic_max.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/device.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/queue.hpp"
#include "vkdispatch/replicated_image.hpp"

namespace vkdispatch {
namespace {

constexpr VkImageLayout kSteady = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
constexpr VkPipelineStageFlags kCopyStage = VK_PIPELINE_STAGE_TRANSFER_BIT;
// Whatever else uses an image between commands: sampling shaders and other image copies.
constexpr VkPipelineStageFlags kImageStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kImageAccess =
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

std::string endName(const char* end, const ImageCopyEnd& e) {
    return std::string(end) + (e.image != nullptr ? " (an image)" : " (a buffer)");
}

void checkEnd(const ImageCopyEnd& end, const Context& context, const char* name) {
    if ((end.image == nullptr) == (end.buffer == nullptr))
        throw InvalidArgumentError(std::string(name) + ": give an image or a buffer");
    const Context& owner = end.image != nullptr ? end.image->context() : end.buffer->context();
    if (&owner != &context)
        throw InvalidArgumentError(endName(name, end) +
                                   ": belongs to another context than the command list");
}

void checkBufferFits(const ImageCopyEnd& end, const ReplicatedImage& image, const char* name) {
    const uint64_t texel = texelSize(image.spec().format);
    if (end.offset % texel != 0)
        throw InvalidArgumentError(std::string(name) + ": offset " + std::to_string(end.offset) +
                                   " is not a multiple of the " + std::to_string(texel) +
                                   "-byte texels of " + formatName(image.spec().format));
    const uint64_t size = end.buffer->size();
    if (end.offset > size || image.byteSize() > size - end.offset)
        throw InvalidArgumentError(std::string(name) + ": the image's " +
                                   std::to_string(image.byteSize()) + " bytes from offset " +
                                   std::to_string(end.offset) + " do not fit in the buffer of " +
                                   std::to_string(size) + " bytes");
}

void checkSameShape(const ReplicatedImage& dst, const ReplicatedImage& src) {
    const ImageSpec &d = dst.spec(), &s = src.spec();
    if (&dst == &src) throw InvalidArgumentError("dst: is the source image itself");
    if (d.extent.width != s.extent.width || d.extent.height != s.extent.height ||
        d.extent.depth != s.extent.depth || d.layers != s.layers ||
        texelSize(d.format) != texelSize(s.format))
        throw InvalidArgumentError(
            "dst: an image copy needs the same extent, layers and texel size; src is " +
            std::to_string(s.extent.width) + "x" + std::to_string(s.extent.height) + "x" +
            std::to_string(s.extent.depth) + " x " + std::to_string(s.layers) + " of " +
            formatName(s.format) + ", dst " + std::to_string(d.extent.width) + "x" +
            std::to_string(d.extent.height) + "x" + std::to_string(d.extent.depth) + " x " +
            std::to_string(d.layers) + " of " + formatName(d.format));
}


// Moves `image` between the steady layout and a transfer layout; `entering` orders it after
// every earlier use, leaving orders every later use after the copy.
void transition(VkCommandBuffer cb, const Image& image, VkImageLayout transfer, bool entering) {
    const bool write = transfer == VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    const VkAccessFlags copy_access =
        write ? VK_ACCESS_TRANSFER_WRITE_BIT : VK_ACCESS_TRANSFER_READ_BIT;
    VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    barrier.srcAccessMask = entering ? kImageAccess : copy_access;
    barrier.dstAccessMask = entering ? copy_access : kImageAccess;
    barrier.oldLayout = entering ? kSteady : transfer;
    barrier.newLayout = entering ? transfer : kSteady;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.image = image.handle();
    barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, image.spec().mip_levels, 0,
                                image.spec().layers};
    vkCmdPipelineBarrier(cb, entering ? kImageStages : kCopyStage,
                         entering ? kCopyStage : kImageStages, 0, 0, nullptr, 0, nullptr, 1,
                         &barrier);
}

VkBufferImageCopy wholeImage(const Image& image, uint64_t buffer_offset) {
    VkBufferImageCopy region{};
    region.bufferOffset = buffer_offset;  // row length and height 0: tightly packed
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, image.spec().layers};
    region.imageExtent = image.spec().extent;
    return region;
}

Image* replicaImage(const ImageCopyEnd& end, int queue_index) {
    return end.image != nullptr ? end.image->replica(queue_index).image.get() : nullptr;
}

}  // namespace

void checkCopyDestination(ReplicatedImage& image) {
    if (image.spec().mip_levels <= 1) return;
    for (int q = 0; q < image.replicaCount(); ++q) {
        ReplicatedImage::Replica& r = image.replica(q);
        const DeviceInfo& info = r.device->info();
        const bool graphics =
            (info.queue_families.at(r.queue->family()).flags & VK_QUEUE_GRAPHICS_BIT) != 0;
        if (graphics && r.image->blits()) continue;
        const std::string why =
            graphics ? formatName(image.spec().format) + " images cannot be blitted there"
                     : "queue " + std::to_string(q) + " has no graphics support";
        throw InvalidArgumentError("dst: its mip levels would be remade on '" +
                                   info.device_name + "' by blits, but " + why +
                                   "; write() the image from the host (its levels are made "
                                   "there), or make it without mip levels");
    }
}

ImageCopyCommand::ImageCopyCommand(Context& context, const ImageCopyEnd& dst,
                                   const ImageCopyEnd& src)
    : Command(context), m_dst(dst), m_src(src) {
    checkEnd(dst, context, "dst");
    checkEnd(src, context, "src");
    if (dst.image == nullptr && src.image == nullptr)
        throw InvalidArgumentError("src: an image copy needs an image at one end at least");
    if (dst.image != nullptr && src.image != nullptr) checkSameShape(*dst.image, *src.image);
    if (dst.image != nullptr) checkCopyDestination(*dst.image);
    if (dst.buffer != nullptr) checkBufferFits(dst, *src.image, "dst");
    if (src.buffer != nullptr) checkBufferFits(src, *dst.image, "src");
    // Only the buffer side is planned: the image barriers of record() order the image side.
    if (dst.buffer != nullptr)
        m_accesses.push_back({reinterpret_cast<uintptr_t>(dst.buffer), Stage::Transfer, false,
                              true});
    if (src.buffer != nullptr)
        m_accesses.push_back({reinterpret_cast<uintptr_t>(src.buffer), Stage::Transfer, true,
                              false});
}

void ImageCopyCommand::record(VkCommandBuffer cb, RecordState& state, const uint8_t*) {
    const int q = state.queue_index;
    Image* dst = replicaImage(m_dst, q);
    Image* src = replicaImage(m_src, q);
    if (src != nullptr) transition(cb, *src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, true);
    if (dst != nullptr) transition(cb, *dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, true);
    if (dst != nullptr && src != nullptr) {
        VkImageCopy region{};
        region.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, dst->spec().layers};
        region.dstSubresource = region.srcSubresource;
        region.extent = dst->spec().extent;
        vkCmdCopyImage(cb, src->handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst->handle(),
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    } else if (dst != nullptr) {
        const VkBufferImageCopy region = wholeImage(*dst, m_src.offset);
        vkCmdCopyBufferToImage(cb, m_src.buffer->replica(q).storage.buffer.get(), dst->handle(),
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    } else {
        const VkBufferImageCopy region = wholeImage(*src, m_dst.offset);
        vkCmdCopyImageToBuffer(cb, src->handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               m_dst.buffer->replica(q).storage.buffer.get(), 1, &region);
    }
    if (dst != nullptr) dst->recordMipChain(cb);
    if (src != nullptr) transition(cb, *src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, false);
    if (dst != nullptr) transition(cb, *dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, false);
}

void ImageCopyCommand::markUsed(int queue_index, uint64_t value) noexcept {
    for (const ImageCopyEnd* end : {&m_dst, &m_src}) {
        if (end->image != nullptr)
            detail::raiseTo(end->image->replica(queue_index).last_use, value);
        else
            detail::raiseTo(end->buffer->replica(queue_index).last_use, value);
    }
}

}  // namespace vkdispatch
