#include "vkdispatch/cuda_stream_orderings.hpp"

#include "vkdispatch/errors.hpp"
#include "vkdispatch/log.hpp"
#include "vkdispatch/queue.hpp"

namespace vkdispatch {

std::shared_ptr<CudaStreamOrderings> CudaStreamOrderings::of(Device& device, Queue& queue) {
    return std::static_pointer_cast<CudaStreamOrderings>(
        queue.attachment([&] { return std::make_shared<CudaStreamOrderings>(device, queue); }));
}

CudaStreamOrderings::~CudaStreamOrderings() {
    m_uses.clear();  // each waits for the stream and the queue; before the context goes
    if (m_context != nullptr) CudaDriver::get()->cuDevicePrimaryCtxRelease(m_cuda_device);
}

bool CudaStreamOrderings::begin(cuda::Device cuda_device, cuda::Stream stream, uint64_t value) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_unordered.empty()) return false;
    const CudaDriver& driver = *CudaDriver::get();
    if (m_context == nullptr) {
        driver.check(driver.cuDevicePrimaryCtxRetain(&m_context, cuda_device),
                     "retaining the CUDA device's primary context");
        m_cuda_device = cuda_device;
    }
    Use& use = m_uses[stream];
    if (!use.ordering) {
        try {
            use.ordering =
                std::make_unique<CudaStreamOrdering>(m_device, m_queue, m_context, stream);
        } catch (const Error& error) {
            m_uses.erase(stream);
            m_unordered = error.what();
            log(LogLevel::Info, std::string("CUDA views of buffers on this queue wait on the "
                                            "host: ") + error.what());
            return false;
        }
    }
    use.ordering->followQueue(value);
    if (use.views++ == 0) use.ordering->attach();
    return true;
}

void CudaStreamOrderings::end(cuda::Stream stream) {
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto found = m_uses.find(stream);
    if (found == m_uses.end() || found->second.views == 0) return;
    if (--found->second.views == 0) found->second.ordering->detach();
}

}  // namespace vkdispatch
