#pragma once
// Vulkan's two calls of a list: `query(args..., &count, nullptr)` for its length, then
// `query(args..., &count, items)` for its items.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "vkdispatch/errors.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch::detail {

// A query that returns void (e.g. vkGetPhysicalDeviceQueueFamilyProperties) cannot fail.
template <typename Query, typename... Args>
VkResult resultOf(Query query, Args... args) {
    if constexpr (std::is_void_v<std::invoke_result_t<Query, Args...>>) {
        query(args...);
        return VK_SUCCESS;
    } else {
        return query(args...);
    }
}

/// Fills `items` with the list (copies of `blank`, whose sType the driver expects); returns the
/// first failure, or the second call's result (VK_INCOMPLETE when the list grew in between).
template <typename T, typename Query, typename... Args>
VkResult listInto(std::vector<T>& items, const T& blank, Query query, Args... args) {
    uint32_t count = 0;
    const VkResult counted = resultOf(query, args..., &count, static_cast<T*>(nullptr));
    if (counted < 0) return counted;
    items.assign(count, blank);
    const VkResult listed = resultOf(query, args..., &count, items.data());
    items.resize(count);
    return listed;
}

/// The list, or a VulkanError saying `what` failed.
template <typename T, typename Query, typename... Args>
std::vector<T> listOf(const T& blank, const std::string& what, Query query, Args... args) {
    std::vector<T> items;
    VK_CHECK(listInto(items, blank, query, args...), what);
    return items;
}

}  // namespace vkdispatch::detail
