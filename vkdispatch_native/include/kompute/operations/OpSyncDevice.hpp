#pragma once
// kp::OpSyncDevice: copies the host view of each eDevice memory object to the device (other
// memory types need no copy and are skipped).
#include <memory>
#include <vector>

#include "kompute/Memory.hpp"
#include "kompute/TensorList.hpp"
#include "kompute/operations/OpBase.hpp"

namespace kp {

class OpSyncDevice : public OpBase {
public:
    /// Throws std::runtime_error for an empty list.
    explicit OpSyncDevice(const std::vector<std::shared_ptr<Memory>>& mem_objects);
    /// The same over Kompute 0.9's list of tensors (see TensorList.hpp).
    template <typename List, IfTypedList<List> = 0>
    explicit OpSyncDevice(const List& tensors) : OpSyncDevice(memoryList(tensors)) {}
    void record(const vk::CommandBuffer& command_buffer) override;
    OpUses uses() const override;

private:
    std::vector<std::shared_ptr<Memory>> m_mem_objects;
};

}  // namespace kp
