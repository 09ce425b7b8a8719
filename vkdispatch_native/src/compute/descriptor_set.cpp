#include "vkdispatch/descriptor_set.hpp"

#include <algorithm>
#include <string>

#include "vkdispatch/atomic_max.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/descriptor_allocator.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/replicated_image.hpp"
#include "vkdispatch/sampler.hpp"

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
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = m_queues[queue_index]->set;
    write.dstBinding = static_cast<uint32_t>(binding);
    write.descriptorCount = 1;
    VkDescriptorBufferInfo buffer_info{};
    VkDescriptorImageInfo image_info{};
    if (bound.image != nullptr) {
        image_info.sampler = bound.sampler->forQueue(queue_index);
        image_info.imageView = bound.image->replica(queue_index).image->view();
        image_info.imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
        write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
        write.pImageInfo = &image_info;
    } else {
        buffer_info.buffer = bound.buffer->replica(queue_index).storage.buffer.get();
        buffer_info.offset = bound.offset;
        buffer_info.range = bound.range;
        write.descriptorType =
            bound.uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        write.pBufferInfo = &buffer_info;
    }
    vkUpdateDescriptorSets(m_context.deviceOfQueue(queue_index).handle(), 1, &write, 0,
                           nullptr);
}

void DescriptorSet::checkBindingType(int binding, BindingType given) const {
    const auto& types = m_plan.bindings();
    const int count = static_cast<int>(types.size());
    if (binding < 0 || binding >= count)
        throw InvalidArgumentError(
            "binding: '" + m_plan.name() + "' has no binding " + std::to_string(binding) +
            (count == 0 ? std::string(" (it has none)")
                        : " (expected 0.." + std::to_string(count - 1) + ")"));
    const BindingType expected = types[binding];
    if (expected != given)
        throw InvalidArgumentError(bindingLabel(binding, m_plan) + " expects a " +
                                   bindingTypeName(expected) + ", got a " + bindingTypeName(given));
}

void DescriptorSet::checkBinding(int binding, Buffer& buffer, uint64_t offset,
                                 uint64_t& range, bool uniform) const {
    checkBindingType(binding,
                     uniform ? BindingType::UniformBuffer : BindingType::StorageBuffer);
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
    BufferBinding bound;
    bound.buffer = &buffer;
    bound.offset = offset;
    bound.range = range;
    bound.uniform = uniform;
    bound.read = read;
    bound.write = write_access;
    m_bindings[binding] = bound;
    update(binding);
}

void DescriptorSet::bindImage(int binding, ReplicatedImage& image, Sampler& sampler) {
    checkBindingType(binding, BindingType::Sampler);
    if (&image.context() != &m_context || &sampler.context() != &m_context)
        throw InvalidArgumentError(bindingLabel(binding, m_plan) +
                                   ": the image or its sampler belongs to another context");
    const SamplerSpec& filters = sampler.spec();
    if ((filters.mag_filter == VK_FILTER_LINEAR || filters.min_filter == VK_FILTER_LINEAR ||
         filters.mip_mode == VK_SAMPLER_MIPMAP_MODE_LINEAR) &&
        !image.filtersLinearly())
        throw InvalidArgumentError(bindingLabel(binding, m_plan) + ": the device cannot filter " +
                                   formatName(image.spec().format) +
                                   " images linearly; sample them with nearest filtering (filters "
                                   "and mipmap mode)");
    BufferBinding bound;
    bound.image = &image;
    bound.sampler = &sampler;
    bound.read = true;
    m_bindings[binding] = bound;
    update(binding);
}

void DescriptorSet::update(int binding) {
    m_version = ++g_last_version;
    const Context& context = m_context;
    for (int q = 0; q < static_cast<int>(m_queues.size()); ++q) {
        PerQueue& slot = *m_queues[q];
        if (!context.queue(q).completed(slot.last_use.load())) {
            // Updating a set that pending work uses is not allowed: switch to a fresh one.
            retire(q);
            allocate(q);
            for (int b = 0; b < static_cast<int>(m_bindings.size()); ++b)
                if (b != binding && m_bindings[b].bound()) write(q, b);
        }
        write(q, binding);
    }
    m_accesses.clear();
    for (const BufferBinding& each : m_bindings)
        if (each.buffer != nullptr)
            m_accesses.push_back({reinterpret_cast<uintptr_t>(each.buffer), Stage::Compute,
                                  each.read, each.write});
}

void DescriptorSet::checkComplete() const {
    for (size_t b = 0; b < m_bindings.size(); ++b)
        if (!m_bindings[b].bound())
            throw InvalidArgumentError(bindingLabel(static_cast<int>(b), m_plan) + " (a " +
                                       bindingTypeName(m_plan.bindings()[b]) +
                                       ") was never bound");
}

void DescriptorSet::markUsed(int queue_index, uint64_t value) noexcept {
    detail::raiseTo(m_queues[queue_index]->last_use, value);
}

int64_t DescriptorSet::liveCount() noexcept { return g_live_sets.load(); }

}  // namespace vkdispatch
