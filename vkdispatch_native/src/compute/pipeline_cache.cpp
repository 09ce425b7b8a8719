#include "vkdispatch/pipeline_cache.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/log.hpp"

namespace vkdispatch {
namespace {

constexpr size_t kHeaderBytes = 32;  // sizeof(VkPipelineCacheHeaderVersionOne)

uint32_t readLittleEndian32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

std::vector<uint8_t> readFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return {};
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(file),
                                std::istreambuf_iterator<char>());
}

PipelineCacheIdentity identityOf(VkPhysicalDevice physical) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    PipelineCacheIdentity id;
    id.vendor_id = props.vendorID;
    id.device_id = props.deviceID;
    std::memcpy(id.uuid.data(), props.pipelineCacheUUID, VK_UUID_SIZE);
    return id;
}

VkPipelineCache createCache(VkDevice device, const std::vector<uint8_t>& data) {
    VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    info.initialDataSize = data.size();
    info.pInitialData = data.empty() ? nullptr : data.data();
    VkPipelineCache cache = VK_NULL_HANDLE;
    VK_CHECK(vkCreatePipelineCache(device, &info, nullptr, &cache), "creating a pipeline cache");
    return cache;
}

/// Writes `data` to a sibling temporary file, then renames it onto `path`: readers see either
/// the old file or the whole new one. Creates the parent directory.
void writeAtomically(const std::string& path, const std::vector<uint8_t>& data) {
    std::error_code ignored;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
    const std::string temporary = temporaryPathFor(path);
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data.data()),
               static_cast<std::streamsize>(data.size()));
    file.close();
    if (!file) {
        const std::string reason = std::strerror(errno);
        std::remove(temporary.c_str());
        throw Error("saving the pipeline cache: cannot write '" + temporary + "': " + reason);
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        std::remove(temporary.c_str());
        throw Error("saving the pipeline cache: cannot rename '" + temporary + "' to '" + path +
                    "': " + reason);
    }
}

}  // namespace

std::optional<PipelineCacheHeader> parsePipelineCacheHeader(const uint8_t* data, size_t size) {
    if (data == nullptr || size < kHeaderBytes) return std::nullopt;
    PipelineCacheHeader header;
    header.header_size = readLittleEndian32(data);
    header.header_version = readLittleEndian32(data + 4);
    header.vendor_id = readLittleEndian32(data + 8);
    header.device_id = readLittleEndian32(data + 12);
    std::memcpy(header.uuid.data(), data + 16, header.uuid.size());
    return header;
}

std::string pipelineCacheMismatch(const PipelineCacheHeader& header, size_t size,
                                  const PipelineCacheIdentity& device) {
    if (header.header_version != 1)  // VK_PIPELINE_CACHE_HEADER_VERSION_ONE
        return "unknown header version " + std::to_string(header.header_version);
    if (header.header_size < kHeaderBytes || header.header_size > size)
        return "bad header size " + std::to_string(header.header_size) + " for " +
               std::to_string(size) + " bytes";
    if (header.vendor_id != device.vendor_id || header.device_id != device.device_id)
        return "written by another device";
    if (header.uuid != device.uuid) return "written by another driver (pipelineCacheUUID differs)";
    return {};
}

std::string temporaryPathFor(const std::string& path) {
    static std::atomic<unsigned> counter{0};
    return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

PipelineCache::PipelineCache(Context& context, const std::vector<std::string>& paths)
    : m_context(context), m_devices(context.devices().size()) {
    if (paths.size() != context.devices().size())
        throw InvalidArgumentError("paths: expected one pipeline cache path per device (" +
                                   std::to_string(context.devices().size()) + "), got " +
                                   std::to_string(paths.size()));
    for (size_t i = 0; i < paths.size(); ++i) {
        const Device& device = *context.devices()[i];
        PerDevice& slot = m_devices[i];
        slot.path = paths[i];
        std::vector<uint8_t> data;
        if (!slot.path.empty()) data = readFile(slot.path);
        if (!data.empty()) {
            const auto header = parsePipelineCacheHeader(data.data(), data.size());
            const std::string why =
                header ? pipelineCacheMismatch(*header, data.size(), identityOf(device.physical()))
                       : std::string("too short for a header");
            if (!why.empty()) {
                log(LogLevel::Info, "ignoring pipeline cache '" + slot.path + "': " + why);
                data.clear();
            }
        }
        VkPipelineCache cache = VK_NULL_HANDLE;
        try {
            cache = createCache(device.handle(), data);
            slot.loaded = !data.empty();
        } catch (const VulkanError& error) {
            if (data.empty()) throw;
            log(LogLevel::Info, "ignoring pipeline cache '" + slot.path + "': " + error.what());
            cache = createCache(device.handle(), {});
        }
        slot.cache = UniquePipelineCache(device.handle(), cache);
    }
}

void PipelineCache::checkServes(const Context& context, const std::string& owner) const {
    if (&context != &m_context)
        throw InvalidArgumentError("cache: the pipeline cache of " + owner +
                                   " belongs to another context");
}

VkPipelineCache PipelineCache::handle(int device_index) const {
    if (device_index < 0 || device_index >= static_cast<int>(m_devices.size()))
        throw IndexOutOfRangeError("device_index: device " + std::to_string(device_index) +
                                   " is not in the pipeline cache's context");
    return m_devices[device_index].cache.get();
}

bool PipelineCache::loaded(int device_index) const {
    handle(device_index);
    return m_devices[device_index].loaded;
}

void PipelineCache::save() {
    std::lock_guard<std::mutex> lock(m_save_mutex);
    for (size_t i = 0; i < m_devices.size(); ++i) {
        const PerDevice& slot = m_devices[i];
        if (slot.path.empty()) continue;
        const VkDevice device = m_context.devices()[i]->handle();
        size_t size = 0;
        VK_CHECK(vkGetPipelineCacheData(device, slot.cache.get(), &size, nullptr),
                 "reading the size of a pipeline cache");
        std::vector<uint8_t> data(size);
        VK_CHECK(vkGetPipelineCacheData(device, slot.cache.get(), &size, data.data()),
                 "reading a pipeline cache");
        data.resize(size);

        writeAtomically(slot.path, data);
    }
}

}  // namespace vkdispatch
