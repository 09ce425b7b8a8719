#pragma once
// An explicit barrier: everything recorded before it (any stage) happens before, and is visible
// to, everything after it. The planner places the barriers hazards need by itself; this is for
// work whose dependencies it cannot see (memory a shader reaches through other means, or a
// user's own ordering).
//
// Thread safety: see command.hpp.
#include "vkdispatch/command.hpp"

namespace vkdispatch {

class BarrierCommand final : public Command {
public:
    explicit BarrierCommand(Context& context) noexcept : Command(context) {}

    const std::vector<ResourceAccess>& accesses() const noexcept override { return m_none; }
    std::string label() const override { return "barrier"; }
    void record(VkCommandBuffer cb, RecordState& state, const uint8_t* push_constants) override;
    void markUsed(int, uint64_t) noexcept override {}
    bool ordersEverything() const noexcept override { return true; }

private:
    std::vector<ResourceAccess> m_none;
};

}  // namespace vkdispatch
