#pragma once
// Orders the work of one queue and one CUDA stream both ways through timeline semaphores shared
// with CUDA, without the host waiting for either:
//
// - followQueue(value): work issued to the stream afterwards starts once the queue's timeline
//   reaches `value` (the stream waits on the queue's own timeline semaphore, imported);
// - while attached to the queue (Queue::attach), every submission to the queue waits on the
//   device for the work issued to the stream before it (handOver(): the stream signals the next
//   value of a semaphore of this object, and the submission waits for that value). Detaching
//   leaves one last such wait for the next submission.
//
// Needs a device whose exportsTimelines() and a CUDA driver with timeline semaphore imports
// (11.2 or later); the constructor throws Error otherwise.
//
// Thread safety: handOver() runs under the queue's lock; the rest is the owner's to serialise.
#include <cstdint>
#include <utility>

#include "vkdispatch/cuda_driver.hpp"
#include "vkdispatch/queue.hpp"

namespace vkdispatch {

class Device;

class CudaStreamOrdering final : public ExternalOrdering {
public:
    /// `context` is the primary context of the CUDA device that is `device` (the caller holds
    /// a reference to it for this object's lifetime); `stream` a stream of that context (or
    /// CU_STREAM_LEGACY / CU_STREAM_PER_THREAD).
    CudaStreamOrdering(Device& device, Queue& queue, cuda::Context context, cuda::Stream stream);
    /// Detaches and waits until neither the stream nor the queue can still use the semaphores.
    ~CudaStreamOrdering() override;
    CudaStreamOrdering(const CudaStreamOrdering&) = delete;
    CudaStreamOrdering& operator=(const CudaStreamOrdering&) = delete;

    void followQueue(uint64_t value);
    void attach();
    void detach();
    std::pair<VkSemaphore, uint64_t> handOver() override;

private:
    cuda::ExternalSemaphore import(int fd);
    void release() noexcept;

    const CudaDriver& m_driver;
    Queue& m_queue;
    VkDevice m_device;
    cuda::Context m_context;
    cuda::Stream m_stream;
    UniqueSemaphore m_stream_done;  // signalled by the stream, waited for by the queue
    cuda::ExternalSemaphore m_stream_done_cuda = nullptr;
    cuda::ExternalSemaphore m_queue_timeline_cuda = nullptr;
    uint64_t m_handed_over = 0;  // the last value the stream was asked to signal
    bool m_attached = false;
};

}  // namespace vkdispatch
