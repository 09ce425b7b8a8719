#pragma once
// What a kp::Manager and every object it made share: the instance, the one-device context and
// the FFT plans of its OpFFT operations. Objects hold it, so the device outlives them even when
// the Manager is gone.
#include <memory>

#include "fft_plans.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/device.hpp"
#include "vkdispatch/instance.hpp"

namespace kp::detail {

struct Runtime {
    std::unique_ptr<vkdispatch::Instance> instance;  // its own, or adopted (see Manager)
    std::unique_ptr<vkdispatch::Context> context;
    FftPlans fft_plans;  // after the context: its plans go first

    vkdispatch::Device& device() const { return *context->devices().front(); }
    VkDevice handle() const { return device().handle(); }
};

}  // namespace kp::detail
