#pragma once
// A mutex that lets waiting threads in in the order they asked (a ticket lock). std::mutex lets
// a thread that unlocks and at once locks again keep winning: two threads writing a buffer in
// a loop kept a third thread's read of it waiting for minutes on an H200 host.
//
// Thread safety: that is its purpose. Meets Lockable (lock_guard, unique_lock, scoped_lock).
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace vkdispatch {

class FairMutex {
public:
    void lock() {
        std::unique_lock<std::mutex> guard(m_state);
        const uint64_t ticket = m_next++;
        m_turn.wait(guard, [&] { return m_serving == ticket; });
    }
    /// Takes the lock only when nobody holds it or waits for it.
    bool try_lock() {
        std::lock_guard<std::mutex> guard(m_state);
        if (m_serving != m_next) return false;
        ++m_next;
        return true;
    }
    void unlock() {
        {
            std::lock_guard<std::mutex> guard(m_state);
            ++m_serving;
        }
        m_turn.notify_all();
    }

private:
    std::mutex m_state;
    std::condition_variable m_turn;
    uint64_t m_next = 0;     // the ticket the next caller of lock() draws
    uint64_t m_serving = 0;  // the ticket that holds the lock (or takes it next)
};

}  // namespace vkdispatch
