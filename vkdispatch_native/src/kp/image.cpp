#include "kompute/Image.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "kompute/Tensor.hpp"
#include "recording.hpp"
#include "runtime.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/image.hpp"
#include "vkdispatch/memory_type.hpp"

namespace kp {
namespace {

constexpr VkMemoryPropertyFlags kCoherent =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkPipelineStageFlags kShaderOrTransfer =
    VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkAccessFlags kShaderOrTransferAccess =
    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT |
    VK_ACCESS_SHADER_WRITE_BIT;

struct FormatRow {
    Memory::DataTypes type;
    VkFormat formats[3];  // 1, 2 and 4 channels
};

constexpr FormatRow kFormats[] = {
    {Memory::DataTypes::eChar, {VK_FORMAT_R8_SINT, VK_FORMAT_R8G8_SINT, VK_FORMAT_R8G8B8A8_SINT}},
    {Memory::DataTypes::eUnsignedChar,
     {VK_FORMAT_R8_UINT, VK_FORMAT_R8G8_UINT, VK_FORMAT_R8G8B8A8_UINT}},
    {Memory::DataTypes::eShort,
     {VK_FORMAT_R16_SINT, VK_FORMAT_R16G16_SINT, VK_FORMAT_R16G16B16A16_SINT}},
    {Memory::DataTypes::eUnsignedShort,
     {VK_FORMAT_R16_UINT, VK_FORMAT_R16G16_UINT, VK_FORMAT_R16G16B16A16_UINT}},
    {Memory::DataTypes::eInt,
     {VK_FORMAT_R32_SINT, VK_FORMAT_R32G32_SINT, VK_FORMAT_R32G32B32A32_SINT}},
    {Memory::DataTypes::eUnsignedInt,
     {VK_FORMAT_R32_UINT, VK_FORMAT_R32G32_UINT, VK_FORMAT_R32G32B32A32_UINT}},
    {Memory::DataTypes::eFloat,
     {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT}},
    {Memory::DataTypes::eFloat16,
     {VK_FORMAT_R16_SFLOAT, VK_FORMAT_R16G16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT}},
};

VkFormat formatOf(Memory::DataTypes type, uint32_t channels) {
    for (const auto& row : kFormats)
        if (row.type == type) return row.formats[channels == 1 ? 0 : channels == 2 ? 1 : 2];
    throw std::runtime_error("Kompute Image has no format for data type " + toString(type) +
                             " (images take char, uchar, short, ushort, int, uint, float or "
                             "float16)");
}

// The memory types whose host view is the image's own memory.
bool hostVisible(Memory::MemoryTypes type) {
    return type == Memory::MemoryTypes::eHost || type == Memory::MemoryTypes::eDeviceAndHost;
}

// Only linear images have host views, so host-visible memory types refuse optimal tiling.
void checkTiling(vk::ImageTiling tiling, Memory::MemoryTypes memory_type) {
    if (tiling != vk::ImageTiling::eOptimal && tiling != vk::ImageTiling::eLinear)
        throw std::runtime_error("Kompute Image tiling must be vk::ImageTiling::eOptimal or "
                                 "eLinear, got vk::ImageTiling::e" + vk::to_string(tiling));
    if (tiling == vk::ImageTiling::eOptimal && hostVisible(memory_type))
        throw std::runtime_error("Kompute Image with optimal tiling is only supported for eDevice "
                                 "and eStorage images (memory type " + toString(memory_type) +
                                 "; use vk::ImageTiling::eLinear or leave the tiling out)");
}

// Kompute's checks, in its order, before anything is made.
uint32_t checkedSize(const void* data, size_t data_count, uint32_t width, uint32_t height,
                     uint32_t channels, Memory::DataTypes type, vk::ImageTiling tiling,
                     Memory::MemoryTypes memory_type) {
    if (width == 0 || height == 0)
        throw std::runtime_error("Kompute Memory attempted to create a zero-sized memory object");
    if (type == Memory::DataTypes::eCustom)
        throw std::runtime_error("Custom data types are not supported for Kompute Images");
    if (channels == 0)
        throw std::runtime_error("Kompute Image attempted to create an image with no channels");
    const uint64_t size = uint64_t(width) * height * channels;
    if (data != nullptr && data_count < size)
        throw std::runtime_error("Kompute Image data is smaller than the requested image size");
    if (channels == 3 || channels > 4)
        throw std::runtime_error("Kompute Images can only have up to 1, 2 or 4 channels");
    checkTiling(tiling, memory_type);
    formatOf(type, channels);  // before Memory sees a bool or double type
    return static_cast<uint32_t>(size);
}

std::runtime_error destroyedError() {
    return std::runtime_error("Kompute Image was destroyed: it cannot be recorded");
}

}  // namespace

struct Image::Resources {
    std::shared_ptr<detail::Runtime> runtime;  // first: the device outlives the rest
    vkdispatch::BoundBuffer staging;           // eDevice only
    std::unique_ptr<vkdispatch::Image> image;

    // Back to GENERAL, the layout between operations, after a copy.
    void settle(VkCommandBuffer cb) {
        image->recordTransition(cb, VK_IMAGE_LAYOUT_GENERAL, kShaderOrTransfer,
                                kShaderOrTransferAccess);
    }
};

Image::Image(std::shared_ptr<detail::Runtime> runtime, const void* data, size_t data_count,
             uint32_t width, uint32_t height, uint32_t num_channels, DataTypes data_type,
             vk::ImageTiling tiling, MemoryTypes memory_type)
    : Memory(std::move(runtime),
             checkedSize(data, data_count, width, height, num_channels, data_type, tiling,
                         memory_type),
             elementSize(data_type), data_type, memory_type, width, height),
      m_channels(num_channels),
      m_tiling(tiling),
      m_resources(std::make_shared<Resources>()) {
    Resources& r = *m_resources;
    r.runtime = m_runtime;
    vkdispatch::ImageSpec spec;
    spec.format = formatOf(data_type, num_channels);
    spec.extent = {width, height, 1};
    spec.usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                 VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    spec.tiling = static_cast<VkImageTiling>(tiling);
    const VkMemoryPropertyFlags device_local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    spec.memory = memory_type == MemoryTypes::eHost            ? kCoherent
                  : memory_type == MemoryTypes::eDeviceAndHost ? device_local | kCoherent
                                                               : device_local;
    r.image = std::make_unique<vkdispatch::Image>(m_runtime->device(), spec);
    if (memory_type == MemoryTypes::eDevice) {
        r.staging = vkdispatch::createBoundBuffer(
            m_runtime->device(), memorySize(),
            VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, kCoherent, 0);
        m_host = std::shared_ptr<void>(m_resources, r.staging.memory.mapped());
    } else if (hostVisible(memory_type)) {
        // The host view is the image's memory: flat only if the device packs its rows.
        if (r.image->rowPitch() != uint64_t(width) * num_channels * elementSize(data_type) &&
            height > 1)
            throw std::runtime_error(
                "Kompute Image of memory type " + toString(memory_type) +
                ": this device pads the rows of linear images (" +
                std::to_string(r.image->rowPitch()) + " bytes for " + std::to_string(width) +
                " texels), so their memory is no flat host view; use eDevice");
        m_host = std::shared_ptr<void>(m_resources, r.image->mapped());
    }
    fillHostView(data);
    // Into GENERAL once, now, so every recorded sequence starts and ends there.
    auto& queue = m_runtime->context->queue(0);
    queue.wait(queue.submit([&](VkCommandBuffer cb) { r.settle(cb); }));
}

Image::~Image() = default;

vk::ImageTiling Image::defaultTiling(MemoryTypes memory_type) noexcept {
    return hostVisible(memory_type) ? vk::ImageTiling::eLinear : vk::ImageTiling::eOptimal;
}

bool Image::isInit() const noexcept { return m_resources != nullptr && m_runtime != nullptr; }

void Image::destroy() {
    awaitSubmittedWork();
    m_resources.reset();
    forget();
}

Image::Resources& Image::resources() const {
    if (!m_resources) throw destroyedError();
    return *m_resources;
}

VkImage Image::getPrimaryImage() const noexcept {
    return m_resources ? m_resources->image->handle() : VK_NULL_HANDLE;
}

VkImageLayout Image::getPrimaryImageLayout() const noexcept {
    return m_resources ? m_resources->image->layout() : VK_IMAGE_LAYOUT_UNDEFINED;
}

void Image::recordCopyFromStagingToDevice(const vk::CommandBuffer& cb) {
    Resources& r = resources();
    if (memoryType() != MemoryTypes::eDevice) return;
    r.image->recordCopyFromBuffer(cb, r.staging.buffer.get(), 0);
    r.settle(cb);
}

void Image::recordCopyFromDeviceToStaging(const vk::CommandBuffer& cb) {
    Resources& r = resources();
    if (memoryType() != MemoryTypes::eDevice) return;
    r.image->recordCopyToBuffer(cb, r.staging.buffer.get(), 0);
    r.settle(cb);
}

void Image::recordCopyToBuffer(const vk::CommandBuffer& cb, VkBuffer buffer) {
    Resources& r = resources();
    r.image->recordCopyToBuffer(cb, buffer, 0);
    r.settle(cb);
}

void Image::recordCopyFrom(const vk::CommandBuffer& cb, const std::shared_ptr<Memory>& other) {
    Resources& r = resources();
    if (!other || !other->isInit()) throw destroyedError();
    checkCopyFrom(*other);
    if (auto* source = dynamic_cast<Image*>(other.get())) {
        if (source->getX() != getX() || source->getY() != getY())
            throw std::runtime_error("Kompute Image recordCopyFrom image sizes do not match");
        Resources& s = source->resources();
        r.image->recordCopyFrom(cb, *s.image);
        s.settle(cb);
    } else {
        r.image->recordCopyFromBuffer(cb, static_cast<Tensor&>(*other).getPrimaryBuffer(), 0);
    }
    r.settle(cb);
}

void Image::recordPrimaryBarrier(const vk::CommandBuffer& cb, const Barrier& barrier) {
    resources().image->recordTransition(cb, VK_IMAGE_LAYOUT_GENERAL,
                                        static_cast<VkPipelineStageFlags>(barrier.dst_stage),
                                        static_cast<VkAccessFlags>(barrier.dst_access));
}

VkBuffer Image::stagingBuffer() const { return resources().staging.buffer.get(); }

void Image::writeDescriptor(VkDevice device, VkDescriptorSet set, uint32_t binding) {
    const VkDescriptorImageInfo info{VK_NULL_HANDLE, resources().image->view(),
                                     VK_IMAGE_LAYOUT_GENERAL};
    detail::writeDescriptor(device, set, binding, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, nullptr,
                            &info);
}

}  // namespace kp
