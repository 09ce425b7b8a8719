#pragma once
// The runtimes the kp::Managers of a process share, one per physical device, as CUDA's primary
// context is one per device: every Manager of a device records into the same VkDevice, so
// objects one made can be recorded into another's sequences (Kompute's
// TestManagerParallelExecution does so). The registry holds them weakly: a device lives while
// a Manager or an object of it holds it, and the next Manager after that makes a new one.
//
// Thread safety: safe to call from any thread (one mutex; a device is made under it).
#include <cstdint>
#include <memory>

#include "runtime.hpp"

namespace kp::detail {

/// Queues the shared device has of each compute family, at most. Context::warmUp submits once
/// to every queue when the device is made, and each costs its driver's setup then, whether a
/// Manager asks for it or not; 4 covers Kompute's examples (two to four queues of a family
/// for parallel execution) without making every Manager pay for the 16 some GPUs offer.
constexpr uint32_t kQueuesPerFamily = 4;

/// The live runtime of physical device `physical_device_index`, or a new one: its own
/// instance (with the validation layer under VKDISPATCH_DEBUG) and a device with
/// min(queue count, kQueuesPerFamily) queues of every compute family, in family order.
/// Throws std::runtime_error with Kompute's messages when there is no device or no such index.
std::shared_ptr<Runtime> sharedRuntime(uint32_t physical_device_index);

}  // namespace kp::detail
