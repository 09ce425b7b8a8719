#pragma once
// The check of a replica index (one replica per queue of a context) shared by buffers and
// images: an index out of range throws IndexOutOfRangeError naming the valid range.
#include <memory>
#include <string>
#include <vector>

#include "vkdispatch/errors.hpp"

namespace vkdispatch::detail {

template <class Replica>
Replica& replicaAt(const std::vector<std::unique_ptr<Replica>>& replicas, int queue_index) {
    const int count = static_cast<int>(replicas.size());
    if (queue_index < 0 || queue_index >= count)
        throw IndexOutOfRangeError("index: replica " + std::to_string(queue_index) +
                                   " does not exist (valid: 0.." + std::to_string(count - 1) +
                                   ")");
    return *replicas[queue_index];
}

}  // namespace vkdispatch::detail
