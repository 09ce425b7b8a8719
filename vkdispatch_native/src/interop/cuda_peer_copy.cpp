#include "vkdispatch/replica_routes.hpp"

#include <algorithm>
#include <mutex>
#include <string>

#include "vkdispatch/buffer.hpp"
#include "vkdispatch/cuda_view.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/queue.hpp"

namespace vkdispatch {
namespace {

constexpr cuda::Result kPeerAccessAlreadyEnabled = 704;  // CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
// Imported Vulkan memory does not travel over NVLink: a peer copy between two imports moved
// 37 GB/s on two H200s (NV18), no more than the route through host memory, where torch's peer
// copy of CUDA's own allocations moved 333-380 GB/s. So the bytes go through CUDA allocations
// of both GPUs, a chunk at a time: import -> own memory on the source GPU, own -> own between
// the GPUs, own -> import on the target GPU.
constexpr uint64_t kChunkBytes = uint64_t(64) << 20;

// `bytes` of CUDA's own device memory in `context`, freed with it.
class OwnMemory {
public:
    OwnMemory(const CudaDriver& driver, cuda::Context context, uint64_t bytes)
        : m_driver(driver), m_context(context) {
        m_driver.inContext(m_context, [&] {
            m_driver.check(m_driver.cuMemAlloc(&m_pointer, bytes),
                           "allocating CUDA staging memory for a copy between GPUs");
        });
    }
    ~OwnMemory() {
        m_driver.whenCurrent(m_context, [&] { m_driver.cuMemFree(m_pointer); });
    }
    OwnMemory(const OwnMemory&) = delete;
    OwnMemory& operator=(const OwnMemory&) = delete;
    cuda::DevicePointer pointer() const noexcept { return m_pointer; }

private:
    const CudaDriver& m_driver;
    cuda::Context m_context;
    cuda::DevicePointer m_pointer = 0;
};

// Lets `from` address `to`'s memory directly, which the driver keeps for the contexts'
// lifetime (a peer copy without it may travel through host memory).
void enablePeerAccess(const CudaDriver& driver, cuda::Context from, cuda::Context to) {
    driver.inContext(from, [&] {
        const cuda::Result result = driver.cuCtxEnablePeerAccess(to, 0);
        if (result != kPeerAccessAlreadyEnabled) driver.check(result, "enabling CUDA peer access");
    });
}

void synchronize(const CudaDriver& driver, cuda::Context context) {
    driver.inContext(context, [&] {
        driver.check(driver.cuCtxSynchronize(), "waiting for a copy between GPUs");
    });
}

}  // namespace

bool copiesThroughCuda(Buffer& buffer, int src, int dst) {
    const int from = CudaView::cudaDeviceOf(buffer, src), to = CudaView::cudaDeviceOf(buffer, dst);
    if (from < 0 || to < 0 || from == to) return false;
    const CudaDriver& driver = *CudaDriver::get();
    cuda::Device from_device = 0, to_device = 0;
    driver.check(driver.cuDeviceGet(&from_device, from), "getting a CUDA device");
    driver.check(driver.cuDeviceGet(&to_device, to), "getting a CUDA device");
    int reaches = 0;
    driver.check(driver.cuDeviceCanAccessPeer(&reaches, to_device, from_device),
                 "asking whether two CUDA devices reach each other");
    return reaches != 0;
}

void copyReplicaThroughCuda(Buffer& source, int src, Buffer& target, int dst,
                            uint64_t dst_offset) {
    if (&source.context() != &target.context())
        throw InvalidArgumentError("target: the buffers belong to different contexts");
    const uint64_t size = source.size();
    if (dst_offset > target.size() || size > target.size() - dst_offset)
        throw InvalidArgumentError("dst_offset: " + std::to_string(size) + " bytes at " +
                                   std::to_string(dst_offset) + " exceed the target's " +
                                   std::to_string(target.size()));
    if (!copiesThroughCuda(source, src, dst))
        throw InvalidArgumentError("dst: replica " + std::to_string(dst) + " is not on a CUDA "
                                   "device that replica " + std::to_string(src) +
                                   "'s device reaches");
    const CudaDriver& driver = *CudaDriver::get();
    Buffer::Replica &from = source.replica(src), &to = target.replica(dst);
    std::scoped_lock transfers(from.transfer, to.transfer);
    CudaView reader(source, src), writer(target, dst);
    enablePeerAccess(driver, writer.context(), reader.context());
    enablePeerAccess(driver, reader.context(), writer.context());
    from.queue->wait(from.last_use.load());
    to.queue->wait(to.last_use.load());  // earlier work may still read the target
    // Each step is ordered after the one before on the contexts' default streams (a peer copy
    // is serialised with the work of both contexts).
    const uint64_t chunk = std::min(size, kChunkBytes);
    OwnMemory near(driver, reader.context(), chunk), far(driver, writer.context(), chunk);
    for (uint64_t at = 0; at < size; at += chunk) {
        const uint64_t bytes = std::min(chunk, size - at);
        driver.inContext(reader.context(), [&] {
            driver.check(driver.cuMemcpyDtoD(near.pointer(), reader.pointer() + at, bytes),
                         "staging a copy between GPUs");
        });
        driver.inContext(writer.context(), [&] {
            driver.check(driver.cuMemcpyPeer(far.pointer(), writer.context(), near.pointer(),
                                             reader.context(), bytes),
                         "copying between GPUs through CUDA");
            driver.check(driver.cuMemcpyDtoD(writer.pointer() + dst_offset + at, far.pointer(),
                                             bytes),
                         "unstaging a copy between GPUs");
        });
    }
    synchronize(driver, writer.context());
    synchronize(driver, reader.context());
}

}  // namespace vkdispatch
