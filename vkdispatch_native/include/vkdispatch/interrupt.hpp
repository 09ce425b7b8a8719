#pragma once
// Long waits poll a host-installed check so that Ctrl-C interrupts them (the Python bridge
// installs one that asks the interpreter for pending signals).
//
// Thread safety: safe from any thread.

namespace vkdispatch {

using InterruptCheck = bool (*)();

void setInterruptCheck(InterruptCheck check);
/// Throws InterruptedError when the installed check reports a pending interrupt.
void throwIfInterrupted();

}  // namespace vkdispatch
