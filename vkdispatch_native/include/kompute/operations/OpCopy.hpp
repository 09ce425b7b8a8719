#pragma once
// kp::OpCopy: copies the first memory object into each of the others on the device, and after
// the submission also their host views (as Kompute does: the destination's view then equals the
// source's host view without an OpSyncLocal).
#include <memory>
#include <vector>

#include "kompute/Memory.hpp"
#include "kompute/TensorList.hpp"
#include "kompute/operations/OpBase.hpp"

namespace kp {

class OpCopy : public OpBase {
public:
    /// Throws std::runtime_error for fewer than two objects.
    explicit OpCopy(const std::vector<std::shared_ptr<Memory>>& mem_objects);
    /// The same over Kompute 0.9's list of tensors (see TensorList.hpp).
    template <typename List, IfTypedList<List> = 0>
    explicit OpCopy(const List& tensors) : OpCopy(memoryList(tensors)) {}
    /// Throws std::runtime_error when a destination's data type or size differs.
    void record(const vk::CommandBuffer& command_buffer) override;
    OpUses uses() const override;
    void postEval(const vk::CommandBuffer& command_buffer) override;

private:
    std::vector<std::shared_ptr<Memory>> m_mem_objects;
};

}  // namespace kp
