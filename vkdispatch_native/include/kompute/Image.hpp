#pragma once
// kp::Image: a 2-D storage image of width x height texels of 1, 2 or 4 channels (x = width,
// y = height), and ImageT<T>, its typed form. Made by Manager::image / imageT. Its host view is
// tightly packed rows (x fastest, channels interleaved): a staging buffer for eDevice, the
// memory of a linear image for eHost and eDeviceAndHost, none for eStorage. The tiling is
// Kompute's: given, or linear for host-visible memory types and optimal for the others. Between
// operations the image is in VK_IMAGE_LAYOUT_GENERAL, so recorded sequences can be evaluated
// again.
#include <memory>
#include <vector>

#include "kompute/Memory.hpp"

namespace kp {

class Image : public Memory {
public:
    /// `data` (at least width * height * num_channels elements of `data_type`, `data_count` of
    /// them; null: zeros) fills the host view. Throws std::runtime_error with Kompute's messages,
    /// in its order, for a zero size, a custom data type, no channels, too little data, 3 or more
    /// than 4 channels, and optimal `tiling` of a host-visible memory type (which must be linear
    /// to have a host view); tilings other than optimal and linear are refused too.
    Image(std::shared_ptr<detail::Runtime> runtime, const void* data, size_t data_count,
          uint32_t width, uint32_t height, uint32_t num_channels, DataTypes data_type,
          vk::ImageTiling tiling, MemoryTypes memory_type = MemoryTypes::eDevice);

    /// Kompute's tiling when none is given: linear for eHost and eDeviceAndHost, optimal else.
    static vk::ImageTiling defaultTiling(MemoryTypes memory_type) noexcept;
    ~Image() override;

    Type type() const noexcept override { return Type::eImage; }
    bool isInit() const noexcept override;
    void destroy() override;
    VkImage getPrimaryImage() const noexcept;
    VkImageLayout getPrimaryImageLayout() const noexcept;
    uint32_t getNumChannels() const noexcept { return m_channels; }
    vk::ImageTiling getTiling() const noexcept { return m_tiling; }

    void recordCopyFromStagingToDevice(const vk::CommandBuffer& cb) override;
    void recordCopyFromDeviceToStaging(const vk::CommandBuffer& cb) override;
    /// From a tensor (its buffer, same data type and size) or an image (same width and height).
    void recordCopyFrom(const vk::CommandBuffer& cb, const std::shared_ptr<Memory>& other) override;
    /// Copies the image into `buffer` (tightly packed), as a tensor's copy from an image does.
    void recordCopyToBuffer(const vk::CommandBuffer& cb, VkBuffer buffer);
    void writeDescriptor(VkDevice device, VkDescriptorSet set, uint32_t binding) override;

private:
    /// A transition to GENERAL after all earlier work, so the source masks go unused.
    void recordPrimaryBarrier(const vk::CommandBuffer& cb, const Barrier& barrier) override;
    VkBuffer stagingBuffer() const override;

    struct Resources;
    Resources& resources() const;  // std::runtime_error after destroy()

    uint32_t m_channels;
    vk::ImageTiling m_tiling;
    std::shared_ptr<Resources> m_resources;  // null after destroy(); host views may hold it longer
};

template <typename T>
class ImageT : public Image {
public:
    ImageT(std::shared_ptr<detail::Runtime> runtime, const std::vector<T>& values, uint32_t width,
           uint32_t height, uint32_t num_channels, vk::ImageTiling tiling,
           MemoryTypes memory_type = MemoryTypes::eDevice)
        : Image(std::move(runtime), values.empty() ? nullptr : values.data(), values.size(),
                width, height, num_channels, Memory::dataType<T>(), tiling, memory_type) {}

    T* data() { return Memory::data<T>(); }
    std::vector<T> vector() { return Memory::vector<T>(); }
    T& operator[](size_t index) { return data()[index]; }
};

}  // namespace kp
