#include "vkdispatch/cuda_view.hpp"

#include <unistd.h>

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

Device& deviceOf(Buffer& buffer, int queue_index) {
    buffer.replica(queue_index);  // checks the index
    return buffer.context().deviceOfQueue(queue_index);
}

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

int CudaView::cudaDeviceOf(Buffer& buffer, int queue_index, std::string* why) {
    Device& device = deviceOf(buffer, queue_index);
    std::string reason;
    int ordinal = -1;
    const CudaDriver* driver = CudaDriver::get();
    if (driver == nullptr) {
        reason = CudaDriver::unavailableReason();
    } else if ((device.memoryPool().exportTypes() & VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) ==
               0) {
        reason = "'" + device.info().device_name +
                 "' cannot export buffer memory (VK_KHR_external_memory_fd)";
    } else if (!device.info().has_uuid) {
        reason = "'" + device.info().device_name + "' reports no device UUID to match CUDA's";
    } else {
        ordinal = driver->deviceWithUuid(device.info().uuid);
        if (ordinal < 0)
            reason = "no CUDA device is '" + device.info().device_name + "' (no UUID matches)";
    }
    if (why != nullptr) *why = reason;
    return ordinal;
}

template <typename Body>
void CudaView::inContext(Body&& body) {
    m_driver->check(m_driver->cuCtxPushCurrent(m_context), "making the CUDA context current");
    try {
        body();
    } catch (...) {
        cuda::Context popped = nullptr;
        m_driver->cuCtxPopCurrent(&popped);
        throw;
    }
    cuda::Context popped = nullptr;
    m_driver->check(m_driver->cuCtxPopCurrent(&popped), "restoring the CUDA context");
}

CudaView::CudaView(Buffer& buffer, int queue_index) : m_driver(CudaDriver::get()) {
    std::string why;
    m_ordinal = cudaDeviceOf(buffer, queue_index, &why);
    if (m_ordinal < 0) throw Error("a CUDA view of this buffer is impossible: " + why);
    Device& device = deviceOf(buffer, queue_index);
    Buffer::Replica& replica = buffer.replica(queue_index);
    const MemoryPool::Lease& lease = replica.storage.memory;
    m_driver->check(m_driver->cuDeviceGet(&m_device, m_ordinal), "getting the CUDA device");
    m_driver->check(m_driver->cuDevicePrimaryCtxRetain(&m_context, m_device),
                    "retaining the CUDA device's primary context");
    try {
        inContext([&] {
            cuda::ExternalMemoryHandleDesc memory{};
            memory.type = cuda::kExternalMemoryOpaqueFd;
            memory.handle.fd = exportDescriptor(device, lease);
            memory.size = lease.allocationSize();
            const cuda::Result imported = m_driver->cuImportExternalMemory(&m_memory, &memory);
            if (imported != 0) close(memory.handle.fd);  // CUDA owns it only once imported
            m_driver->check(imported, "importing buffer memory into CUDA");
            cuda::ExternalMemoryBufferDesc mapping{};
            mapping.offset = lease.offset();
            mapping.size = buffer.size();
            m_driver->check(
                m_driver->cuExternalMemoryGetMappedBuffer(&m_pointer, m_memory, &mapping),
                "mapping buffer memory into CUDA");
        });
        buffer.waitForWork(queue_index);
    } catch (...) {
        release();
        throw;
    }
}

CudaView::~CudaView() { release(); }

void CudaView::release() noexcept {
    if (m_context == nullptr) return;
    cuda::Context popped = nullptr;
    if (m_driver->cuCtxPushCurrent(m_context) == 0) {
        if (m_pointer != 0) m_driver->cuMemFree(m_pointer);
        if (m_memory != nullptr) m_driver->cuDestroyExternalMemory(m_memory);
        m_driver->cuCtxPopCurrent(&popped);
    }
    m_driver->cuDevicePrimaryCtxRelease(m_device);
    m_context = nullptr;
    m_pointer = 0;
    m_memory = nullptr;
}

void CudaView::copyFrom(cuda::DevicePointer source, uint64_t bytes) {
    inContext([&] {
        m_driver->check(m_driver->cuMemcpyDtoD(m_pointer, source, bytes),
                        "copying CUDA memory into the buffer");
        m_driver->check(m_driver->cuCtxSynchronize(), "waiting for the copy");
    });
}

}  // namespace vkdispatch
