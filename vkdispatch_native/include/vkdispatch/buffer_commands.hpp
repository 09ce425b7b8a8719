#pragma once
// Transfer-stage commands on buffers: copy a byte range between buffers of one context, fill a
// range with a 32-bit word, update a range from host data carried in the command buffer. On each
// queue they work on that queue's replicas. StagingCopyCommand moves bytes between one replica
// and host-visible staging memory (the transfer engine's uploads and downloads).
//
// Thread safety: see command.hpp.
#include <cstdint>
#include <vector>

#include "vkdispatch/command.hpp"
#include "vkdispatch/memory_type.hpp"

namespace vkdispatch {

class Buffer;

class CopyBufferCommand final : public Command {
public:
    /// Copies `size` bytes from `src_offset` of `src` to `dst_offset` of `dst` (both of
    /// `context`; the same buffer only when the ranges do not overlap). Throws
    /// InvalidArgumentError naming the argument for a zero size, a range outside a buffer,
    /// overlapping ranges, or a buffer of another context.
    CopyBufferCommand(Context& context, Buffer& dst, Buffer& src, uint64_t dst_offset,
                      uint64_t src_offset, uint64_t size);

    const std::vector<ResourceAccess>& accesses() const noexcept override { return m_accesses; }
    std::string label() const override { return "buffer copy"; }
    void record(VkCommandBuffer cb, RecordState& state, const uint8_t* push_constants) override;
    void markUsed(int queue_index, uint64_t value) noexcept override;

private:
    Buffer& m_dst;
    Buffer& m_src;
    uint64_t m_dst_offset, m_src_offset, m_size;
    std::vector<ResourceAccess> m_accesses;
};

class FillBufferCommand final : public Command {
public:
    /// Sets `size` bytes from `offset` of `buffer` to repetitions of the 32-bit word `value`.
    /// Throws InvalidArgumentError unless offset and size are multiples of 4, size > 0 and the
    /// range lies inside the buffer.
    FillBufferCommand(Context& context, Buffer& buffer, uint64_t offset, uint64_t size,
                      uint32_t value);

    const std::vector<ResourceAccess>& accesses() const noexcept override { return m_accesses; }
    std::string label() const override { return "buffer fill"; }
    void record(VkCommandBuffer cb, RecordState& state, const uint8_t* push_constants) override;
    void markUsed(int queue_index, uint64_t value) noexcept override;

private:
    Buffer& m_buffer;
    uint64_t m_offset, m_size;
    uint32_t m_value;
    std::vector<ResourceAccess> m_accesses;
};

class UpdateBufferCommand final : public Command {
public:
    /// Writes a copy of `size` bytes of `data` to `offset` of `buffer` from inside the command
    /// buffer (for small data: uniform blocks, parameters). Throws InvalidArgumentError unless
    /// offset is a multiple of 4, size > 0 and the range (padded to 4 bytes) fits the buffer.
    UpdateBufferCommand(Context& context, Buffer& buffer, uint64_t offset, const uint8_t* data,
                        uint64_t size);

    const std::vector<ResourceAccess>& accesses() const noexcept override { return m_accesses; }
    std::string label() const override { return "buffer update"; }
    void record(VkCommandBuffer cb, RecordState& state, const uint8_t* push_constants) override;
    void markUsed(int queue_index, uint64_t value) noexcept override;

private:
    Buffer& m_buffer;
    uint64_t m_offset;
    std::vector<uint8_t> m_data;  // padded with zeros to whole 4-byte words
    std::vector<ResourceAccess> m_accesses;
};

class StagingCopyCommand final : public Command {
public:
    enum class Direction { Upload, Download };  // staging -> replica, replica -> staging

    /// Copies `size` bytes between offset 0 of `staging` and `buffer_offset` of the replica of
    /// queue `queue_index`; it can only be recorded for that queue. Throws InvalidArgumentError
    /// for a range outside the buffer or the staging memory.
    StagingCopyCommand(Buffer& buffer, int queue_index, VkBuffer staging,
                       uint64_t staging_size, Direction direction, uint64_t buffer_offset,
                       uint64_t size);

    const std::vector<ResourceAccess>& accesses() const noexcept override { return m_accesses; }
    std::string label() const override { return "staging copy"; }
    void record(VkCommandBuffer cb, RecordState& state, const uint8_t* push_constants) override;
    void markUsed(int queue_index, uint64_t value) noexcept override;

private:
    Buffer& m_buffer;
    int m_queue_index;
    VkBuffer m_staging;
    Direction m_direction;
    uint64_t m_buffer_offset, m_size;
    std::vector<ResourceAccess> m_accesses;
};

}  // namespace vkdispatch
