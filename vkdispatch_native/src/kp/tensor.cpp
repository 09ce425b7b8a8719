#include "kompute/Tensor.hpp"

#include "kompute/Image.hpp"

#include <cstring>
#include <stdexcept>

#include "recording.hpp"
#include "runtime.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/memory_type.hpp"

namespace kp {
namespace {

constexpr VkMemoryPropertyFlags kCoherent =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

// The memory properties a tensor's primary buffer needs, and those it prefers.
struct MemoryFlags {
    VkMemoryPropertyFlags required, preferred;
};

MemoryFlags primaryFlags(Memory::MemoryTypes type) {
    switch (type) {
        case Memory::MemoryTypes::eHost: return {kCoherent, 0};
        // Device-local memory the host maps where the device has it (integrated GPUs, a
        // resizable BAR), else host memory the device reads over the bus: a discrete GPU
        // without such a memory type (an H200's driver offers none) still runs the program.
        case Memory::MemoryTypes::eDeviceAndHost:
            return {kCoherent, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT};
        case Memory::MemoryTypes::eDevice:
        case Memory::MemoryTypes::eStorage: break;
    }
    return {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
}

vkdispatch::BoundBuffer buffer(detail::Runtime& runtime, uint64_t bytes, VkBufferUsageFlags usage,
                               MemoryFlags flags) {
    try {
        return vkdispatch::createBoundBuffer(runtime.device(), bytes, usage, flags.required,
                                             flags.preferred);
    } catch (const vkdispatch::Error& error) {
        throw std::runtime_error(std::string("Memory type index for buffer creation not found: ") +
                                 error.what());
    }
}

}  // namespace

struct Tensor::Buffers {
    std::shared_ptr<detail::Runtime> runtime;  // first: the device outlives the buffers
    vkdispatch::BoundBuffer primary;
    vkdispatch::BoundBuffer staging;  // eDevice only
};

Tensor::Tensor(std::shared_ptr<detail::Runtime> runtime, const void* data, uint32_t size,
               uint32_t element_size, DataTypes data_type, MemoryTypes memory_type)
    : Memory(std::move(runtime), size, element_size, data_type, memory_type, size, 1),
      m_buffers(std::make_shared<Buffers>()) {
    m_buffers->runtime = m_runtime;
    const VkBufferUsageFlags transfers =
        VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    m_buffers->primary = buffer(*m_runtime, memorySize(),
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | transfers,
                                primaryFlags(memory_type));
    if (memory_type == MemoryTypes::eDevice) {
        m_buffers->staging = buffer(*m_runtime, memorySize(), transfers, {kCoherent, 0});
        m_host = std::shared_ptr<void>(m_buffers, m_buffers->staging.memory.mapped());
    } else if (memory_type != MemoryTypes::eStorage) {
        m_host = std::shared_ptr<void>(m_buffers, m_buffers->primary.memory.mapped());
    }
    fillHostView(data);
}

Tensor::~Tensor() = default;

bool Tensor::isInit() const noexcept { return m_buffers != nullptr && m_runtime != nullptr; }

void Tensor::destroy() {
    awaitSubmittedWork();
    m_buffers.reset();
    forget();
}

VkBuffer Tensor::getPrimaryBuffer() const noexcept {
    return m_buffers ? m_buffers->primary.buffer.get() : VK_NULL_HANDLE;
}

namespace {

void copyBuffer(const vk::CommandBuffer& cb, VkBuffer from, VkBuffer to, uint64_t bytes) {
    cb.copyBuffer(vk::Buffer(from), vk::Buffer(to), vk::BufferCopy(0, 0, bytes));
}

std::runtime_error destroyedError() {
    return std::runtime_error("Kompute Tensor was destroyed: it cannot be recorded");
}

}  // namespace

void Tensor::recordCopyFromStagingToDevice(const vk::CommandBuffer& cb) {
    if (!m_buffers) throw destroyedError();
    if (memoryType() != MemoryTypes::eDevice) return;
    copyBuffer(cb, m_buffers->staging.buffer.get(), m_buffers->primary.buffer.get(), memorySize());
}

void Tensor::recordCopyFromDeviceToStaging(const vk::CommandBuffer& cb) {
    if (!m_buffers) throw destroyedError();
    if (memoryType() != MemoryTypes::eDevice) return;
    copyBuffer(cb, m_buffers->primary.buffer.get(), m_buffers->staging.buffer.get(), memorySize());
}

void Tensor::recordCopyFrom(const vk::CommandBuffer& cb, const std::shared_ptr<Memory>& other) {
    if (!m_buffers || !other || !other->isInit()) throw destroyedError();
    checkCopyFrom(*other);
    if (auto* image = dynamic_cast<Image*>(other.get()))
        image->recordCopyToBuffer(cb, getPrimaryBuffer());
    else
        copyBuffer(cb, static_cast<Tensor&>(*other).getPrimaryBuffer(), getPrimaryBuffer(),
                   memorySize());
}

void Tensor::recordPrimaryBarrier(const vk::CommandBuffer& cb, const Barrier& barrier) {
    if (!m_buffers) throw destroyedError();
    detail::bufferBarrier(cb, getPrimaryBuffer(), memorySize(), barrier.src_access,
                          barrier.dst_access, barrier.src_stage, barrier.dst_stage);
}

VkBuffer Tensor::stagingBuffer() const {
    if (!m_buffers) throw destroyedError();
    return m_buffers->staging.buffer.get();
}

void Tensor::writeDescriptor(VkDevice device, VkDescriptorSet set, uint32_t binding) {
    if (!m_buffers) throw destroyedError();
    const VkDescriptorBufferInfo info{getPrimaryBuffer(), 0, memorySize()};
    detail::writeDescriptor(device, set, binding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &info,
                            nullptr);
}

}  // namespace kp
