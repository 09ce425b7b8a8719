#pragma once
// kp::Manager: queues of one device and the factory of every other Kompute object. It keeps
// weak references to what it made; destroy() frees them all. Unlike Kompute's, objects keep
// the device alive, so one that outlives its Manager stays valid instead of crashing.
//
// The Managers of one physical device share its Vulkan device and queues, as CUDA's primary
// context is shared (src/kp/shared_runtimes.hpp): objects one made can be recorded into
// another's sequences, and the device lives while any Manager or object holds it. A Manager
// over the program's own VkDevice stays apart: its objects and the others' are refused in
// each other's sequences and algorithms (vkdispatch::InvalidArgumentError).
//
// Thread safety: like Kompute's, none; one thread uses a manager at a time. Managers of one
// device may be used by different threads: what they share is thread-safe.
#include <memory>
#include <string>
#include <vector>

#include "kompute/Algorithm.hpp"
#include "kompute/Image.hpp"
#include "kompute/Sequence.hpp"
#include "kompute/Tensor.hpp"

namespace kp {

class Manager {
public:
    /// Device 0 with one queue of its first compute family.
    Manager();
    /// `family_queue_indices`: one queue per entry, of that family (empty: the first compute
    /// family); Manager::sequence(i) uses the i-th. The k-th entry of a family is the device's
    /// k-th queue of it, which other Managers of the device share; the device has up to 4
    /// queues of each compute family. Extensions the device lacks are ignored. Throws
    /// std::runtime_error with Kompute's messages for a bad index or family, and one naming
    /// the family when it is asked for more queues than the device has of it.
    explicit Manager(uint32_t physical_device_index,
                     const std::vector<uint32_t>& family_queue_indices = {},
                     const std::vector<std::string>& desired_extensions = {});
    /// Kompute's bring-your-own-Vulkan manager: objects on `device` (of `physical_device` of
    /// `instance`), which it neither owns nor tracks (destroy() leaves the objects it made; the
    /// handles must outlive them), nor shares with other Managers. Sequences use queue 0 of the
    /// first compute family, which the device must have been created with, and the device must
    /// have Vulkan 1.2's timelineSemaphore feature enabled (vkdispatch's queues signal timeline
    /// semaphores).
    Manager(std::shared_ptr<vk::Instance> instance,
            std::shared_ptr<vk::PhysicalDevice> physical_device,
            std::shared_ptr<vk::Device> device);
    ~Manager();
    Manager(const Manager&) = delete;
    Manager& operator=(const Manager&) = delete;

    /// A sequence on its `queue_index`-th queue (std::runtime_error naming the index and how
    /// many queues it has when there is no such queue).
    std::shared_ptr<Sequence> sequence(uint32_t queue_index = 0, uint32_t total_timestamps = 0);

    template <typename T>
    std::shared_ptr<TensorT<T>> tensorT(const std::vector<T>& data,
                                        Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return track(std::make_shared<TensorT<T>>(runtime("Tensor"), data, type));
    }
    /// A tensor of `size` zeros.
    template <typename T>
    std::shared_ptr<TensorT<T>> tensorT(size_t size,
                                        Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return tensorT<T>(std::vector<T>(size), type);
    }
    std::shared_ptr<TensorT<float>> tensor(
        const std::vector<float>& data, Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return tensorT<float>(data, type);
    }
    /// `count` elements of `element_size` bytes from `data` (null: zeros).
    std::shared_ptr<Tensor> tensor(const void* data, uint32_t count, uint32_t element_size,
                                   const Memory::DataTypes& data_type,
                                   Memory::MemoryTypes type = Memory::MemoryTypes::eDevice);
    std::shared_ptr<Tensor> tensor(uint32_t count, uint32_t element_size,
                                   const Memory::DataTypes& data_type,
                                   Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return tensor(nullptr, count, element_size, data_type, type);
    }

    /// Images of `data` (at least width * height * num_channels values; extra ones are ignored)
    /// or, without data, of zeros. Without a tiling, Kompute's: linear for eHost and
    /// eDeviceAndHost, optimal for the others (see Image for the errors).
    template <typename T>
    std::shared_ptr<ImageT<T>> imageT(const std::vector<T>& data, uint32_t width, uint32_t height,
                                      uint32_t num_channels, vk::ImageTiling tiling,
                                      Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return track(std::make_shared<ImageT<T>>(runtime("Image"), data, width, height,
                                                 num_channels, tiling, type));
    }
    template <typename T>
    std::shared_ptr<ImageT<T>> imageT(const std::vector<T>& data, uint32_t width, uint32_t height,
                                      uint32_t num_channels,
                                      Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return imageT<T>(data, width, height, num_channels, Image::defaultTiling(type), type);
    }
    template <typename T>
    std::shared_ptr<ImageT<T>> imageT(uint32_t width, uint32_t height, uint32_t num_channels,
                                      vk::ImageTiling tiling,
                                      Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return imageT<T>(std::vector<T>{}, width, height, num_channels, tiling, type);
    }
    template <typename T>
    std::shared_ptr<ImageT<T>> imageT(uint32_t width, uint32_t height, uint32_t num_channels,
                                      Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return imageT<T>(width, height, num_channels, Image::defaultTiling(type), type);
    }
    std::shared_ptr<ImageT<float>> image(const std::vector<float>& data, uint32_t width,
                                         uint32_t height, uint32_t num_channels,
                                         vk::ImageTiling tiling,
                                         Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return imageT<float>(data, width, height, num_channels, tiling, type);
    }
    std::shared_ptr<ImageT<float>> image(const std::vector<float>& data, uint32_t width,
                                         uint32_t height, uint32_t num_channels,
                                         Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return imageT<float>(data, width, height, num_channels, type);
    }
    std::shared_ptr<ImageT<float>> image(uint32_t width, uint32_t height, uint32_t num_channels,
                                         vk::ImageTiling tiling,
                                         Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return imageT<float>(width, height, num_channels, tiling, type);
    }
    std::shared_ptr<ImageT<float>> image(uint32_t width, uint32_t height, uint32_t num_channels,
                                         Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return imageT<float>(width, height, num_channels, type);
    }
    /// `data_count` elements of `data_type` from `data` (null: zeros).
    std::shared_ptr<Image> image(const void* data, size_t data_count, uint32_t width,
                                 uint32_t height, uint32_t num_channels,
                                 const Memory::DataTypes& data_type, vk::ImageTiling tiling,
                                 Memory::MemoryTypes type = Memory::MemoryTypes::eDevice);
    std::shared_ptr<Image> image(const void* data, size_t data_count, uint32_t width,
                                 uint32_t height, uint32_t num_channels,
                                 const Memory::DataTypes& data_type,
                                 Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return image(data, data_count, width, height, num_channels, data_type,
                     Image::defaultTiling(type), type);
    }
    std::shared_ptr<Image> image(uint32_t width, uint32_t height, uint32_t num_channels,
                                 const Memory::DataTypes& data_type, vk::ImageTiling tiling,
                                 Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return image(nullptr, 0, width, height, num_channels, data_type, tiling, type);
    }
    std::shared_ptr<Image> image(uint32_t width, uint32_t height, uint32_t num_channels,
                                 const Memory::DataTypes& data_type,
                                 Memory::MemoryTypes type = Memory::MemoryTypes::eDevice) {
        return image(nullptr, 0, width, height, num_channels, data_type, type);
    }

    template <typename S = float, typename P = float>
    std::shared_ptr<Algorithm> algorithm(
        const std::vector<std::shared_ptr<Memory>>& mem_objects = {},
        const std::vector<uint32_t>& spirv = {}, const Workgroup& workgroup = {},
        const std::vector<S>& specialization_constants = {},
        const std::vector<P>& push_constants = {}) {
        auto made =
            std::make_shared<Algorithm>(runtime("Algorithm"), mem_objects, spirv, workgroup,
                                        specialization_constants, push_constants);
        if (m_manage_resources) m_algorithms.push_back(made);
        return made;
    }
    /// algorithm() over Kompute 0.9's list of tensors (see TensorList.hpp).
    template <typename S = float, typename P = float, typename List, IfTypedList<List> = 0>
    std::shared_ptr<Algorithm> algorithm(const List& tensors,
                                         const std::vector<uint32_t>& spirv = {},
                                         const Workgroup& workgroup = {},
                                         const std::vector<S>& specialization_constants = {},
                                         const std::vector<P>& push_constants = {}) {
        return algorithm<S, P>(memoryList(tensors), spirv, workgroup, specialization_constants,
                               push_constants);
    }

    /// Destroys every object it made that is still alive, then releases the device (other
    /// Managers of it, and objects held elsewhere, keep it until they go). A second call does
    /// nothing.
    void destroy();
    /// Forgets the objects that no longer exist.
    void clear();

    vk::PhysicalDeviceProperties getDeviceProperties() const;
    std::vector<vk::PhysicalDevice> listDevices() const;
    /// The instance, as Kompute returns it; the pointer keeps it alive while held.
    std::shared_ptr<vk::Instance> getVkInstance() const;

private:
    /// The device, or Kompute's "Kompute <object> device is null" after destroy().
    std::shared_ptr<detail::Runtime> runtime(const char* object) const;
    template <typename T>
    std::shared_ptr<T> track(std::shared_ptr<T> memory) {
        if (m_manage_resources) m_memories.push_back(memory);
        return memory;
    }

    std::shared_ptr<detail::Runtime> m_runtime;  // null after destroy()
    std::vector<int> m_queues;                   // the context's queue behind each of its own
    bool m_manage_resources = true;              // false over handles made elsewhere
    std::vector<std::weak_ptr<Memory>> m_memories;
    std::vector<std::weak_ptr<Algorithm>> m_algorithms;
    std::vector<std::weak_ptr<Sequence>> m_sequences;
};

}  // namespace kp
