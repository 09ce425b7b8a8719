#pragma once
// Which queue of the device a kp::Manager's queue is. Managers of one physical device share its
// queues (see shared_runtimes.hpp), and each numbers its own as Kompute does: queue i is entry i
// of its family_queue_indices. Repeating a family asks for another queue of it, so the k-th
// entry of family f is the k-th queue of f on the device, and two Managers with the same list
// use the same queues.
#include <cstdint>
#include <vector>

namespace kp::detail {

/// For each entry of `requested` (family indices), the index of its queue among the device's,
/// whose families `queue_families` lists in queue order. Throws std::runtime_error naming the
/// family, how many of its queues were asked for and how many the device has.
std::vector<int> mapQueues(const std::vector<uint32_t>& queue_families,
                           const std::vector<int>& requested);

}  // namespace kp::detail
