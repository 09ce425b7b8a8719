#pragma once
// kp::Tensor: a storage buffer of `size` elements (x = size, y = 1), and TensorT<T>, its typed
// form. Made by Manager::tensor / tensorT.
#include <memory>
#include <vector>

#include "kompute/Memory.hpp"

namespace kp {

class Tensor : public Memory {
public:
    // Kompute 0.8-0.9 named these on the Tensor.
    using TensorTypes = MemoryTypes;
    using TensorDataTypes = DataTypes;

    /// `data` (size * element_size bytes, or null: zeros) fills the host view. Throws
    /// std::runtime_error for a zero size, std::runtime_error when no memory type fits.
    Tensor(std::shared_ptr<detail::Runtime> runtime, const void* data, uint32_t size,
           uint32_t element_size, DataTypes data_type,
           MemoryTypes memory_type = MemoryTypes::eDevice);
    ~Tensor() override;

    Type type() const noexcept override { return Type::eTensor; }
    bool isInit() const noexcept override;
    void destroy() override;
    VkBuffer getPrimaryBuffer() const noexcept;

    void recordCopyFromStagingToDevice(const vk::CommandBuffer& cb) override;
    void recordCopyFromDeviceToStaging(const vk::CommandBuffer& cb) override;
    void recordCopyFrom(const vk::CommandBuffer& cb, const std::shared_ptr<Memory>& other) override;
    void writeDescriptor(VkDevice device, VkDescriptorSet set, uint32_t binding) override;

private:
    void recordPrimaryBarrier(const vk::CommandBuffer& cb, const Barrier& barrier) override;
    VkBuffer stagingBuffer() const override;

    struct Buffers;
    std::shared_ptr<Buffers> m_buffers;  // null after destroy(); host views may hold it longer
};

template <typename T>
class TensorT : public Tensor {
public:
    TensorT(std::shared_ptr<detail::Runtime> runtime, const std::vector<T>& values,
            MemoryTypes memory_type = MemoryTypes::eDevice)
        : Tensor(std::move(runtime), values.data(), static_cast<uint32_t>(values.size()),
                 sizeof(T), Memory::dataType<T>(), memory_type) {}

    T* data() { return Memory::data<T>(); }
    std::vector<T> vector() { return Memory::vector<T>(); }
    T& operator[](size_t index) { return data()[index]; }

    /// Kompute 0.9 declared the data type here, and its programs specialise this member for
    /// their own structs (`template<> kp::Tensor::TensorDataTypes kp::TensorT<S>::dataType()`).
    /// Such a specialisation compiles and is what this call returns; the tensor itself takes its
    /// type from Memory::dataType<T>(), which is eCustom for every type that is not built in.
    DataTypes dataType() { return Memory::dataType(); }
    using Memory::dataType;  // the const accessor, and Memory::dataType<T>()
};

}  // namespace kp
