#include "kompute/Memory.hpp"

#include <cstring>
#include <stdexcept>

#include "recording.hpp"
#include "runtime.hpp"

namespace kp {

std::string toString(Memory::DataTypes type) {
    switch (type) {
        case Memory::DataTypes::eBool: return "eBool";
        case Memory::DataTypes::eInt: return "eInt";
        case Memory::DataTypes::eUnsignedInt: return "eUnsignedInt";
        case Memory::DataTypes::eFloat: return "eFloat";
        case Memory::DataTypes::eDouble: return "eDouble";
        case Memory::DataTypes::eCustom: return "eCustom";
        case Memory::DataTypes::eShort: return "eShort";
        case Memory::DataTypes::eUnsignedShort: return "eUnsignedShort";
        case Memory::DataTypes::eChar: return "eChar";
        case Memory::DataTypes::eUnsignedChar: return "eUnsignedChar";
        case Memory::DataTypes::eFloat16: return "eFloat16";
    }
    return "unknown";
}

std::string toString(Memory::MemoryTypes type) {
    switch (type) {
        case Memory::MemoryTypes::eDevice: return "eDevice";
        case Memory::MemoryTypes::eHost: return "eHost";
        case Memory::MemoryTypes::eStorage: return "eStorage";
        case Memory::MemoryTypes::eDeviceAndHost: return "eDeviceAndHost";
    }
    return "unknown";
}

uint32_t elementSize(Memory::DataTypes type) noexcept {
    switch (type) {
        case Memory::DataTypes::eBool:
        case Memory::DataTypes::eChar:
        case Memory::DataTypes::eUnsignedChar: return 1;
        case Memory::DataTypes::eShort:
        case Memory::DataTypes::eUnsignedShort:
        case Memory::DataTypes::eFloat16: return 2;
        case Memory::DataTypes::eInt:
        case Memory::DataTypes::eUnsignedInt:
        case Memory::DataTypes::eFloat: return 4;
        case Memory::DataTypes::eDouble: return 8;
        case Memory::DataTypes::eCustom: break;
    }
    return 0;
}

Memory::Memory(std::shared_ptr<detail::Runtime> runtime, uint32_t size, uint32_t element_size,
               DataTypes data_type, MemoryTypes memory_type, uint32_t x, uint32_t y)
    : m_runtime(std::move(runtime)),
      m_size(size),
      m_element_size(element_size),
      m_data_type(data_type),
      m_memory_type(memory_type),
      m_x(x),
      m_y(y) {
    if (size == 0 || element_size == 0)
        throw std::runtime_error("Kompute Memory attempted to create a zero-sized memory object");
}

Memory::~Memory() = default;

void* Memory::rawData() { return sharedRawData().get(); }

std::shared_ptr<void> Memory::sharedRawData() {
    if (!m_host)
        throw std::runtime_error(m_runtime ? "Kompute Memory of type eStorage has no host view"
                                           : "Kompute Memory was destroyed: it has no data");
    return m_host;
}

void Memory::setData(const void* data, size_t bytes) {
    if (bytes != memorySize())
        throw std::runtime_error("Kompute Memory Cannot set data of different sizes");
    std::memcpy(rawData(), data, bytes);
}

void Memory::recordPrimaryMemoryBarrier(const vk::CommandBuffer& cb, vk::AccessFlagBits src_access,
                                        vk::AccessFlagBits dst_access,
                                        vk::PipelineStageFlagBits src_stage,
                                        vk::PipelineStageFlagBits dst_stage) {
    recordPrimaryBarrier(cb, {src_access, dst_access, src_stage, dst_stage});
}

void Memory::recordStagingMemoryBarrier(const vk::CommandBuffer& cb, vk::AccessFlagBits src_access,
                                        vk::AccessFlagBits dst_access,
                                        vk::PipelineStageFlagBits src_stage,
                                        vk::PipelineStageFlagBits dst_stage) {
    const VkBuffer staging = stagingBuffer();  // first: a destroyed object of any type throws
    if (memoryType() != MemoryTypes::eDevice) return;
    detail::bufferBarrier(cb, staging, memorySize(), src_access, dst_access, src_stage, dst_stage);
}

void Memory::fillHostView(const void* data) {
    if (!m_host) return;
    if (data != nullptr) std::memcpy(m_host.get(), data, memorySize());
    else std::memset(m_host.get(), 0, memorySize());
}

void Memory::checkCopyFrom(const Memory& source) const {
    if (source.dataType() != dataType())
        throw std::runtime_error("Attempting to copy memory of different types from " +
                                 toString(source.dataType()) + " to " + toString(dataType()));
    if (source.size() != size())
        throw std::runtime_error("Attempting to copy tensors of different sizes from " +
                                 std::to_string(source.size()) + " to " +
                                 std::to_string(size()));
}

void Memory::awaitSubmittedWork() const {
    if (m_runtime) m_runtime->context->waitIdle(-1);
}

void Memory::forget() noexcept {
    m_host.reset();
    m_size = 0;
    m_runtime.reset();
}

}  // namespace kp
