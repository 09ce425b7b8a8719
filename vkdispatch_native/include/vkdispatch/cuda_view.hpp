#pragma once
// A buffer replica's memory seen by CUDA (DLPack CUDA views, imports of CUDA tensors): an
// address in the import of the Vulkan memory it lies in (CudaImport, one per block or
// allocation, shared by the views of every buffer there), in the primary context of the CUDA
// device with the same UUID.
//
// Ordering: beginStream(stream) makes CUDA work issued to `stream` afterwards follow the
// replica's Vulkan work so far, and, until the matching endStream(), every later submission to
// the replica's queue follow the work issued to `stream` before it (the queue's
// CudaStreamOrderings, shared by the views of every buffer on it). Where the device or driver
// cannot order them, beginStream() returns false and ordering is the caller's (a host wait one
// way, the user's the other).
//
// Thread safety: beginStream() and endStream() may run on any thread; the driver calls are
// thread-safe.
#include <cstdint>
#include <memory>
#include <string>

#include "vkdispatch/cuda_driver.hpp"
#include "vkdispatch/cuda_import.hpp"
#include "vkdispatch/cuda_stream_orderings.hpp"

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

    /// See the file comment; false (and nothing ordered) where ordering is impossible.
    /// `stream`: a CUstream of the view's device's primary context, as DLPack passes it (1:
    /// the legacy default stream, 2: the per-thread one).
    bool beginStream(uintptr_t stream);
    void endStream(uintptr_t stream);

    cuda::DevicePointer pointer() const noexcept { return m_pointer; }
    /// The primary context of the view's CUDA device (retained by the view).
    cuda::Context context() const noexcept { return m_context; }
    int ordinal() const noexcept { return m_ordinal; }
    /// Copies `bytes` from CUDA device memory at `source` into the view and waits for the copy.
    void copyFrom(cuda::DevicePointer source, uint64_t bytes);

private:
    void release() noexcept;

    const CudaDriver* m_driver;
    Buffer& m_buffer;
    int m_queue_index;
    // The replica's queue's, owned by the queue (which outlives its buffers and their views,
    // and must destroy the orderings itself, while it still works).
    CudaStreamOrderings* m_orderings = nullptr;
    int m_ordinal = -1;
    cuda::Device m_device = 0;
    cuda::Context m_context = nullptr;
    std::shared_ptr<CudaImport> m_import;
    cuda::DevicePointer m_pointer = 0;
};

}  // namespace vkdispatch
