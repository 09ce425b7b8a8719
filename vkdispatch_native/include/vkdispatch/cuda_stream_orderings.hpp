#pragma once
// The CUDA stream orderings of one queue (a CudaStreamOrdering per stream), shared by the CUDA
// views of every buffer on the queue and kept until the queue goes (as its attachment): making
// one imports two semaphores into CUDA, which each new buffer's first view paid (0.6 ms on an
// H200) while every view kept orderings of its own. A stream's ordering is attached to the
// queue while a view on that stream lives (begin() without its end()).
//
// Thread safety: begin() and end() may run on any thread.
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "vkdispatch/cuda_driver.hpp"
#include "vkdispatch/cuda_stream_ordering.hpp"

namespace vkdispatch {

class Device;
class Queue;

class CudaStreamOrderings {
public:
    /// The orderings of `queue` (a queue of `device`), made on the first ask.
    static std::shared_ptr<CudaStreamOrderings> of(Device& device, Queue& queue);

    CudaStreamOrderings(Device& device, Queue& queue) : m_device(device), m_queue(queue) {}
    ~CudaStreamOrderings();
    CudaStreamOrderings(const CudaStreamOrderings&) = delete;
    CudaStreamOrderings& operator=(const CudaStreamOrderings&) = delete;

    /// Work issued to `stream` (a stream of CUDA device `cuda_device`'s primary context, or
    /// 1 / 2 for the legacy / per-thread default stream) afterwards follows the queue's work up
    /// to timeline value `value`, and until the matching end() every later submission to the
    /// queue follows the work issued to `stream` before it. False, with nothing ordered, where
    /// the device or the driver cannot order them (the caller orders them on the host).
    bool begin(cuda::Device cuda_device, cuda::Stream stream, uint64_t value);
    void end(cuda::Stream stream);

private:
    struct Use {
        std::unique_ptr<CudaStreamOrdering> ordering;
        int views = 0;  // begin()s not ended yet
    };

    Device& m_device;
    Queue& m_queue;
    std::mutex m_mutex;
    std::map<cuda::Stream, Use> m_uses;  // under m_mutex
    std::string m_unordered;  // why streams cannot be ordered, once that was found
    cuda::Device m_cuda_device = 0;
    cuda::Context m_context = nullptr;  // retained on the first begin()
};

}  // namespace vkdispatch
