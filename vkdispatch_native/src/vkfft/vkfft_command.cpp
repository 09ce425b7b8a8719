#include "vkdispatch/vkfft_command.hpp"

#include <string>

#include "vkdispatch/atomic_max.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/vkfft_plan.hpp"

namespace vkdispatch {
namespace {

uint64_t resourceOf(const Buffer& buffer) { return reinterpret_cast<uintptr_t>(&buffer); }

// `needed` bytes: 0 when the plan has no such buffer.
void checkBuffer(const Buffer* buffer, uint64_t needed, const Context& context, const char* what) {
    if (needed == 0) {
        if (buffer != nullptr)
            throw InvalidArgumentError(std::string(what) +
                                       ": the plan was made without one; give none");
        return;
    }
    if (buffer == nullptr)
        throw InvalidArgumentError(std::string(what) + ": the plan needs one of " +
                                   std::to_string(needed) + " bytes; none was given");
    if (&buffer->context() != &context)
        throw InvalidArgumentError(std::string(what) +
                                   ": the buffer belongs to another context than the plan");
    if (buffer->size() < needed)
        throw InvalidArgumentError(std::string(what) + ": the plan reads and writes " +
                                   std::to_string(needed) + " bytes; the buffer has " +
                                   std::to_string(buffer->size()));
}

}  // namespace

VkfftCommand::VkfftCommand(VkfftPlan& plan, Buffer& buffer, int direction, Buffer* input,
                           Buffer* kernel)
    : Command(plan.context()),
      m_buffer(buffer),
      m_input(input),
      m_kernel(kernel),
      m_direction(direction) {
    if (direction != -1 && direction != 1)
        throw InvalidArgumentError("direction: -1 (forward) or 1 (inverse), got " +
                                   std::to_string(direction));
    const VkfftGeometry& geometry = plan.geometry();
    checkBuffer(&buffer, geometry.bufferBytes(), plan.context(), "buffer");
    checkBuffer(input, geometry.inputBytes(), plan.context(), "input");
    checkBuffer(kernel, geometry.kernelBytes(), plan.context(), "kernel");
    m_accesses.push_back({resourceOf(buffer), Stage::Compute, true, true});
    for (const Buffer* read : {input, kernel})
        if (read != nullptr && read != &buffer)
            m_accesses.push_back({resourceOf(*read), Stage::Compute, true, false});
    m_binding = plan.binding(buffer, input, kernel);
}

void VkfftCommand::record(VkCommandBuffer cb, RecordState& state, const uint8_t*) {
    m_binding->append(state.queue_index, cb, m_direction);
    state.forgetBindings();
}

void VkfftCommand::markUsed(int queue_index, uint64_t value) noexcept {
    for (Buffer* used : {&m_buffer, m_input, m_kernel})
        if (used != nullptr) detail::raiseTo(used->replica(queue_index).last_use, value);
    m_binding->markUsed(queue_index, value);
}

}  // namespace vkdispatch
