#pragma once
// The few CUDA driver API entry points that CUDA views of buffers need, loaded at run time from
// libcuda.so.1: no CUDA toolkit at build time, and no CUDA requirement for anyone who does not
// ask for a CUDA view. The types mirror the driver API's ABI (cuda.h), declared here.
//
// Thread safety: get() loads once; the entry points are the driver's (thread-safe), and
// deviceWithUuid() locks its cache.
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace vkdispatch {

namespace cuda {

using Result = int;  // CUresult: 0 is CUDA_SUCCESS
using Device = int;  // CUdevice
using Context = struct CUctx_st*;
using ExternalMemory = struct CUextMemory_st*;
using DevicePointer = unsigned long long;  // CUdeviceptr
using Stream = struct CUstream_st*;
using ExternalSemaphore = struct CUextSemaphore_st*;

constexpr int kExternalMemoryOpaqueFd = 1;  // CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD
// CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD (CUDA 11.2 and later)
constexpr int kExternalSemaphoreTimelineFd = 9;

struct Win32Handle {  // the win32 member of the handle unions below (unused on Linux)
    void* handle;
    const void* name;
};

struct ExternalMemoryHandleDesc {  // CUDA_EXTERNAL_MEMORY_HANDLE_DESC
    int type;
    union {
        int fd;
        Win32Handle win32;
        const void* nv_sci_buf_object;
    } handle;
    unsigned long long size;
    unsigned int flags;
    unsigned int reserved[16];
};

struct ExternalMemoryBufferDesc {  // CUDA_EXTERNAL_MEMORY_BUFFER_DESC
    unsigned long long offset;
    unsigned long long size;
    unsigned int flags;
    unsigned int reserved[16];
};

struct ExternalSemaphoreHandleDesc {  // CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC
    int type;
    union {
        int fd;
        Win32Handle win32;
        const void* nv_sci_sync_object;
    } handle;
    unsigned int flags;
    unsigned int reserved[16];
};

// CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS and _WAIT_PARAMS: for a timeline semaphore only the
// fence value (their first member) is read; every other field must be zero. Both are 144
// bytes; the tail here is zeroed padding of that size.
struct ExternalSemaphoreFenceParams {
    unsigned long long value = 0;
    unsigned int zeroes[34] = {};
};
static_assert(sizeof(ExternalSemaphoreFenceParams) == 144, "the driver's parameter size");

}  // namespace cuda

// The driver entry points used, each as X(member, suffix, parameters): the member is the
// driver's symbol `member` + `suffix` ("_v2" where the plain name keeps an older ABI), taking
// `parameters` and returning cuda::Result. The one list both declares and loads the members.
#define VKDISPATCH_CUDA_DRIVER_FUNCTIONS(X)                                                     \
    X(cuInit, "", (unsigned int))                                                               \
    X(cuDeviceGetCount, "", (int*))                                                             \
    X(cuDeviceGet, "", (cuda::Device*, int))                                                    \
    X(cuDeviceGetUuid, "", (std::array<uint8_t, 16>*, cuda::Device))                            \
    X(cuDevicePrimaryCtxRetain, "", (cuda::Context*, cuda::Device))                             \
    X(cuDevicePrimaryCtxRelease, "_v2", (cuda::Device))                                         \
    X(cuCtxPushCurrent, "_v2", (cuda::Context))                                                 \
    X(cuCtxPopCurrent, "_v2", (cuda::Context*))                                                 \
    X(cuCtxSynchronize, "", ())                                                                 \
    X(cuImportExternalMemory, "",                                                               \
      (cuda::ExternalMemory*, const cuda::ExternalMemoryHandleDesc*))                           \
    X(cuExternalMemoryGetMappedBuffer, "",                                                      \
      (cuda::DevicePointer*, cuda::ExternalMemory, const cuda::ExternalMemoryBufferDesc*))      \
    X(cuDestroyExternalMemory, "", (cuda::ExternalMemory))                                      \
    X(cuMemFree, "_v2", (cuda::DevicePointer))                                                  \
    X(cuMemAlloc, "_v2", (cuda::DevicePointer*, size_t))                                        \
    X(cuMemcpyDtoD, "_v2", (cuda::DevicePointer, cuda::DevicePointer, size_t))                  \
    X(cuMemcpyPeer, "",                                                                         \
      (cuda::DevicePointer, cuda::Context, cuda::DevicePointer, cuda::Context, size_t))         \
    X(cuDeviceCanAccessPeer, "", (int*, cuda::Device, cuda::Device))                            \
    X(cuCtxEnablePeerAccess, "", (cuda::Context, unsigned int))                                 \
    X(cuGetErrorString, "", (cuda::Result, const char**))                                       \
    X(cuImportExternalSemaphore, "",                                                            \
      (cuda::ExternalSemaphore*, const cuda::ExternalSemaphoreHandleDesc*))                     \
    X(cuSignalExternalSemaphoresAsync, "",                                                      \
      (const cuda::ExternalSemaphore*, const cuda::ExternalSemaphoreFenceParams*, unsigned int, \
       cuda::Stream))                                                                           \
    X(cuWaitExternalSemaphoresAsync, "",                                                        \
      (const cuda::ExternalSemaphore*, const cuda::ExternalSemaphoreFenceParams*, unsigned int, \
       cuda::Stream))                                                                           \
    X(cuDestroyExternalSemaphore, "", (cuda::ExternalSemaphore))

class CudaDriver {
public:
    /// The loaded driver, or nullptr when libcuda.so.1 is missing, lacks an entry point, or
    /// cuInit fails; unavailableReason() then says which.
    static const CudaDriver* get();
    static std::string unavailableReason();

    /// The ordinal of the CUDA device whose UUID is `uuid`, or -1 when no CUDA device has it.
    /// Asked on every export of a view; the devices are enumerated once per UUID.
    int deviceWithUuid(const std::array<uint8_t, 16>& uuid) const;
    /// Throws Error naming `what` and the driver's message when `result` is a failure.
    void check(cuda::Result result, const std::string& what) const;
    /// Runs `body` with `context` current on this thread, the previous one current again after
    /// (also when `body` throws).
    template <typename Body>
    void inContext(cuda::Context context, Body&& body) const {
        check(cuCtxPushCurrent(context), "making the CUDA context current");
        try {
            body();
        } catch (...) {
            cuda::Context popped = nullptr;
            cuCtxPopCurrent(&popped);
            throw;
        }
        cuda::Context popped = nullptr;
        check(cuCtxPopCurrent(&popped), "restoring the CUDA context");
    }
    /// inContext() for teardown, which must not throw: runs `body` (which must not throw
    /// either) only when `context` can be made current; whether it could.
    template <typename Body>
    bool whenCurrent(cuda::Context context, Body&& body) const noexcept {
        if (cuCtxPushCurrent(context) != 0) return false;
        body();
        cuda::Context popped = nullptr;
        cuCtxPopCurrent(&popped);
        return true;
    }

#define VKDISPATCH_CUDA_MEMBER(name, suffix, parameters) \
    cuda::Result(*name) parameters = nullptr;
    VKDISPATCH_CUDA_DRIVER_FUNCTIONS(VKDISPATCH_CUDA_MEMBER)
#undef VKDISPATCH_CUDA_MEMBER

private:
    friend struct CudaDriverLoader;
    CudaDriver() = default;

    mutable std::mutex m_ordinals_mutex;
    mutable std::map<std::array<uint8_t, 16>, int> m_ordinals;  // under m_ordinals_mutex
};

}  // namespace vkdispatch
