#include "vkdispatch/interrupt.hpp"

#include <atomic>

#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {
std::atomic<InterruptCheck> g_check{nullptr};
}

void setInterruptCheck(InterruptCheck check) { g_check.store(check); }

void throwIfInterrupted() {
    InterruptCheck check = g_check.load();
    if (check != nullptr && check()) throw InterruptedError();
}

}  // namespace vkdispatch
