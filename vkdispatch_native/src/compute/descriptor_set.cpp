#include "vkdispatch/descriptor_set.hpp"

#include <algorithm>
#include <string>

#include "vkdispatch/atomic_max.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_allocator.hpp"
#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

std::atomic<int64_t> g_live_sets{0};
std::atomic<uint64_t> g_last_version{0};

std::string bindingLabel(int binding, const ComputePlan& plan) {
    return "binding " + std::to_string(binding) + " of '" + plan.name() + "'";
}

}  // namespace

DescriptorSet::DescriptorSet(ComputePlan& plan)
    : m_context(plan.context()),
      m_plan(plan),
      m_bindings(plan.bindings().size()),
      m_version(++g_last_version) {
    const int queue_count = m_context.queueCount();
    for (int q = 0; q < queue_count; ++q) {
        m_queues.push_back(std::make_unique<PerQueue>());
        allocate(q);
    }
    ++g_live_sets;
}

DescriptorSet::~DescriptorSet() {
    for (int q = 0; q < static_cast<int>(m_queues.size()); ++q) retire(q);
    --g_live_sets;
}

void DescriptorSet::allocate(int queue_index) {
    PerQueue& slot = *m_queues[queue_index];
    slot.set = VK_NULL_HANDLE;
    slot.last_use = 0;
    if (m_plan.bindings().empty()) return;  // nothing to bind: no set
    slot.allocator = m_plan.forQueue(queue_index).descriptors;
    slot.set = slot.allocator->allocate();
}

void DescriptorSet::retire(int queue_index) noexcept {
    PerQueue& slot = *m_queues[queue_index];
    if (!slot.allocator) return;
    std::shared_ptr<DescriptorAllocator> allocator = std::move(slot.allocator);
    const VkDescriptorSet set = slot.set;
    slot.set = VK_NULL_HANDLE;
    try {
        m_context.queue(queue_index).retire(slot.last_use.load(),
                                            [allocator, set] { allocator->release(set); });
    } catch (...) {
        // The queue cannot be asked (device lost) or memory ran out: the set is not reused.
    }
}

void DescriptorSet::write(int queue_index, int binding) {
    const BufferBinding& bound = m_bindings[binding];
    VkDescriptorBufferInfo info{};
    info.buffer = bound.buffer->replica(queue_index).storage.buffer.get();
    info.offset = bound.offset;
    info.range = bound.range;
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = m_queues[queue_index]->set;
    write.dstBinding = static_cast<uint32_t>(binding);
    write.descriptorCount = 1;
    write.descriptorType =
        bound.uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = &info;
    vkUpdateDescriptorSets(m_context.deviceOfQueue(queue_index).handle(), 1, &write, 0,
                           nullptr);
}

void DescriptorSet::checkBinding(int binding, Buffer& buffer, uint64_t offset,
                                 uint64_t& range, bool uniform) const {
    const auto& types = m_plan.bindings();
    const int count = static_cast<int>(types.size());
    if (binding < 0 || binding >= count)
        throw InvalidArgumentError(
            "binding: '" + m_plan.name() + "' has no binding " + std::to_string(binding) +
            (count == 0 ? std::string(" (it has none)")
                        : " (expected 0.." + std::to_string(count - 1) + ")"));
    const BindingType expected = types[binding];
    const BindingType given = uniform ? BindingType::UniformBuffer : BindingType::StorageBuffer;
    if (expected != given)
        throw InvalidArgumentError(bindingLabel(binding, m_plan) + " expects a " +
                                   bindingTypeName(expected) + ", got a " + bindingTypeName(given));

    const Context& context = m_context;
    if (&buffer.context() != &context)
        throw InvalidArgumentError(bindingLabel(binding, m_plan) +
                                   ": the buffer belongs to another context");
    if (offset >= buffer.size())
        throw InvalidArgumentError(bindingLabel(binding, m_plan) + ": offset " +
                                   std::to_string(offset) + " is outside the buffer of " +
                                   std::to_string(buffer.size()) + " bytes");
    if (range == 0) range = buffer.size() - offset;
    if (range > buffer.size() - offset)
        throw InvalidArgumentError(bindingLabel(binding, m_plan) + ": range " +
                                   std::to_string(range) + " at offset " + std::to_string(offset) +
                                   " exceeds the buffer of " + std::to_string(buffer.size()) +
                                   " bytes");
    for (const auto& device : context.devices()) {
        const DeviceInfo& info = device->info();
        const uint64_t alignment =
            uniform ? info.uniform_buffer_alignment : info.storage_buffer_alignment;
        const uint64_t max_range = uniform ? info.max_uniform_buffer_range
                                           : info.max_storage_buffer_range;
        const char* kind = uniform ? "uniform" : "storage";
        if (alignment > 1 && offset % alignment != 0)
            throw InvalidArgumentError(bindingLabel(binding, m_plan) + ": offset " +
                                       std::to_string(offset) + " must be a multiple of " +
                                       std::to_string(alignment) + " (min" +
                                       (uniform ? "Uniform" : "Storage") +
                                       "BufferOffsetAlignment of '" + info.device_name + "')");
        if (range > max_range)
            throw InvalidArgumentError(bindingLabel(binding, m_plan) + ": range " +
                                       std::to_string(range) + " exceeds the " + kind +
                                       " buffer range limit " + std::to_string(max_range) +
                                       " of '" + info.device_name + "'");
    }
}

void DescriptorSet::bindBuffer(int binding, Buffer& buffer, uint64_t offset, uint64_t range,
                               bool uniform, bool read, bool write_access) {
    checkBinding(binding, buffer, offset, range, uniform);
    m_bindings[binding] = {&buffer, offset, range, uniform, read, write_access};
    m_version = ++g_last_version;

    const Context& context = m_context;
    for (int q = 0; q < static_cast<int>(m_queues.size()); ++q) {
        PerQueue& slot = *m_queues[q];
        if (!context.queue(q).completed(slot.last_use.load())) {
            // Updating a set that pending work uses is not allowed: switch to a fresh one.
            retire(q);
            allocate(q);
            for (int b = 0; b < static_cast<int>(m_bindings.size()); ++b)
                if (b != binding && m_bindings[b].buffer != nullptr) write(q, b);
        }
        write(q, binding);
    }

    m_accesses.clear();
    for (const BufferBinding& bound : m_bindings)
        if (bound.buffer != nullptr)
            m_accesses.push_back({reinterpret_cast<uintptr_t>(bound.buffer), Stage::Compute,
                                  bound.read, bound.write});
}

void DescriptorSet::checkComplete() const {
    for (size_t b = 0; b < m_bindings.size(); ++b)
        if (m_bindings[b].buffer == nullptr)
            throw InvalidArgumentError(bindingLabel(static_cast<int>(b), m_plan) + " (a " +
                                       bindingTypeName(m_plan.bindings()[b]) +
                                       ") was never bound");
}

void DescriptorSet::markUsed(int queue_index, uint64_t value) noexcept {
    detail::raiseTo(m_queues[queue_index]->last_use, value);
}

int64_t DescriptorSet::liveCount() noexcept { return g_live_sets.load(); }

}  // namespace vkdispatch
