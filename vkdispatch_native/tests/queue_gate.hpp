#pragma once
// Gate: holds back everything submitted to a queue after it until open() (or its destruction),
// through a submission that waits on the device for an event the host sets. Used by the tests of
// the bound on unfinished work and of submission windows (a queue behind a gate is busy).
#include <gtest/gtest.h>

#include <cstdint>

#include "vkdispatch/queue.hpp"

namespace vkdispatch::test {

class Gate {
public:
    explicit Gate(Queue& queue) : m_queue(queue) {
        VkEventCreateInfo info{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
        EXPECT_EQ(vkCreateEvent(queue.device(), &info, nullptr, &m_event), VK_SUCCESS);
        m_value = queue.submit([this](VkCommandBuffer cb) {
            vkCmdWaitEvents(cb, 1, &m_event, VK_PIPELINE_STAGE_HOST_BIT,
                            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, nullptr, 0, nullptr, 0,
                            nullptr);
        });
        queue.flushThrough(m_value);  // on the device now, whatever the queue's window
    }
    ~Gate() {
        open();
        m_queue.wait(m_value);
        vkDestroyEvent(m_queue.device(), m_event, nullptr);
    }
    Gate(const Gate&) = delete;
    Gate& operator=(const Gate&) = delete;
    void open() { vkSetEvent(m_queue.device(), m_event); }
    /// The timeline value of the gate's own submission.
    uint64_t value() const { return m_value; }

private:
    Queue& m_queue;
    VkEvent m_event = VK_NULL_HANDLE;
    uint64_t m_value = 0;
};

}  // namespace vkdispatch::test
