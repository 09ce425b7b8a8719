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
        m_driver->inContext(m_context,
                            [&] { m_pointer = m_import->map(lease.offset(), buffer.size()); });
    } catch (...) {
        release();
        throw;
    }
}

CudaView::~CudaView() {
    m_streams.clear();  // before the context reference they hold goes
    release();
}

bool CudaView::beginStream(uintptr_t handle) {
    const auto stream = reinterpret_cast<cuda::Stream>(handle);
    std::lock_guard<std::mutex> lock(m_streams_mutex);
    if (!m_unordered.empty()) return false;
    Buffer::Replica& replica = m_buffer.replica(m_queue_index);
    StreamUse& use = m_streams[stream];
    if (!use.ordering) {
        try {
            use.ordering = std::make_unique<CudaStreamOrdering>(
                m_buffer.context().deviceOfQueue(m_queue_index), *replica.queue, m_context,
                stream);
        } catch (const Error& error) {
            m_streams.erase(stream);
            m_unordered = error.what();
            log(LogLevel::Info, std::string("CUDA views of this buffer wait on the host: ") +
                                    error.what());
            return false;
        }
    }
    use.ordering->followQueue(replica.last_use.load());
    if (use.views++ == 0) use.ordering->attach();
    return true;
}

void CudaView::endStream(uintptr_t handle) {
    const auto stream = reinterpret_cast<cuda::Stream>(handle);
    std::lock_guard<std::mutex> lock(m_streams_mutex);
    const auto found = m_streams.find(stream);
    if (found == m_streams.end() || found->second.views == 0) return;
    if (--found->second.views == 0) found->second.ordering->detach();
}

void CudaView::release() noexcept {
    if (m_context == nullptr) return;
    cuda::Context popped = nullptr;
    if (m_pointer != 0 && m_driver->cuCtxPushCurrent(m_context) == 0) {
        m_driver->cuMemFree(m_pointer);
        m_driver->cuCtxPopCurrent(&popped);
    }
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
