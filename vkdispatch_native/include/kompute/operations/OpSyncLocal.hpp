#pragma once
// kp::OpSyncLocal: copies each eDevice memory object from the device to its host view, after
// the shader writes before it (other memory types are skipped).
#include <memory>
#include <vector>

#include "kompute/Memory.hpp"
#include "kompute/TensorList.hpp"
#include "kompute/operations/OpBase.hpp"

namespace kp {

class OpSyncLocal : public OpBase {
public:
    /// Throws std::runtime_error for an empty list.
    explicit OpSyncLocal(const std::vector<std::shared_ptr<Memory>>& mem_objects);
    /// The same over Kompute 0.9's list of tensors (see TensorList.hpp).
    template <typename List, IfTypedList<List> = 0>
    explicit OpSyncLocal(const List& tensors) : OpSyncLocal(memoryList(tensors)) {}
    void record(const vk::CommandBuffer& command_buffer) override;
    OpUses uses() const override;

private:
    std::vector<std::shared_ptr<Memory>> m_mem_objects;
};

}  // namespace kp
