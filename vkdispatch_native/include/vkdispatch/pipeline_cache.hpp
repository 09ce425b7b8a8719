#pragma once
// One VkPipelineCache per device of a context, persisted in files the caller names (the Python
// side uses $XDG_CACHE_HOME/vkdispatch/pipelines-<device uuid>.bin). A missing, unreadable or
// foreign file is ignored and the cache starts empty.
//
// Thread safety: safe to share. Vulkan synchronises pipeline caches internally, and save() calls
// are serialised by a mutex.
#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "vkdispatch/handle.hpp"
#include "vkdispatch/vk.hpp"

namespace vkdispatch {

class Context;

/// VkPipelineCacheHeaderVersionOne, as stored (little endian) at the start of cache data.
struct PipelineCacheHeader {
    uint32_t header_size = 0;
    uint32_t header_version = 0;
    uint32_t vendor_id = 0;
    uint32_t device_id = 0;
    std::array<uint8_t, 16> uuid{};  // VkPhysicalDeviceProperties::pipelineCacheUUID
};

/// What a device expects of cache data it is given.
struct PipelineCacheIdentity {
    uint32_t vendor_id = 0;
    uint32_t device_id = 0;
    std::array<uint8_t, 16> uuid{};
};

/// The header of cache data, or nothing when `size` is too short to hold one.
std::optional<PipelineCacheHeader> parsePipelineCacheHeader(const uint8_t* data, size_t size);
/// Why cache data of `size` bytes with this header does not fit the device, or empty if it does.
std::string pipelineCacheMismatch(const PipelineCacheHeader& header, size_t size,
                                  const PipelineCacheIdentity& device);
/// A sibling path, unique to this process and call, to write before renaming onto `path`.
std::string temporaryPathFor(const std::string& path);

class PipelineCache {
public:
    /// `paths[i]` is the file of device i of `context` (in context order; "" = not persisted).
    /// Loads each file that exists and matches its device. Throws InvalidArgumentError when the
    /// number of paths differs from the number of devices.
    PipelineCache(Context& context, const std::vector<std::string>& paths);
    PipelineCache(const PipelineCache&) = delete;
    PipelineCache& operator=(const PipelineCache&) = delete;

    /// Writes every device's cache to its file atomically (temporary file + rename), creating
    /// the parent directory. Throws Error naming the path when writing fails.
    void save();

    const Context& context() const noexcept { return m_context; }
    /// Throws InvalidArgumentError ("cache: the pipeline cache of <owner> belongs to another
    /// context") unless the cache serves `context`.
    void checkServes(const Context& context, const std::string& owner) const;
    /// The cache of device `device_index` (position in context.devices()).
    VkPipelineCache handle(int device_index) const;
    /// Whether the file of device `device_index` was loaded into its cache.
    bool loaded(int device_index) const;

private:
    struct PerDevice {
        std::string path;
        bool loaded = false;
        UniquePipelineCache cache;
    };

    Context& m_context;
    std::vector<PerDevice> m_devices;
    std::mutex m_save_mutex;
};

}  // namespace vkdispatch
