#include "queue_mapping.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace kp::detail {

namespace {

std::runtime_error tooManyQueues(int family, const std::vector<int>& requested, size_t existing) {
    const auto asked = std::count(requested.begin(), requested.end(), family);
    return std::runtime_error(
        "Kompute Manager asked for " + std::to_string(asked) + " queue(s) of family " +
        std::to_string(family) + ", but the device has " + std::to_string(existing) +
        " (the Managers of one device share its queues)");
}

}  // namespace

std::vector<int> mapQueues(const std::vector<uint32_t>& queue_families,
                           const std::vector<int>& requested) {
    std::map<int, std::vector<int>> of_family;  // the device's queues of each family, in order
    for (size_t q = 0; q < queue_families.size(); ++q)
        of_family[static_cast<int>(queue_families[q])].push_back(static_cast<int>(q));
    std::map<int, size_t> taken;
    std::vector<int> mapped;
    for (int family : requested) {
        const std::vector<int>& queues = of_family[family];
        const size_t k = taken[family]++;
        if (k >= queues.size()) throw tooManyQueues(family, requested, queues.size());
        mapped.push_back(queues[k]);
    }
    return mapped;
}

}  // namespace kp::detail
