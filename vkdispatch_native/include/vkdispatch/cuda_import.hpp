#pragma once
// Vulkan memory imported into CUDA: the VkDeviceMemory of a pool block (or of a buffer's
// allocation of its own), exported as a file descriptor, imported once into the primary context
// of the CUDA device that can see it and mapped whole. Every CudaView of a buffer in that memory
// is an address inside that mapping: on an H200 importing a whole 8 MiB block took 0.2 ms of a
// 4 KiB view's 0.24 ms, and mapping 256 MiB 1.6 ms, which a view of kept memory would pay again
// if each view mapped its own range.
//
// The import is the memory's attachment (MemoryPool::Lease::attachment): it lives as long as
// the memory and the views that hold it, and goes with the memory, so it can never serve another
// allocation that is later given the same VkDeviceMemory handle value. interop/ is the only user
// of that attachment.
//
// Thread safety: of() may run on any thread (the pool serializes the first import of a memory);
// address() is a constant's.
#include <memory>

#include "vkdispatch/cuda_driver.hpp"
#include "vkdispatch/memory_pool.hpp"

namespace vkdispatch {

class Device;

class CudaImport {
public:
    /// The import of the memory `lease` (of `device`'s pool) lies in, into CUDA device
    /// `cuda_device`: made on the first ask for that memory, the same one after.
    static std::shared_ptr<CudaImport> of(Device& device, MemoryPool::Lease& lease,
                                          cuda::Device cuda_device);

    /// Imports the memory of `lease`; throws Error naming the driver call that failed.
    CudaImport(const CudaDriver& driver, Device& device, const MemoryPool::Lease& lease,
               cuda::Device cuda_device);
    ~CudaImport();
    CudaImport(const CudaImport&) = delete;
    CudaImport& operator=(const CudaImport&) = delete;

    /// The CUDA device address of byte `offset` of the memory.
    cuda::DevicePointer address(uint64_t offset) const noexcept { return m_base + offset; }
    cuda::Context context() const noexcept { return m_context; }

private:
    void release() noexcept;

    const CudaDriver& m_driver;
    cuda::Device m_device;
    cuda::Context m_context = nullptr;  // the primary context, retained
    cuda::ExternalMemory m_memory = nullptr;
    cuda::DevicePointer m_base = 0;  // the whole memory, mapped
};

}  // namespace vkdispatch
