#include "vkdispatch/buffer_commands.hpp"

#include <algorithm>
#include <string>

#include "vkdispatch/atomic_max.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

constexpr uint64_t kUpdateChunk = 65536;  // vkCmdUpdateBuffer's maximum size per call

void checkSameContext(const Buffer& buffer, const Context& context, const char* what) {
    if (&buffer.context() != &context)
        throw InvalidArgumentError(std::string(what) +
                                   ": the buffer belongs to another context than the command "
                                   "list");
}

uint64_t resourceOf(const Buffer& buffer) { return reinterpret_cast<uintptr_t>(&buffer); }

void checkRange(const Buffer& buffer, uint64_t offset, uint64_t size, const char* what) {
    if (size == 0) throw InvalidArgumentError(std::string(what) + ": the size must be > 0 bytes");
    if (offset > buffer.size() || size > buffer.size() - offset)
        throw InvalidArgumentError(std::string(what) + ": " + std::to_string(size) +
                                   " bytes at offset " + std::to_string(offset) +
                                   " do not fit in the buffer of " +
                                   std::to_string(buffer.size()) + " bytes");
}

void checkWordAligned(uint64_t value, const char* what) {
    if (value % 4 != 0)
        throw InvalidArgumentError(std::string(what) + ": must be a multiple of 4 bytes, got " +
                                   std::to_string(value));
}

VkBuffer replicaOf(Buffer& buffer, int queue_index) {
    return buffer.replica(queue_index).storage.buffer.get();
}

void markReplica(Buffer& buffer, int queue_index, uint64_t value) noexcept {
    detail::raiseTo(buffer.replica(queue_index).last_use, value);
}

}  // namespace

CopyBufferCommand::CopyBufferCommand(Context& context, Buffer& dst, Buffer& src,
                                     uint64_t dst_offset, uint64_t src_offset, uint64_t size)
    : Command(context),
      m_dst(dst),
      m_src(src),
      m_dst_offset(dst_offset),
      m_src_offset(src_offset),
      m_size(size) {
    checkSameContext(dst, context, "dst");
    checkSameContext(src, context, "src");
    checkRange(src, src_offset, size, "src");
    checkRange(dst, dst_offset, size, "dst");
    if (&dst == &src) {
        if (src_offset < dst_offset + size && dst_offset < src_offset + size)
            throw InvalidArgumentError(
                "dst: bytes [" + std::to_string(dst_offset) + ", " +
                std::to_string(dst_offset + size) + ") overlap the source bytes [" +
                std::to_string(src_offset) + ", " + std::to_string(src_offset + size) +
                ") of the same buffer");
        m_accesses = {{resourceOf(src), Stage::Transfer, true, true}};
    } else {
        m_accesses = {{resourceOf(src), Stage::Transfer, true, false},
                      {resourceOf(dst), Stage::Transfer, false, true}};
    }
}

void CopyBufferCommand::record(VkCommandBuffer cb, RecordState& state, const uint8_t*) {
    const VkBufferCopy region{m_src_offset, m_dst_offset, m_size};
    vkCmdCopyBuffer(cb, replicaOf(m_src, state.queue_index), replicaOf(m_dst, state.queue_index),
                    1, &region);
}

void CopyBufferCommand::markUsed(int queue_index, uint64_t value) noexcept {
    markReplica(m_src, queue_index, value);
    markReplica(m_dst, queue_index, value);
}

FillBufferCommand::FillBufferCommand(Context& context, Buffer& buffer, uint64_t offset,
                                     uint64_t size, uint32_t value)
    : Command(context), m_buffer(buffer), m_offset(offset), m_size(size), m_value(value) {
    checkSameContext(buffer, context, "buffer");
    checkWordAligned(offset, "offset");
    checkWordAligned(size, "size");
    checkRange(buffer, offset, size, "buffer");
    m_accesses = {{resourceOf(buffer), Stage::Transfer, false, true}};
}

void FillBufferCommand::record(VkCommandBuffer cb, RecordState& state, const uint8_t*) {
    vkCmdFillBuffer(cb, replicaOf(m_buffer, state.queue_index), m_offset, m_size, m_value);
}

void FillBufferCommand::markUsed(int queue_index, uint64_t value) noexcept {
    markReplica(m_buffer, queue_index, value);
}

UpdateBufferCommand::UpdateBufferCommand(Context& context, Buffer& buffer, uint64_t offset,
                                         const uint8_t* data, uint64_t size)
    : Command(context), m_buffer(buffer), m_offset(offset) {
    checkSameContext(buffer, context, "buffer");
    checkWordAligned(offset, "offset");
    if (size > 0 && data == nullptr)
        throw InvalidArgumentError("data: no data for " + std::to_string(size) + " bytes");
    const uint64_t padded = (size + 3) & ~uint64_t(3);  // Vulkan updates whole 4-byte words
    checkRange(buffer, offset, padded, "buffer");
    m_data.assign(padded, 0);
    std::copy(data, data + size, m_data.begin());
    m_accesses = {{resourceOf(buffer), Stage::Transfer, false, true}};
}

void UpdateBufferCommand::record(VkCommandBuffer cb, RecordState& state, const uint8_t*) {
    const VkBuffer target = replicaOf(m_buffer, state.queue_index);
    for (uint64_t done = 0; done < m_data.size(); done += kUpdateChunk) {
        const uint64_t size = std::min<uint64_t>(kUpdateChunk, m_data.size() - done);
        vkCmdUpdateBuffer(cb, target, m_offset + done, size, m_data.data() + done);
    }
}

void UpdateBufferCommand::markUsed(int queue_index, uint64_t value) noexcept {
    markReplica(m_buffer, queue_index, value);
}

StagingCopyCommand::StagingCopyCommand(Buffer& buffer, int queue_index,
                                       VkBuffer staging, uint64_t staging_size,
                                       Direction direction, uint64_t buffer_offset, uint64_t size)
    : Command(buffer.context()),
      m_buffer(buffer),
      m_queue_index(queue_index),
      m_staging(staging),
      m_direction(direction),
      m_buffer_offset(buffer_offset),
      m_size(size) {
    buffer.replica(queue_index);  // throws IndexOutOfRangeError for a queue it has no replica on
    checkRange(buffer, buffer_offset, size, "buffer");
    if (size > staging_size)
        throw InvalidArgumentError("size: " + std::to_string(size) +
                                   " bytes exceed the staging memory of " +
                                   std::to_string(staging_size) + " bytes");
    const bool upload = direction == Direction::Upload;
    m_accesses = {{resourceOf(buffer), Stage::Transfer, !upload, upload},
                  {reinterpret_cast<uintptr_t>(staging), Stage::Transfer, upload, !upload}};
}

void StagingCopyCommand::record(VkCommandBuffer cb, RecordState& state, const uint8_t*) {
    if (state.queue_index != m_queue_index)
        throw InvalidArgumentError("queue_index: a staging copy of queue " +
                                   std::to_string(m_queue_index) + " cannot run on queue " +
                                   std::to_string(state.queue_index));
    const VkBuffer replica = replicaOf(m_buffer, m_queue_index);
    if (m_direction == Direction::Upload) {
        const VkBufferCopy region{0, m_buffer_offset, m_size};
        vkCmdCopyBuffer(cb, m_staging, replica, 1, &region);
    } else {
        const VkBufferCopy region{m_buffer_offset, 0, m_size};
        vkCmdCopyBuffer(cb, replica, m_staging, 1, &region);
    }
}

void StagingCopyCommand::markUsed(int queue_index, uint64_t value) noexcept {
    markReplica(m_buffer, queue_index, value);
}

}  // namespace vkdispatch
