#pragma once
// A shader dispatch as a command: `blocks` workgroups of a ComputePlan with one of its
// DescriptorSets, reading its push constants from the instance data. Its accesses are those of
// the set's bindings (compute stage), read at each recording.
//
// Thread safety: see command.hpp.
#include <array>
#include <cstdint>

#include "vkdispatch/command.hpp"

namespace vkdispatch {

class ComputePlan;
class DescriptorSet;

/// Throws InvalidArgumentError naming the axis, the value and the limit when a workgroup count
/// is 0 or above `limits` (maxComputeWorkGroupCount).
void checkWorkgroupCounts(const std::array<uint32_t, 3>& blocks,
                          const std::array<uint32_t, 3>& limits);

class DispatchCommand final : public Command {
public:
    /// The plan and set must stay alive while the command exists and until submitted work has
    /// finished; the set's bindings are read at each recording. Throws InvalidArgumentError for
    /// zero or too many workgroups (limits: the minimum over the context's devices), or a set
    /// of another plan.
    DispatchCommand(ComputePlan& plan, DescriptorSet& set, std::array<uint32_t, 3> blocks);

    const std::vector<ResourceAccess>& accesses() const noexcept override;
    std::string label() const override;
    void record(VkCommandBuffer cb, RecordState& state, const uint8_t* push_constants) override;
    void markUsed(int queue_index, uint64_t value) noexcept override;
    uint32_t pushConstantSize() const noexcept override;
    void checkReady() const override;
    uint64_t version() const noexcept override;

    ComputePlan& plan() const noexcept { return m_plan; }
    DescriptorSet& set() const noexcept { return m_set; }

private:
    ComputePlan& m_plan;
    DescriptorSet& m_set;
    std::array<uint32_t, 3> m_blocks;
};

}  // namespace vkdispatch
