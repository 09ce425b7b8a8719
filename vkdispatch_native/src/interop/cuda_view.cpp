#include "vkdispatch/cuda_view.hpp"

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/log.hpp"

namespace vkdispatch {
namespace {

Device& deviceOf(Buffer& buffer, int queue_index) {
    buffer.replica(queue_index);  // checks the index
    return buffer.context().deviceOfQueue(queue_index);
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

CudaView::CudaView(Buffer& buffer, int queue_index)
    : m_driver(CudaDriver::get()), m_buffer(buffer), m_queue_index(queue_index) {
    std::string why;
    m_ordinal = cudaDeviceOf(buffer, queue_index, &why);
    if (m_ordinal < 0) throw Error("a CUDA view of this buffer is impossible: " + why);
    Device& device = deviceOf(buffer, queue_index);
    MemoryPool::Lease& lease = buffer.replica(queue_index).storage.memory;
    m_driver->check(m_driver->cuDeviceGet(&m_device, m_ordinal), "getting the CUDA device");
    m_driver->check(m_driver->cuDevicePrimaryCtxRetain(&m_context, m_device),
                    "retaining the CUDA device's primary context");
    try {
        m_import = CudaImport::of(device, lease, m_device);
        m_pointer = m_import->address(lease.offset());
        m_orderings = CudaStreamOrderings::of(device, *buffer.replica(queue_index).queue).get();
    } catch (...) {
        release();
        throw;
    }
}

CudaView::~CudaView() { release(); }

bool CudaView::beginStream(uintptr_t handle) {
    return m_orderings->begin(m_device, reinterpret_cast<cuda::Stream>(handle),
                              m_buffer.replica(m_queue_index).last_use.load());
}

void CudaView::endStream(uintptr_t handle) {
    m_orderings->end(reinterpret_cast<cuda::Stream>(handle));
}

void CudaView::release() noexcept {
    if (m_context == nullptr) return;
    m_import.reset();  // the memory's import stays while the memory or other views hold it
    m_driver->cuDevicePrimaryCtxRelease(m_device);
    m_context = nullptr;
    m_pointer = 0;
}

void CudaView::copyFrom(cuda::DevicePointer source, uint64_t bytes) {
    m_driver->inContext(m_context, [&] {
        m_driver->check(m_driver->cuMemcpyDtoD(m_pointer, source, bytes),
                        "copying CUDA memory into the buffer");
        m_driver->check(m_driver->cuCtxSynchronize(), "waiting for the copy");
    });
}

}  // namespace vkdispatch
