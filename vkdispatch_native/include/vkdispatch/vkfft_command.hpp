#pragma once
// A VkFFT transform as a command: a VkfftPlan run forward or inverse on a buffer (with an
// optional separate input buffer and a convolution kernel). It declares a compute-stage read and
// write of the buffer and reads of the input and kernel, so the list orders it against shaders
// and copies like any dispatch; VkFFT orders its own dispatches inside it.
//
// Thread safety: see command.hpp.
#include <memory>

#include "vkdispatch/command.hpp"

namespace vkdispatch {

class Buffer;
class VkfftBinding;
class VkfftPlan;

class VkfftCommand final : public Command {
public:
    /// `direction`: -1 forward, 1 inverse. The buffers must stay alive while the command exists
    /// and until submitted work has finished (the plan need not). Throws InvalidArgumentError
    /// naming the argument for a direction other than -1/1, a buffer of another context or one
    /// smaller than the plan's runs need, an input buffer given to a plan without one (or
    /// missing where the plan has one), a kernel likewise.
    VkfftCommand(VkfftPlan& plan, Buffer& buffer, int direction, Buffer* input, Buffer* kernel);

    const std::vector<ResourceAccess>& accesses() const noexcept override { return m_accesses; }
    std::string label() const override { return "vkfft"; }
    void record(VkCommandBuffer cb, RecordState& state, const uint8_t* push_constants) override;
    void markUsed(int queue_index, uint64_t value) noexcept override;

private:
    Buffer& m_buffer;
    Buffer* m_input;
    Buffer* m_kernel;
    int m_direction;
    std::shared_ptr<VkfftBinding> m_binding;
    std::vector<ResourceAccess> m_accesses;
};

}  // namespace vkdispatch
