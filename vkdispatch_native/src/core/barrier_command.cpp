#include "vkdispatch/barrier_command.hpp"

#include "vkdispatch/queue.hpp"

namespace vkdispatch {

void BarrierCommand::record(VkCommandBuffer cb, RecordState&, const uint8_t*) {
    recordFullBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                      VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
}

}  // namespace vkdispatch
