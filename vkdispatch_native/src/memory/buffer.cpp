#include "vkdispatch/buffer.hpp"

#include <string>

#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/replica_index.hpp"

namespace vkdispatch {
namespace {

std::atomic<int64_t> g_live_buffers{0};
std::atomic<uint64_t> g_next_serial{1};

constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;

uint32_t preferredFlags(const Device& device) {
    // Where device memory is host memory anyway (CPU drivers, integrated GPUs), map it directly.
    if (device.info().device_type == DeviceType::DiscreteGpu) return 0;
    return VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
}

}  // namespace

bool Buffer::Replica::directlyMapped() const noexcept {
    return storage.memory.mapped() != nullptr &&
           (storage.memory_flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
}

Buffer::Buffer(Context& context, uint64_t size)
    : m_context(context), m_size(size), m_serial(g_next_serial++) {
    if (size == 0) throw InvalidArgumentError("size: a buffer needs at least 1 byte, got 0");
    for (int q = 0; q < context.queueCount(); ++q) {
        Device& device = context.deviceOfQueue(q);
        auto replica = std::make_unique<Replica>();
        replica->queue = &context.queue(q);
        replica->storage =
            createBoundBuffer(device, size, kUsage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                              preferredFlags(device), device.queueFamilies());
        m_replicas.push_back(std::move(replica));
    }
    ++g_live_buffers;
}

Buffer::~Buffer() {
    for (auto& replica : m_replicas) {
        // The lambda takes ownership of the handles; the queue runs it once they are idle.
        auto storage = std::make_shared<BoundBuffer>(std::move(replica->storage));
        replica->queue->retire(replica->last_use.load(), [storage] {
            storage->buffer.reset();
            storage->memory.reset();
        });
    }
    --g_live_buffers;
}

Buffer::Replica& Buffer::replica(int queue_index) {
    return detail::replicaAt(m_replicas, queue_index);
}

void Buffer::waitForWork(int queue_index) {
    Replica& target = replica(queue_index);
    target.queue->wait(target.last_use.load());
}

void* Buffer::hostView(int queue_index) {
    if (!hostVisible(queue_index)) return nullptr;
    waitForWork(queue_index);
    return replica(queue_index).storage.memory.mapped();
}

int64_t Buffer::liveCount() noexcept { return g_live_buffers.load(); }

}  // namespace vkdispatch
