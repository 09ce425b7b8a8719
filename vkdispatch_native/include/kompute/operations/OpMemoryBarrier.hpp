#pragma once
// kp::OpMemoryBarrier: a buffer barrier with the given access and stage masks on the primary
// (or the staging) resource of each memory object.
#include <memory>
#include <vector>

#include "kompute/Memory.hpp"
#include "kompute/TensorList.hpp"
#include "kompute/operations/OpBase.hpp"

namespace kp {

class OpMemoryBarrier : public OpBase {
public:
    OpMemoryBarrier(const std::vector<std::shared_ptr<Memory>>& mem_objects,
                    const vk::AccessFlagBits& src_access, const vk::AccessFlagBits& dst_access,
                    const vk::PipelineStageFlagBits& src_stage,
                    const vk::PipelineStageFlagBits& dst_stage, bool barrier_on_primary = true);
    /// The same over Kompute 0.9's list of tensors (see TensorList.hpp).
    template <typename List, IfTypedList<List> = 0>
    OpMemoryBarrier(const List& tensors, const vk::AccessFlagBits& src_access,
                    const vk::AccessFlagBits& dst_access,
                    const vk::PipelineStageFlagBits& src_stage,
                    const vk::PipelineStageFlagBits& dst_stage, bool barrier_on_primary = true)
        : OpMemoryBarrier(memoryList(tensors), src_access, dst_access, src_stage, dst_stage,
                          barrier_on_primary) {}
    void record(const vk::CommandBuffer& command_buffer) override;
    OpUses uses() const override;

private:
    std::vector<std::shared_ptr<Memory>> m_mem_objects;
    vk::AccessFlagBits m_src_access, m_dst_access;
    vk::PipelineStageFlagBits m_src_stage, m_dst_stage;
    bool m_primary;
};

}  // namespace kp
