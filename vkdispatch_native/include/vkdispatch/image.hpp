#pragma once
// A VkImage of one device with memory of its own and a view of all its layers, and the commands
// that move it between layouts and copy it to and from buffers and other images. It remembers
// the layout its last recorded command leaves it in, so callers record only the transitions
// they need (recording order is execution order on the queue that runs them).
//
// Thread safety: none; one thread records an image's commands at a time.
#include <cstdint>
#include <string>

#include "vkdispatch/device.hpp"
#include "vkdispatch/handle.hpp"
#include "vkdispatch/memory_pool.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

struct ImageSpec {
    VkImageViewType view_type = VK_IMAGE_VIEW_TYPE_2D;  // 1D, 2D, 2D_ARRAY or 3D
    VkFormat format = VK_FORMAT_R32_SFLOAT;
    VkExtent3D extent{1, 1, 1};
    uint32_t layers = 1;
    uint32_t mip_levels = 1;  // level i is the extent halved i times (at least 1)
    VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    VkImageTiling tiling = VK_IMAGE_TILING_OPTIMAL;
    VkMemoryPropertyFlags memory = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
};

enum class ComponentKind { Float, Signed, Unsigned };

/// What a texel is made of: `channels` components of one kind, `size` bytes in all.
struct TexelLayout {
    ComponentKind kind = ComponentKind::Float;
    uint32_t channels = 0;
    uint32_t size = 0;
};

/// Bytes of one texel of `format` (0 for formats this library does not handle).
uint32_t texelSize(VkFormat format) noexcept;
/// The texel layout of `format` (0 channels and bytes for formats this library does not handle).
TexelLayout texelLayout(VkFormat format) noexcept;
/// "VK_FORMAT_R32G32_SFLOAT"-style name of `format`.
std::string formatName(VkFormat format);
/// Whether `device` filters sampled images of `format` and `tiling` linearly (integer formats
/// usually not).
bool filtersLinearly(Device& device, VkFormat format, VkImageTiling tiling);
/// floor(log2(largest extent)) + 1: the levels of a full mip chain.
uint32_t fullMipLevels(const VkExtent3D& extent) noexcept;

class Image {
public:
    /// Throws InvalidArgumentError naming the format when the device cannot make such an image
    /// (format, tiling, usage or size), and Error when no memory type fits.
    Image(Device& device, const ImageSpec& spec);
    Image(const Image&) = delete;
    Image& operator=(const Image&) = delete;

    VkImage handle() const noexcept { return m_image.get(); }
    VkImageView view() const noexcept { return m_view.get(); }
    const ImageSpec& spec() const noexcept { return m_spec; }
    VkImageLayout layout() const noexcept { return m_layout; }
    /// Bytes of the tightly packed texels (extent x layers x texel size).
    uint64_t byteSize() const noexcept;
    /// Host address of a host-visible linear image, else nullptr.
    void* mapped() const noexcept { return m_memory.mapped(); }
    /// Bytes between rows of a linear image (0 for optimal tiling).
    uint64_t rowPitch() const noexcept { return m_row_pitch; }

    /// Moves the image to `layout` after every earlier transfer or shader access of it; the
    /// next access is `dst_access` at `dst_stage`. Also records when the layout is unchanged
    /// (the barrier orders the accesses).
    void recordTransition(VkCommandBuffer cb, VkImageLayout layout, VkPipelineStageFlags dst_stage,
                          VkAccessFlags dst_access);
    /// Copies tightly packed texels from `buffer` at `offset` into the whole image.
    void recordCopyFromBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset);
    /// Copies the whole image into `buffer` at `offset`, tightly packed.
    void recordCopyToBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset);
    /// Copies `source` (same extent, layers and texel size) into this image.
    void recordCopyFrom(VkCommandBuffer cb, Image& source);
    /// Copies mip levels 1.. from `buffer` at `offset`, packed one after another (as
    /// hostMipLevels makes them); the image must be in TRANSFER_DST_OPTIMAL, as
    /// recordCopyFromBuffer leaves it.
    void recordCopyMipsFromBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset);
    /// Fills mip levels 1.. from level 0 by halving blits (linear where the format filters
    /// linearly, else nearest): on queues with graphics support only. Every level must be in
    /// TRANSFER_DST_OPTIMAL (as a copy into the image leaves it), and is so again afterwards.
    void recordMipChain(VkCommandBuffer cb) const;
    /// Whether the blits are linear.
    bool blitsLinearly() const noexcept { return m_blit_filter == VK_FILTER_LINEAR; }
    /// Whether the device blits images of this format (recordMipChain needs it).
    bool blits() const noexcept { return m_blits; }

private:
    VkBufferImageCopy wholeImageRegion(VkDeviceSize offset) const noexcept;

    ImageSpec m_spec;
    MemoryPool::Lease m_memory;  // declared first: released after the image is destroyed
    UniqueImage m_image;
    UniqueImageView m_view;
    VkImageLayout m_layout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkFilter m_blit_filter = VK_FILTER_NEAREST;
    bool m_blits = false;
    uint64_t m_row_pitch = 0;
};

}  // namespace vkdispatch
