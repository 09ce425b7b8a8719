#pragma once
// What the kp::Managers of one device (see shared_runtimes.hpp) and every object they made
// share: the instance, the one-device context and the FFT plans of their OpFFT operations (a
// Manager over the program's own VkDevice has one alone). Objects hold it, so the device
// outlives them even when their Manager is gone; objects holding the same runtime are on the
// same device, and only those can be recorded together.
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
