#include "vkdispatch/cuda_driver.hpp"

#include <dlfcn.h>

#include <mutex>

#include "vkdispatch/errors.hpp"

namespace vkdispatch {
namespace {

struct Loaded {
    CudaDriver* driver = nullptr;
    std::string reason;
};

template <typename Function>
bool resolve(void* library, const char* name, Function& out, std::string& reason) {
    out = reinterpret_cast<Function>(dlsym(library, name));
    if (out == nullptr) reason = std::string("libcuda.so.1 has no ") + name;
    return out != nullptr;
}

// Stops at the first missing symbol, which `reason` then names.
bool resolveAll(void* library, CudaDriver& driver, std::string& reason) {
#define VKDISPATCH_CUDA_RESOLVE(name, suffix, parameters) \
    if (!resolve(library, #name suffix, driver.name, reason)) return false;
    VKDISPATCH_CUDA_DRIVER_FUNCTIONS(VKDISPATCH_CUDA_RESOLVE)
#undef VKDISPATCH_CUDA_RESOLVE
    return true;
}

}  // namespace

struct CudaDriverLoader {
    static Loaded load() {
        Loaded loaded;
        // Never closed: views may be released until the process exits.
        void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr) {
            loaded.reason = "the CUDA driver (libcuda.so.1) is not installed";
            return loaded;
        }
        auto* driver = new CudaDriver();  // lives as long as the process
        if (!resolveAll(library, *driver, loaded.reason)) {
            delete driver;
            return loaded;
        }
        const cuda::Result init = driver->cuInit(0);
        if (init != 0) {
            const char* message = nullptr;
            driver->cuGetErrorString(init, &message);
            loaded.reason = std::string("cuInit failed: ") + (message ? message : "unknown");
            delete driver;
            return loaded;
        }
        loaded.driver = driver;
        return loaded;
    }

    static const Loaded& instance() {
        static const Loaded loaded = load();
        return loaded;
    }
};

const CudaDriver* CudaDriver::get() { return CudaDriverLoader::instance().driver; }

std::string CudaDriver::unavailableReason() { return CudaDriverLoader::instance().reason; }

int CudaDriver::deviceWithUuid(const std::array<uint8_t, 16>& uuid) const {
    std::lock_guard<std::mutex> lock(m_ordinals_mutex);
    const auto known = m_ordinals.find(uuid);
    if (known != m_ordinals.end()) return known->second;
    int count = 0;
    check(cuDeviceGetCount(&count), "counting CUDA devices");
    int found = -1;
    for (int ordinal = 0; ordinal < count && found < 0; ++ordinal) {
        cuda::Device device = 0;
        std::array<uint8_t, 16> id{};
        check(cuDeviceGet(&device, ordinal), "getting a CUDA device");
        check(cuDeviceGetUuid(&id, device), "reading a CUDA device's UUID");
        if (id == uuid) found = ordinal;
    }
    m_ordinals.emplace(uuid, found);
    return found;
}

void CudaDriver::check(cuda::Result result, const std::string& what) const {
    if (result == 0) return;
    const char* message = nullptr;
    cuGetErrorString(result, &message);
    throw Error(what + ": CUDA error " + std::to_string(result) + " (" +
                (message ? message : "unknown") + ")");
}

}  // namespace vkdispatch
