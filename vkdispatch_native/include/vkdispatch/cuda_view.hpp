#pragma once
// A buffer replica's memory seen by CUDA (DLPack CUDA views, imports of CUDA tensors): the
// Vulkan memory exported as a file descriptor, imported into the primary context of the CUDA
// device with the same UUID, and mapped at the replica's offset.
//
// Ordering: the constructor returns once the work submitted so far on the replica completed,
// so CUDA work issued after it sees every result. The other way round is the caller's: CUDA
// work on the view must be complete before later vkdispatch work uses the buffer.
//
// Thread safety: one object per view; the driver calls are thread-safe.
#include <string>

#include "vkdispatch/cuda_driver.hpp"

namespace vkdispatch {

class Buffer;

class CudaView {
public:
    /// The CUDA device ordinal that can view replica `queue_index` of `buffer`, or -1 with
    /// `why` saying what is missing (no CUDA driver, memory not exportable, no CUDA device
    /// with the Vulkan device's UUID).
    static int cudaDeviceOf(Buffer& buffer, int queue_index, std::string* why = nullptr);

    /// Maps the replica; throws Error naming the reason when cudaDeviceOf() is -1 or a driver
    /// call fails.
    CudaView(Buffer& buffer, int queue_index);
    ~CudaView();
    CudaView(const CudaView&) = delete;
    CudaView& operator=(const CudaView&) = delete;

    cuda::DevicePointer pointer() const noexcept { return m_pointer; }
    int ordinal() const noexcept { return m_ordinal; }
    /// Copies `bytes` from CUDA device memory at `source` into the view and waits for the copy.
    void copyFrom(cuda::DevicePointer source, uint64_t bytes);

private:
    // Runs `body` with the device's primary context current on this thread.
    template <typename Body>
    void inContext(Body&& body);
    void release() noexcept;

    const CudaDriver* m_driver;
    int m_ordinal = -1;
    cuda::Device m_device = 0;
    cuda::Context m_context = nullptr;
    cuda::ExternalMemory m_memory = nullptr;
    cuda::DevicePointer m_pointer = 0;
};

}  // namespace vkdispatch
