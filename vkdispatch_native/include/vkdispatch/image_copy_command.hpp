#pragma once
// A recorded copy between a ReplicatedImage and a Buffer, or between two ReplicatedImages, of
// one context: on each queue it copies that queue's replicas. Images rest in
// SHADER_READ_ONLY_OPTIMAL between commands (replicated_image.hpp), so the command moves each
// image it touches to a transfer layout and back inside its own image barriers, which also order
// it after earlier and before later uses of the image; the buffer side is planned like any
// buffer access.
//
// Thread safety: see command.hpp.
#include <cstdint>
#include <vector>

#include "vkdispatch/command.hpp"

namespace vkdispatch {

class Buffer;
class ReplicatedImage;

/// One side of an image copy: the whole of an image, or the packed texels of one at a byte
/// offset of a buffer.
struct ImageCopyEnd {
    ReplicatedImage* image = nullptr;
    Buffer* buffer = nullptr;
    uint64_t offset = 0;  // bytes into `buffer`
};

/// Throws InvalidArgumentError naming dst where a copy into `image` cannot remake its mip
/// levels on every queue (the device remakes them by blits, which need queues with graphics
/// support and a format that blits); returns for an image without mip levels. A graph asks
/// when the copy is added to it, so that a refused copy never reaches the graph.
void checkCopyDestination(ReplicatedImage& image);

class ImageCopyCommand final : public Command {
public:
    /// Copies the whole image of `src` or `dst` (at least one end is an image; two images need
    /// the same extent, layers and texel size). Throws InvalidArgumentError naming the end at
    /// fault: another context, an end that is neither or both, a buffer range too small for
    /// the packed texels, or an offset that is not a multiple of the texel size.
    ImageCopyCommand(Context& context, const ImageCopyEnd& dst, const ImageCopyEnd& src);

    const std::vector<ResourceAccess>& accesses() const noexcept override { return m_accesses; }
    std::string label() const override { return "image copy"; }
    void record(VkCommandBuffer cb, RecordState& state, const uint8_t* push_constants) override;
    void markUsed(int queue_index, uint64_t value) noexcept override;

private:
    ImageCopyEnd m_dst, m_src;
    std::vector<ResourceAccess> m_accesses;
};

}  // namespace vkdispatch
