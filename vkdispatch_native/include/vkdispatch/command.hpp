#pragma once
// A Command is one piece of GPU work recorded into a command list: a shader dispatch, a buffer
// copy, fill or update, an explicit barrier (later: VkFFT stages, image transitions and copies,
// Kompute operations, timestamps). Each declares the resources it reads and writes with the
// stage that touches them; the list plans barriers from those declarations alone
// (barrier_plan.hpp), so a new kind of work is a new Command class and never a change to the
// planner or to the submit path.
//
// Lifetime: the list owns its commands; a command borrows its resources (the caller keeps them
// alive until the list is reset and its submitted work has finished) and, through markUsed(),
// raises their last-use timeline values so that their destructors defer the release of Vulkan
// objects until that work completes.
//
// Thread safety: a command is used by one list, under that list's lock.
#include <cstdint>
#include <string>
#include <vector>

#include "vkdispatch/barrier_plan.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class Context;

/// State shared by the commands of one recording: the target queue and what is bound.
struct RecordState {
    int queue_index = 0;
    VkPipeline bound_pipeline = VK_NULL_HANDLE;
    VkDescriptorSet bound_set = VK_NULL_HANDLE;
    std::vector<uint8_t>* scratch = nullptr;  // reusable bytes (padding of small data)

    /// A command that binds pipelines of its own calls this, so the next dispatch rebinds.
    void forgetBindings() noexcept {
        bound_pipeline = VK_NULL_HANDLE;
        bound_set = VK_NULL_HANDLE;
    }
};

class Command {
public:
    explicit Command(Context& context) noexcept : m_context(context) {}
    virtual ~Command() = default;
    Command(const Command&) = delete;
    Command& operator=(const Command&) = delete;

    Context& context() const noexcept { return m_context; }

    /// Every resource the command reads or writes, with the stage that does it.
    virtual const std::vector<ResourceAccess>& accesses() const noexcept = 0;
    /// Records the command for queue `state.queue_index`. `push_constants` points at this
    /// command's pushConstantSize() bytes of the current instance.
    virtual void record(VkCommandBuffer cb, RecordState& state, const uint8_t* push_constants) = 0;
    /// Records that submission `value` on queue `queue_index` uses the command's resources.
    virtual void markUsed(int queue_index, uint64_t value) noexcept = 0;

    /// Bytes of per-instance push-constant data the command consumes.
    virtual uint32_t pushConstantSize() const noexcept { return 0; }
    /// Throws InvalidArgumentError when the command cannot run yet (e.g. an unbound binding).
    virtual void checkReady() const {}
    /// Changes whenever what record() would record changes without the command being replaced
    /// (a descriptor set rebound): a kept recording is recorded again when it does. Drawn from
    /// increasing counters, so the maximum over a list changes too.
    virtual uint64_t version() const noexcept { return 0; }
    /// True for an explicit barrier: it orders all earlier work before all later work, so the
    /// planner forgets every earlier access.
    virtual bool ordersEverything() const noexcept { return false; }
    /// What a profile calls the command (vd.profile()): a dispatch its shader's name.
    virtual std::string label() const = 0;

private:
    Context& m_context;
};

/// Records `barrier` (needed()) as one vkCmdPipelineBarrier with a global memory barrier.
void recordBarrier(VkCommandBuffer cb, const Barrier& barrier);

/// Every command's accesses and stage masks map onto Vulkan like this (exposed for tests).
VkPipelineStageFlags vulkanStages(AccessMask mask) noexcept;
VkAccessFlags vulkanAccess(AccessMask mask) noexcept;

/// Records `command` alone for queue `queue_index` (no planning: Queue frames every command
/// buffer with full barriers). For one-off work such as the transfer engine's staging copies
/// and uniform uploads.
void recordAlone(VkCommandBuffer cb, Command& command, int queue_index);

}  // namespace vkdispatch
