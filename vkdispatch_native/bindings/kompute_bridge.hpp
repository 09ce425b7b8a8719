#pragma once
// The Kompute C++ API (namespace kp) in the shape Cython can declare for the Python module `kp`:
// its templates instantiated for the element types numpy hands over, enums as ints, and device
// properties as a plain struct. Only wrapper.pyx's translation unit includes this header.
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kompute/Kompute.hpp"
#include "vkdispatch/compute_plan.hpp"

namespace kp::bindings {

using MemoryList = std::vector<std::shared_ptr<Memory>>;

/// Element type of constants given from Python (numpy float32, int32, uint32, float64).
enum ConstantType : int { kFloat32 = 0, kInt32 = 1, kUint32 = 2, kFloat64 = 3 };

/// `count` values of type `type` at `data` (borrowed for the call).
struct Constants {
    const void* data = nullptr;
    uint32_t count = 0;
    int type = kFloat32;
};

/// What kp.Manager.list_devices / get_device_properties report of a physical device.
struct DeviceProperties {
    std::string device_name;
    uint32_t max_work_group_count[3];
    uint32_t max_work_group_invocations;
    uint32_t max_work_group_size[3];
    bool timestamps_supported;
};

template <typename T>
std::vector<T> valuesOf(const Constants& constants) {
    std::vector<T> out(constants.count);
    if (!out.empty()) std::memcpy(out.data(), constants.data, out.size() * sizeof(T));
    return out;
}

/// Calls `f(T{})` with T the C++ type of `type`.
template <typename F>
auto withConstantType(int type, F&& f) {
    switch (type) {
        case kInt32: return f(int32_t{});
        case kUint32: return f(uint32_t{});
        case kFloat64: return f(double{});
        case kFloat32: return f(float{});
    }
    throw std::invalid_argument("constant type code " + std::to_string(type) + " is not known");
}

inline std::shared_ptr<Manager> makeManager(uint32_t device, const std::vector<uint32_t>& families,
                                            const std::vector<std::string>& extensions) {
    return std::make_shared<Manager>(device, families, extensions);
}

inline std::shared_ptr<Memory> tensor(Manager& manager, const void* data, uint32_t count,
                                      uint32_t element_size, int data_type, int memory_type) {
    return manager.tensor(data, count, element_size, static_cast<Memory::DataTypes>(data_type),
                          static_cast<Memory::MemoryTypes>(memory_type));
}

inline std::shared_ptr<Memory> image(Manager& manager, const void* data, size_t count,
                                     uint32_t width, uint32_t height, uint32_t channels,
                                     int data_type, int memory_type) {
    return manager.image(data, count, width, height, channels,
                         static_cast<Memory::DataTypes>(data_type),
                         static_cast<Memory::MemoryTypes>(memory_type));
}

inline std::shared_ptr<Algorithm> algorithm(Manager& manager, const MemoryList& mem_objects,
                                            const uint8_t* spirv, size_t spirv_bytes,
                                            uint32_t x, uint32_t y, uint32_t z,
                                            const Constants& specialization,
                                            const Constants& push) {
    // Empty SPIR-V builds nothing (isInit() false), as in Kompute.
    const std::vector<uint32_t> words =
        spirv_bytes == 0 ? std::vector<uint32_t>{}
                         : vkdispatch::spirvFromBytes(spirv, spirv_bytes, "kp.Algorithm");
    auto made = withConstantType(specialization.type, [&](auto s) {
        return withConstantType(push.type, [&](auto p) {
            using S = decltype(s);
            using P = decltype(p);
            return manager.algorithm<S, P>(mem_objects, words, Workgroup{x, y, z},
                                           valuesOf<S>(specialization), valuesOf<P>(push));
        });
    });
    // The Python module refuses too few push constants when the algorithm is made (C++ waits
    // for the dispatch, as Kompute's C++ programs may replace them first).
    made->checkPushConstants();
    return made;
}

inline std::shared_ptr<OpBase> opSyncDevice(const MemoryList& mem_objects) {
    return std::make_shared<OpSyncDevice>(mem_objects);
}

inline std::shared_ptr<OpBase> opSyncLocal(const MemoryList& mem_objects) {
    return std::make_shared<OpSyncLocal>(mem_objects);
}

inline std::shared_ptr<OpBase> opCopy(const MemoryList& mem_objects) {
    return std::make_shared<OpCopy>(mem_objects);
}

inline std::shared_ptr<OpBase> opMult(const MemoryList& mem_objects,
                                      const std::shared_ptr<Algorithm>& algorithm) {
    return std::make_shared<OpMult>(mem_objects, algorithm);
}

inline std::shared_ptr<OpBase> opFFT(const MemoryList& tensors, const std::vector<uint32_t>& shape,
                                     bool inverse, const std::vector<int32_t>& axes) {
    return std::make_shared<OpFFT>(tensors, shape, inverse, axes);
}

/// No values (count 0): the dispatch pushes the algorithm's current push constants.
inline std::shared_ptr<OpBase> opAlgoDispatch(const std::shared_ptr<Algorithm>& algorithm,
                                              const Constants& push) {
    return withConstantType(push.type, [&](auto p) -> std::shared_ptr<OpBase> {
        using P = decltype(p);
        return std::make_shared<OpAlgoDispatch>(algorithm, valuesOf<P>(push));
    });
}

inline int dataType(const Memory& memory) { return static_cast<int>(memory.dataType()); }
inline int memoryType(const Memory& memory) { return static_cast<int>(memory.memoryType()); }

inline DeviceProperties propertiesOf(const vk::PhysicalDeviceProperties& properties) {
    DeviceProperties out{};
    out.device_name = properties.deviceName.data();
    const auto& limits = properties.limits;
    for (int i = 0; i < 3; ++i) {
        out.max_work_group_count[i] = limits.maxComputeWorkGroupCount[i];
        out.max_work_group_size[i] = limits.maxComputeWorkGroupSize[i];
    }
    out.max_work_group_invocations = limits.maxComputeWorkGroupInvocations;
    out.timestamps_supported = limits.timestampComputeAndGraphics == VK_TRUE;
    return out;
}

inline DeviceProperties deviceProperties(const Manager& manager) {
    return propertiesOf(manager.getDeviceProperties());
}

inline std::vector<DeviceProperties> listDevices(const Manager& manager) {
    std::vector<DeviceProperties> out;
    for (const auto& device : manager.listDevices())
        out.push_back(propertiesOf(device.getProperties()));
    return out;
}

}  // namespace kp::bindings
