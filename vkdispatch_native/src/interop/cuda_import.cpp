#include "vkdispatch/cuda_import.hpp"

#include <unistd.h>

#include "vkdispatch/device.hpp"
#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

// A file descriptor of the memory `lease` lies in; the caller owns it.
int exportDescriptor(Device& device, const MemoryPool::Lease& lease) {
    VkMemoryGetFdInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    info.memory = lease.memory();
    info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    VK_CHECK(vkGetMemoryFdKHR(device.handle(), &info, &fd), "exporting buffer memory");
    return fd;
}

}  // namespace

std::shared_ptr<CudaImport> CudaImport::of(Device& device, MemoryPool::Lease& lease,
                                           cuda::Device cuda_device) {
    const CudaDriver* driver = CudaDriver::get();
    if (driver == nullptr)
        throw Error("importing buffer memory into CUDA: " + CudaDriver::unavailableReason());
    return std::static_pointer_cast<CudaImport>(lease.attachment([&] {
        return std::make_shared<CudaImport>(*driver, device, lease, cuda_device);
    }));
}

CudaImport::CudaImport(const CudaDriver& driver, Device& device, const MemoryPool::Lease& lease,
                       cuda::Device cuda_device)
    : m_driver(driver), m_device(cuda_device) {
    m_driver.check(m_driver.cuDevicePrimaryCtxRetain(&m_context, m_device),
                   "retaining the CUDA device's primary context");
    try {
        m_driver.inContext(m_context, [&] {
            cuda::ExternalMemoryHandleDesc memory{};
            memory.type = cuda::kExternalMemoryOpaqueFd;
            memory.handle.fd = exportDescriptor(device, lease);
            memory.size = lease.allocationSize();
            const cuda::Result imported = m_driver.cuImportExternalMemory(&m_memory, &memory);
            if (imported != 0) close(memory.handle.fd);  // CUDA owns it only once imported
            m_driver.check(imported, "importing buffer memory into CUDA");
            cuda::ExternalMemoryBufferDesc mapping{};
            mapping.size = memory.size;
            m_driver.check(m_driver.cuExternalMemoryGetMappedBuffer(&m_base, m_memory, &mapping),
                           "mapping buffer memory into CUDA");
        });
    } catch (...) {
        release();
        throw;
    }
}

CudaImport::~CudaImport() { release(); }

void CudaImport::release() noexcept {
    if (m_context == nullptr) return;
    if (m_memory != nullptr)
        m_driver.whenCurrent(m_context, [&] {
            if (m_base != 0) m_driver.cuMemFree(m_base);
            m_driver.cuDestroyExternalMemory(m_memory);
        });
    m_driver.cuDevicePrimaryCtxRelease(m_device);
    m_context = nullptr;
    m_memory = nullptr;
    m_base = 0;
}

}  // namespace vkdispatch
