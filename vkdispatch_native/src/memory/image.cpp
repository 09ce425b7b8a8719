#include "vkdispatch/image.hpp"

#include <algorithm>
#include <vector>

#include "vkdispatch/errors.hpp"
#include "vkdispatch/memory_type.hpp"
#include "vkdispatch/mip_chain.hpp"

namespace vkdispatch {
namespace {

struct FormatInfo {
    VkFormat format;
    const char* name;
    TexelLayout texel;
};

constexpr ComponentKind kSigned = ComponentKind::Signed, kUnsigned = ComponentKind::Unsigned,
                        kFloat = ComponentKind::Float;

// The formats images are made of here: 1, 2 and 4 channels of 8-, 16- and 32-bit integers and
// 16- and 32-bit floats, and 3 channels of 32-bit values.
constexpr FormatInfo kFormats[] = {
    {VK_FORMAT_R8_SINT, "VK_FORMAT_R8_SINT", {kSigned, 1, 1}},
    {VK_FORMAT_R8G8_SINT, "VK_FORMAT_R8G8_SINT", {kSigned, 2, 2}},
    {VK_FORMAT_R8G8B8A8_SINT, "VK_FORMAT_R8G8B8A8_SINT", {kSigned, 4, 4}},
    {VK_FORMAT_R8_UINT, "VK_FORMAT_R8_UINT", {kUnsigned, 1, 1}},
    {VK_FORMAT_R8G8_UINT, "VK_FORMAT_R8G8_UINT", {kUnsigned, 2, 2}},
    {VK_FORMAT_R8G8B8A8_UINT, "VK_FORMAT_R8G8B8A8_UINT", {kUnsigned, 4, 4}},
    {VK_FORMAT_R16_SINT, "VK_FORMAT_R16_SINT", {kSigned, 1, 2}},
    {VK_FORMAT_R16G16_SINT, "VK_FORMAT_R16G16_SINT", {kSigned, 2, 4}},
    {VK_FORMAT_R16G16B16A16_SINT, "VK_FORMAT_R16G16B16A16_SINT", {kSigned, 4, 8}},
    {VK_FORMAT_R16_UINT, "VK_FORMAT_R16_UINT", {kUnsigned, 1, 2}},
    {VK_FORMAT_R16G16_UINT, "VK_FORMAT_R16G16_UINT", {kUnsigned, 2, 4}},
    {VK_FORMAT_R16G16B16A16_UINT, "VK_FORMAT_R16G16B16A16_UINT", {kUnsigned, 4, 8}},
    {VK_FORMAT_R16_SFLOAT, "VK_FORMAT_R16_SFLOAT", {kFloat, 1, 2}},
    {VK_FORMAT_R16G16_SFLOAT, "VK_FORMAT_R16G16_SFLOAT", {kFloat, 2, 4}},
    {VK_FORMAT_R16G16B16A16_SFLOAT, "VK_FORMAT_R16G16B16A16_SFLOAT", {kFloat, 4, 8}},
    {VK_FORMAT_R32_SINT, "VK_FORMAT_R32_SINT", {kSigned, 1, 4}},
    {VK_FORMAT_R32G32_SINT, "VK_FORMAT_R32G32_SINT", {kSigned, 2, 8}},
    {VK_FORMAT_R32G32B32_SINT, "VK_FORMAT_R32G32B32_SINT", {kSigned, 3, 12}},
    {VK_FORMAT_R32G32B32A32_SINT, "VK_FORMAT_R32G32B32A32_SINT", {kSigned, 4, 16}},
    {VK_FORMAT_R32_UINT, "VK_FORMAT_R32_UINT", {kUnsigned, 1, 4}},
    {VK_FORMAT_R32G32_UINT, "VK_FORMAT_R32G32_UINT", {kUnsigned, 2, 8}},
    {VK_FORMAT_R32G32B32_UINT, "VK_FORMAT_R32G32B32_UINT", {kUnsigned, 3, 12}},
    {VK_FORMAT_R32G32B32A32_UINT, "VK_FORMAT_R32G32B32A32_UINT", {kUnsigned, 4, 16}},
    {VK_FORMAT_R32_SFLOAT, "VK_FORMAT_R32_SFLOAT", {kFloat, 1, 4}},
    {VK_FORMAT_R32G32_SFLOAT, "VK_FORMAT_R32G32_SFLOAT", {kFloat, 2, 8}},
    {VK_FORMAT_R32G32B32_SFLOAT, "VK_FORMAT_R32G32B32_SFLOAT", {kFloat, 3, 12}},
    {VK_FORMAT_R32G32B32A32_SFLOAT, "VK_FORMAT_R32G32B32A32_SFLOAT", {kFloat, 4, 16}},
};

const FormatInfo* find(VkFormat format) noexcept {
    for (const auto& info : kFormats)
        if (info.format == format) return &info;
    return nullptr;
}

VkImageType imageType(VkImageViewType view) noexcept {
    switch (view) {
        case VK_IMAGE_VIEW_TYPE_1D:
        case VK_IMAGE_VIEW_TYPE_1D_ARRAY: return VK_IMAGE_TYPE_1D;
        case VK_IMAGE_VIEW_TYPE_3D: return VK_IMAGE_TYPE_3D;
        default: return VK_IMAGE_TYPE_2D;
    }
}

constexpr VkAccessFlags kAnyAccess = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                     VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT;
constexpr VkPipelineStageFlags kAnyStage = VK_PIPELINE_STAGE_TRANSFER_BIT |
                                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                           VK_PIPELINE_STAGE_HOST_BIT;

bool supported(Device& device, const ImageSpec& spec, VkFormat format) {
    VkImageFormatProperties properties{};
    return vkGetPhysicalDeviceImageFormatProperties(device.physical(), format,
                                                    imageType(spec.view_type), spec.tiling,
                                                    spec.usage, 0, &properties) == VK_SUCCESS;
}

// The formats of the table with the same component kind that the device makes for `spec`'s
// use: what the error of an unsupported one offers instead.
std::string alternatives(Device& device, const ImageSpec& spec) {
    const ComponentKind kind = find(spec.format)->texel.kind;
    std::string out;
    for (const auto& info : kFormats) {
        if (info.texel.kind != kind || !supported(device, spec, info.format)) continue;
        out += (out.empty() ? "" : ", ") + std::string(info.name);
    }
    return out.empty() ? "none of that component type" : out;
}

void checkSupported(Device& device, const ImageSpec& spec) {
    if (find(spec.format) == nullptr)
        throw InvalidArgumentError("format: " + formatName(spec.format) +
                                   " is not one of the formats vkdispatch images use");
    VkImageFormatProperties properties{};
    const VkResult result = vkGetPhysicalDeviceImageFormatProperties(
        device.physical(), spec.format, imageType(spec.view_type), spec.tiling, spec.usage, 0,
        &properties);
    const std::string what = formatName(spec.format) + " with " +
                             (spec.tiling == VK_IMAGE_TILING_LINEAR ? "linear" : "optimal") +
                             " tiling and usage 0x" + std::to_string(spec.usage);
    if (result == VK_ERROR_FORMAT_NOT_SUPPORTED)
        throw InvalidArgumentError("format: device '" + device.info().device_name +
                                   "' cannot make images of " + what + "; it offers " +
                                   alternatives(device, spec));
    VK_CHECK(result, "querying the image format properties of " + what);
    const VkExtent3D& e = spec.extent;
    const VkExtent3D& m = properties.maxExtent;
    if (e.width > m.width || e.height > m.height || e.depth > m.depth ||
        spec.layers > properties.maxArrayLayers)
        throw InvalidArgumentError(
            "extent (width x height x depth): " + std::to_string(e.width) + "x" +
            std::to_string(e.height) + "x" + std::to_string(e.depth) + " with " +
            std::to_string(spec.layers) +
            " layer(s) exceeds what device '" + device.info().device_name + "' allows for " +
            what + ": " + std::to_string(m.width) + "x" + std::to_string(m.height) + "x" +
            std::to_string(m.depth) + ", " + std::to_string(properties.maxArrayLayers) +
            " layer(s)");
    // After the extent: the levels a mipmapped image gets follow from it.
    if (spec.mip_levels < 1 || spec.mip_levels > properties.maxMipLevels ||
        spec.mip_levels > fullMipLevels(spec.extent))
        throw InvalidArgumentError("mip_levels: " + std::to_string(spec.mip_levels) +
                                   " levels; " + what + " allows 1.." +
                                   std::to_string(std::min(properties.maxMipLevels,
                                                           fullMipLevels(spec.extent))));
}

}  // namespace

uint32_t texelSize(VkFormat format) noexcept { return texelLayout(format).size; }

TexelLayout texelLayout(VkFormat format) noexcept {
    const FormatInfo* info = find(format);
    return info != nullptr ? info->texel : TexelLayout{};
}

std::string formatName(VkFormat format) {
    const FormatInfo* info = find(format);
    return info != nullptr ? info->name : "VkFormat " + std::to_string(static_cast<int>(format));
}

uint32_t fullMipLevels(const VkExtent3D& extent) noexcept {
    uint32_t largest = std::max({extent.width, extent.height, extent.depth}), levels = 1;
    while (largest >>= 1) ++levels;
    return levels;
}

bool filtersLinearly(Device& device, VkFormat format, VkImageTiling tiling) {
    VkFormatProperties properties{};
    vkGetPhysicalDeviceFormatProperties(device.physical(), format, &properties);
    const VkFormatFeatureFlags features = tiling == VK_IMAGE_TILING_LINEAR
                                              ? properties.linearTilingFeatures
                                              : properties.optimalTilingFeatures;
    return (features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) != 0;
}

Image::Image(Device& device, const ImageSpec& spec) : m_spec(spec) {
    checkSupported(device, spec);
    const VkDevice handle = device.handle();
    const bool linear = spec.tiling == VK_IMAGE_TILING_LINEAR;
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = imageType(spec.view_type);
    info.format = spec.format;
    info.extent = spec.extent;
    info.mipLevels = spec.mip_levels;
    info.arrayLayers = spec.layers;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = spec.tiling;
    info.usage = spec.usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    // Linear images keep what the host writes before their first use.
    info.initialLayout = linear ? VK_IMAGE_LAYOUT_PREINITIALIZED : VK_IMAGE_LAYOUT_UNDEFINED;
    m_layout = info.initialLayout;
    VkImage image = VK_NULL_HANDLE;
    VK_CHECK(vkCreateImage(handle, &info, nullptr, &image), "creating an image of " +
                                                                 formatName(spec.format));
    m_image = UniqueImage(handle, image);

    VkMemoryRequirements requirements;
    vkGetImageMemoryRequirements(handle, image, &requirements);
    const int type = chooseMemoryType(device, requirements.memoryTypeBits, spec.memory, 0);
    if (type < 0)
        throw Error("Memory type index for image creation not found: no memory type with flags "
                    "0x" + std::to_string(spec.memory) + " can hold this image of " +
                    formatName(spec.format));
    m_memory = device.memoryPool().allocateDedicated(requirements, static_cast<uint32_t>(type));
    VK_CHECK(vkBindImageMemory(handle, image, m_memory.memory(), m_memory.offset()),
             "binding image memory");
    if (linear) {
        const VkImageSubresource first{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
        VkSubresourceLayout layout;
        vkGetImageSubresourceLayout(handle, image, &first, &layout);
        m_row_pitch = layout.rowPitch;
    }

    VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view_info.image = image;
    view_info.viewType = spec.view_type;
    view_info.format = spec.format;
    view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, spec.mip_levels, 0,
                                  spec.layers};
    VkImageView view = VK_NULL_HANDLE;
    VK_CHECK(vkCreateImageView(handle, &view_info, nullptr, &view), "creating an image view");
    m_view = UniqueImageView(handle, view);
    if (filtersLinearly(device, spec.format, spec.tiling)) m_blit_filter = VK_FILTER_LINEAR;
    VkFormatProperties features{};
    vkGetPhysicalDeviceFormatProperties(device.physical(), spec.format, &features);
    const VkFormatFeatureFlags blit =
        VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT;
    const VkFormatFeatureFlags offered =
        linear ? features.linearTilingFeatures : features.optimalTilingFeatures;
    m_blits = (offered & blit) == blit;
}

uint64_t Image::byteSize() const noexcept {
    return uint64_t(m_spec.extent.width) * m_spec.extent.height * m_spec.extent.depth *
           m_spec.layers * texelSize(m_spec.format);
}

void Image::recordTransition(VkCommandBuffer cb, VkImageLayout layout,
                             VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
    VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    barrier.srcAccessMask = kAnyAccess;
    barrier.dstAccessMask = dst_access;
    barrier.oldLayout = m_layout;
    barrier.newLayout = layout;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.image = m_image.get();
    barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, m_spec.mip_levels, 0,
                                m_spec.layers};
    vkCmdPipelineBarrier(cb, kAnyStage, dst_stage, 0, 0, nullptr, 0, nullptr, 1, &barrier);
    m_layout = layout;
}

VkBufferImageCopy Image::wholeImageRegion(VkDeviceSize offset) const noexcept {
    VkBufferImageCopy region{};
    region.bufferOffset = offset;  // row length and height 0: tightly packed
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, m_spec.layers};
    region.imageExtent = m_spec.extent;
    return region;
}

void Image::recordCopyFromBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset) {
    recordTransition(cb, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkBufferImageCopy region = wholeImageRegion(offset);
    vkCmdCopyBufferToImage(cb, buffer, m_image.get(), m_layout, 1, &region);
}

void Image::recordCopyToBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset) {
    recordTransition(cb, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_TRANSFER_READ_BIT);
    const VkBufferImageCopy region = wholeImageRegion(offset);
    vkCmdCopyImageToBuffer(cb, m_image.get(), m_layout, buffer, 1, &region);
}

void Image::recordCopyFrom(VkCommandBuffer cb, Image& source) {
    const ImageSpec& s = source.spec();
    if (s.extent.width != m_spec.extent.width || s.extent.height != m_spec.extent.height ||
        s.extent.depth != m_spec.extent.depth || s.layers != m_spec.layers ||
        texelSize(s.format) != texelSize(m_spec.format))
        throw InvalidArgumentError("source: an image copy needs the same extent, layers and "
                                   "texel size (" + formatName(s.format) + " to " +
                                   formatName(m_spec.format) + ")");
    source.recordTransition(cb, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    recordTransition(cb, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_TRANSFER_WRITE_BIT);
    VkImageCopy region{};
    region.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, m_spec.layers};
    region.dstSubresource = region.srcSubresource;
    region.extent = m_spec.extent;
    vkCmdCopyImage(cb, source.handle(), source.layout(), m_image.get(), m_layout, 1, &region);
}

namespace {

// Moves one mip level between the transfer layouts, after the transfer that last used it.
void transferLevel(VkCommandBuffer cb, VkImage image, uint32_t level, uint32_t layers,
                   VkImageLayout from, VkImageLayout to) {
    VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.oldLayout = from;
    barrier.newLayout = to;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.image = image;
    barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, level, 1, 0, layers};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &barrier);
}

VkOffset3D corner(const VkExtent3D& e) {
    return {static_cast<int32_t>(e.width), static_cast<int32_t>(e.height),
            static_cast<int32_t>(e.depth)};
}

}  // namespace

void Image::recordCopyMipsFromBuffer(VkCommandBuffer cb, VkBuffer buffer,
                                     VkDeviceSize offset) {
    std::vector<VkBufferImageCopy> regions;
    for (uint32_t level = 1; level < m_spec.mip_levels; ++level) {
        VkBufferImageCopy region{};
        region.bufferOffset = offset;
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, m_spec.layers};
        region.imageExtent = mipExtent(m_spec.extent, level);
        regions.push_back(region);
        offset += uint64_t(region.imageExtent.width) * region.imageExtent.height *
                  region.imageExtent.depth * m_spec.layers * texelSize(m_spec.format);
    }
    if (!regions.empty())
        vkCmdCopyBufferToImage(cb, buffer, m_image.get(), m_layout,
                               static_cast<uint32_t>(regions.size()), regions.data());
}

void Image::recordMipChain(VkCommandBuffer cb) const {
    const VkImage image = m_image.get();
    for (uint32_t level = 1; level < m_spec.mip_levels; ++level) {
        transferLevel(cb, image, level - 1, m_spec.layers, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        VkImageBlit blit{};
        blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level - 1, 0, m_spec.layers};
        blit.srcOffsets[1] = corner(mipExtent(m_spec.extent, level - 1));
        blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, m_spec.layers};
        blit.dstOffsets[1] = corner(mipExtent(m_spec.extent, level));
        vkCmdBlitImage(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, m_blit_filter);
        transferLevel(cb, image, level - 1, m_spec.layers, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    }
}

}  // namespace vkdispatch
