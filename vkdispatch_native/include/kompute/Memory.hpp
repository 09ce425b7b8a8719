#pragma once
// kp::Memory: what a shader binds, with a primary resource on the device and, for
// MemoryTypes::eDevice, a host-visible staging copy that the sync operations move data through.
// Tensors (buffers) and images derive from it; the host view is the staging memory (eDevice),
// the primary memory itself (eHost, eDeviceAndHost) or absent (eStorage).
//
// Thread safety: like Kompute's, none; one thread uses a memory object at a time.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kompute/Core.hpp"
#include "kompute/Float16.hpp"

namespace kp {

namespace detail {
struct Runtime;
}

class Memory {
public:
    enum class MemoryTypes { eDevice = 0, eHost = 1, eStorage = 2, eDeviceAndHost = 3 };
    enum class DataTypes {
        eBool = 0, eInt = 1, eUnsignedInt = 2, eFloat = 3, eDouble = 4, eCustom = 5,
        eShort = 6, eUnsignedShort = 7, eChar = 8, eUnsignedChar = 9,
        eFloat16 = 10  // not in Kompute (its issue #416 asks for it): kp::float16 elements
    };
    enum class Type { eTensor = 0, eImage = 1 };

    /// The DataTypes value of element type T (eCustom for anything but the built-in types).
    template <typename T>
    static constexpr DataTypes dataType();

    virtual ~Memory();
    Memory(const Memory&) = delete;
    Memory& operator=(const Memory&) = delete;

    virtual Type type() const noexcept = 0;
    MemoryTypes memoryType() const noexcept { return m_memory_type; }
    DataTypes dataType() const noexcept { return m_data_type; }
    /// Elements (0 after destroy()).
    uint32_t size() const noexcept { return m_size; }
    uint32_t dataTypeMemorySize() const noexcept { return m_element_size; }
    /// Bytes: size() * dataTypeMemorySize().
    uint64_t memorySize() const noexcept { return uint64_t(m_size) * m_element_size; }
    /// Whether it was made on the device of `runtime`, by any of its Managers (false after
    /// destroy()).
    bool belongsTo(const std::shared_ptr<detail::Runtime>& runtime) const noexcept {
        return m_runtime != nullptr && m_runtime == runtime;
    }
    /// The runtime of the device it was made on (null after destroy()), for operations that
    /// build device objects of their own for it (kp::OpFFT's plans).
    const std::shared_ptr<detail::Runtime>& runtime() const noexcept { return m_runtime; }
    uint32_t getX() const noexcept { return m_x; }
    uint32_t getY() const noexcept { return m_y; }

    /// The host view (staging memory for eDevice, the memory itself for eHost and
    /// eDeviceAndHost). Throws std::runtime_error for eStorage and after destroy().
    void* rawData();
    /// rawData() as a pointer that keeps the host memory valid while it is held, even past
    /// destroy() (for views that may outlive the object, such as numpy arrays in Python).
    std::shared_ptr<void> sharedRawData();
    template <typename T>
    T* data() { return static_cast<T*>(rawData()); }
    template <typename T>
    std::vector<T> vector() {
        const T* begin = data<T>();
        return std::vector<T>(begin, begin + memorySize() / sizeof(T));
    }
    /// Copies `bytes` (which must equal memorySize()) into the host view.
    void setData(const void* data, size_t bytes);
    template <typename T>
    void setData(const std::vector<T>& values) {
        setData(values.data(), values.size() * sizeof(T));
    }

    virtual bool isInit() const noexcept = 0;
    /// Frees the resources once the device finished the work submitted so far (sequences that
    /// recorded commands on them then refuse to run those); a second call does nothing.
    virtual void destroy() = 0;

    /// Records the copy from the staging resource to the primary one (eDevice only).
    virtual void recordCopyFromStagingToDevice(const vk::CommandBuffer& cb) = 0;
    /// Records the copy from the primary resource to the staging one (eDevice only).
    virtual void recordCopyFromDeviceToStaging(const vk::CommandBuffer& cb) = 0;
    /// Records a GPU copy of `other`'s primary resource into this one's.
    virtual void recordCopyFrom(const vk::CommandBuffer& cb,
                                const std::shared_ptr<Memory>& other) = 0;
    /// Records a barrier on the primary resource: a tensor's buffer, or an image (which stays in
    /// the GENERAL layout). Throws std::runtime_error after destroy().
    void recordPrimaryMemoryBarrier(const vk::CommandBuffer& cb, vk::AccessFlagBits src_access,
                                    vk::AccessFlagBits dst_access,
                                    vk::PipelineStageFlagBits src_stage,
                                    vk::PipelineStageFlagBits dst_stage);
    /// Records a barrier on the staging buffer (eDevice only; nothing for the other memory
    /// types). Throws std::runtime_error after destroy().
    void recordStagingMemoryBarrier(const vk::CommandBuffer& cb, vk::AccessFlagBits src_access,
                                    vk::AccessFlagBits dst_access,
                                    vk::PipelineStageFlagBits src_stage,
                                    vk::PipelineStageFlagBits dst_stage);
    /// What a shader binds it as, which follows from type().
    vk::DescriptorType getDescriptorType() const noexcept {
        return type() == Type::eImage ? vk::DescriptorType::eStorageImage
                                      : vk::DescriptorType::eStorageBuffer;
    }
    /// Writes this object into binding `binding` of `set`.
    virtual void writeDescriptor(VkDevice device, VkDescriptorSet set, uint32_t binding) = 0;

protected:
    /// The access and stage masks of a barrier.
    struct Barrier {
        vk::AccessFlagBits src_access, dst_access;
        vk::PipelineStageFlagBits src_stage, dst_stage;
    };

    /// Copies `data` (memorySize() bytes; null: zeros) into the host view, if there is one.
    void fillHostView(const void* data);
    /// Waits until the device finished the work submitted so far, which may use the resources
    /// destroy() is about to free (nothing after destroy()).
    void awaitSubmittedWork() const;
    /// What destroy() leaves of every memory object: no host view, no size, no device.
    void forget() noexcept;
    /// Kompute's errors for a copy from `source` of another data type or size.
    void checkCopyFrom(const Memory& source) const;

    Memory(std::shared_ptr<detail::Runtime> runtime, uint32_t size, uint32_t element_size,
           DataTypes data_type, MemoryTypes memory_type, uint32_t x, uint32_t y);

    std::shared_ptr<detail::Runtime> m_runtime;  // null after destroy()
    uint32_t m_size;
    uint32_t m_element_size;
    DataTypes m_data_type;
    MemoryTypes m_memory_type;
    uint32_t m_x, m_y;
    std::shared_ptr<void> m_host;  // the host view (owning its memory), set by the subclass

private:
    /// recordPrimaryMemoryBarrier() on the subclass's own kind of resource.
    virtual void recordPrimaryBarrier(const vk::CommandBuffer& cb, const Barrier& barrier) = 0;
    /// The staging buffer (VK_NULL_HANDLE unless eDevice). Throws std::runtime_error after
    /// destroy().
    virtual VkBuffer stagingBuffer() const = 0;
};

template <typename T>
constexpr Memory::DataTypes Memory::dataType() {
    if constexpr (std::is_same_v<T, bool>) return DataTypes::eBool;
    else if constexpr (std::is_same_v<T, int8_t>) return DataTypes::eChar;
    else if constexpr (std::is_same_v<T, uint8_t>) return DataTypes::eUnsignedChar;
    else if constexpr (std::is_same_v<T, int16_t>) return DataTypes::eShort;
    else if constexpr (std::is_same_v<T, uint16_t>) return DataTypes::eUnsignedShort;
    else if constexpr (std::is_same_v<T, int32_t>) return DataTypes::eInt;
    else if constexpr (std::is_same_v<T, uint32_t>) return DataTypes::eUnsignedInt;
    else if constexpr (std::is_same_v<T, float>) return DataTypes::eFloat;
    else if constexpr (std::is_same_v<T, double>) return DataTypes::eDouble;
    else if constexpr (std::is_same_v<T, float16>) return DataTypes::eFloat16;
    else return DataTypes::eCustom;
}

/// Kompute's name of a data type ("eFloat", ...), as its error messages spell it.
std::string toString(Memory::DataTypes type);
/// Kompute's name of a memory type ("eDevice", ...).
std::string toString(Memory::MemoryTypes type);
/// Bytes of one element of a built-in data type (0 for eCustom).
uint32_t elementSize(Memory::DataTypes type) noexcept;

}  // namespace kp
