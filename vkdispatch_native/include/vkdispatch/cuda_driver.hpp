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

constexpr int kExternalMemoryOpaqueFd = 1;  // CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD

struct ExternalMemoryHandleDesc {  // CUDA_EXTERNAL_MEMORY_HANDLE_DESC
    int type;
    union {
        int fd;
        struct {
            void* handle;
            const void* name;
        } win32;
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

}  // namespace cuda

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

    cuda::Result (*cuInit)(unsigned int) = nullptr;
    cuda::Result (*cuDeviceGetCount)(int*) = nullptr;
    cuda::Result (*cuDeviceGet)(cuda::Device*, int) = nullptr;
    cuda::Result (*cuDeviceGetUuid)(std::array<uint8_t, 16>*, cuda::Device) = nullptr;
    cuda::Result (*cuDevicePrimaryCtxRetain)(cuda::Context*, cuda::Device) = nullptr;
    cuda::Result (*cuDevicePrimaryCtxRelease)(cuda::Device) = nullptr;
    cuda::Result (*cuCtxPushCurrent)(cuda::Context) = nullptr;
    cuda::Result (*cuCtxPopCurrent)(cuda::Context*) = nullptr;
    cuda::Result (*cuCtxSynchronize)() = nullptr;
    cuda::Result (*cuImportExternalMemory)(cuda::ExternalMemory*,
                                           const cuda::ExternalMemoryHandleDesc*) = nullptr;
    cuda::Result (*cuExternalMemoryGetMappedBuffer)(cuda::DevicePointer*, cuda::ExternalMemory,
                                                    const cuda::ExternalMemoryBufferDesc*) =
        nullptr;
    cuda::Result (*cuDestroyExternalMemory)(cuda::ExternalMemory) = nullptr;
    cuda::Result (*cuMemFree)(cuda::DevicePointer) = nullptr;
    cuda::Result (*cuMemcpyDtoD)(cuda::DevicePointer, cuda::DevicePointer, size_t) = nullptr;
    cuda::Result (*cuGetErrorString)(cuda::Result, const char**) = nullptr;

private:
    friend struct CudaDriverLoader;
    CudaDriver() = default;

    mutable std::mutex m_ordinals_mutex;
    mutable std::map<std::array<uint8_t, 16>, int> m_ordinals;  // under m_ordinals_mutex
};

}  // namespace vkdispatch
