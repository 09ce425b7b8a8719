#pragma once
// What a kp::Manager and every object it made share: the instance and the one-device context.
// Objects hold it, so the device outlives them even when the Manager is gone.
#include <memory>

#include "vkdispatch/context.hpp"
#include "vkdispatch/device.hpp"
#include "vkdispatch/instance.hpp"

namespace kp::detail {

struct Runtime {
    std::unique_ptr<vkdispatch::Instance> instance;  // its own, or adopted (see Manager)
    std::unique_ptr<vkdispatch::Context> context;

    vkdispatch::Device& device() const { return *context->devices().front(); }
    VkDevice handle() const { return device().handle(); }
};

}  // namespace kp::detail
