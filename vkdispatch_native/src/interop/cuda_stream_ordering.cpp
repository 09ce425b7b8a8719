#include "vkdispatch/cuda_stream_ordering.hpp"

#include <unistd.h>

#include <string>

#include "vkdispatch/device.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/log.hpp"

namespace vkdispatch {

CudaStreamOrdering::CudaStreamOrdering(Device& device, Queue& queue, cuda::Context context,
                                       cuda::Stream stream)
    : m_driver(*CudaDriver::get()),
      m_queue(queue),
      m_device(device.handle()),
      m_context(context),
      m_stream(stream) {
    if (!device.exportsTimelines())
        throw Error("'" + device.info().device_name + "' cannot export timeline semaphores "
                    "(VK_KHR_external_semaphore_fd)");
    m_stream_done = createTimelineSemaphore(m_device, true);
    try {
        m_driver.inContext(m_context, [&] {
            m_stream_done_cuda = import(exportSemaphoreFd(m_device, m_stream_done.get()));
            m_queue_timeline_cuda = import(queue.exportTimelineFd());
        });
    } catch (...) {
        release();
        throw;
    }
}

CudaStreamOrdering::~CudaStreamOrdering() {
    // No later submission may wait on m_stream_done; the stream may still wait on the queue's
    // timeline or signal m_stream_done, and submissions sent may still wait for that signal.
    if (m_attached) m_queue.detach(*this, false);
    m_queue.forgetWaitsOn(m_stream_done.get());
    m_driver.whenCurrent(m_context, [&] {
        if (m_driver.cuCtxSynchronize() != 0)
            log(LogLevel::Error, "waiting for CUDA before freeing a stream ordering failed");
    });
    m_queue.waitIgnoringInterrupts(m_queue.lastSubmitted());
    release();
}

cuda::ExternalSemaphore CudaStreamOrdering::import(int fd) {
    if (fd < 0) throw Error("the queue's timeline semaphore is not exportable");
    cuda::ExternalSemaphoreHandleDesc description{};
    description.type = cuda::kExternalSemaphoreTimelineFd;
    description.handle.fd = fd;
    cuda::ExternalSemaphore semaphore = nullptr;
    const cuda::Result imported = m_driver.cuImportExternalSemaphore(&semaphore, &description);
    if (imported != 0) close(fd);  // CUDA owns it only once imported
    m_driver.check(imported, "importing a timeline semaphore into CUDA");
    return semaphore;
}

void CudaStreamOrdering::release() noexcept {
    const bool released = m_driver.whenCurrent(m_context, [&] {
        if (m_stream_done_cuda != nullptr) m_driver.cuDestroyExternalSemaphore(m_stream_done_cuda);
        if (m_queue_timeline_cuda != nullptr)
            m_driver.cuDestroyExternalSemaphore(m_queue_timeline_cuda);
    });
    if (released) m_stream_done_cuda = m_queue_timeline_cuda = nullptr;
}

void CudaStreamOrdering::followQueue(uint64_t value) {
    if (m_queue.completed(value)) return;  // (true for 0) nothing for the stream to wait for
    cuda::ExternalSemaphoreFenceParams wait;
    // The device waits only for values sent (see Queue::sentValueCovering).
    wait.value = m_queue.sentValueCovering(value);
    m_driver.inContext(m_context, [&] {
        m_driver.check(
            m_driver.cuWaitExternalSemaphoresAsync(&m_queue_timeline_cuda, &wait, 1, m_stream),
            "making a CUDA stream wait for vkdispatch's work");
    });
}

void CudaStreamOrdering::attach() {
    if (m_attached) return;
    m_queue.attach(*this);
    m_attached = true;
}

void CudaStreamOrdering::detach() {
    if (!m_attached) return;
    m_queue.detach(*this, true);
    m_attached = false;
}

std::pair<VkSemaphore, uint64_t> CudaStreamOrdering::handOver() {
    // Runs inside a submission, which must not fail half-way: a failed signal (the stream
    // destroyed, say) is reported, and the submission waits for the last value signalled.
    cuda::ExternalSemaphoreFenceParams signal;
    signal.value = m_handed_over + 1;
    cuda::Context popped = nullptr;
    cuda::Result result = m_driver.cuCtxPushCurrent(m_context);
    if (result == 0) {
        result = m_driver.cuSignalExternalSemaphoresAsync(&m_stream_done_cuda, &signal, 1,
                                                          m_stream);
        m_driver.cuCtxPopCurrent(&popped);
    }
    if (result == 0)
        m_handed_over = signal.value;
    else
        log(LogLevel::Error, "ordering vkdispatch's work after a CUDA stream failed (CUDA error " +
                                 std::to_string(result) + "); the stream's later work is not "
                                 "waited for");
    return {m_stream_done.get(), m_handed_over};
}

}  // namespace vkdispatch
