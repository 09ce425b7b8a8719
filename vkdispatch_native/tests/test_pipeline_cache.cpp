#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "compute_helpers.hpp"
#include "vkdispatch/compute_plan.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/pipeline_cache.hpp"

using namespace vkdispatch;
using test::context;

namespace {

const char* kShader = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer D { float d[]; };
void main() { d[gl_GlobalInvocationID.x] *= 3.0; }
)";

std::vector<uint8_t> header(uint32_t size, uint32_t version, uint32_t vendor, uint32_t device,
                            uint8_t uuid_byte) {
    std::vector<uint8_t> out;
    for (uint32_t v : {size, version, vendor, device})
        for (int b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
    for (int i = 0; i < 16; ++i) out.push_back(uuid_byte);
    return out;
}

PipelineCacheIdentity identity(uint32_t vendor, uint32_t device, uint8_t uuid_byte) {
    PipelineCacheIdentity id;
    id.vendor_id = vendor;
    id.device_id = device;
    id.uuid.fill(uuid_byte);
    return id;
}

std::filesystem::path scratchDir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("vkd_pipeline_cache_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir;
}

void writeFile(const std::filesystem::path& path, const std::vector<uint8_t>& data) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(data.data()),
               static_cast<std::streamsize>(data.size()));
}

}  // namespace

TEST(PipelineCacheHeader, ParsesLittleEndianFields) {
    auto data = header(32, 1, 0x10DE, 0x2330, 0x5A);
    data.push_back(0xFF);  // payload
    const auto parsed = parsePipelineCacheHeader(data.data(), data.size());
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->header_size, 32u);
    EXPECT_EQ(parsed->header_version, 1u);
    EXPECT_EQ(parsed->vendor_id, 0x10DEu);
    EXPECT_EQ(parsed->device_id, 0x2330u);
    EXPECT_EQ(parsed->uuid[0], 0x5A);
    EXPECT_EQ(parsed->uuid[15], 0x5A);
}

TEST(PipelineCacheHeader, ShortDataHasNoHeader) {
    const auto data = header(32, 1, 1, 2, 3);
    EXPECT_FALSE(parsePipelineCacheHeader(data.data(), 31).has_value());
    EXPECT_FALSE(parsePipelineCacheHeader(nullptr, 0).has_value());
}

TEST(PipelineCacheHeader, MismatchReasons) {
    const auto id = identity(0x10DE, 0x2330, 7);
    auto h = *parsePipelineCacheHeader(header(32, 1, 0x10DE, 0x2330, 7).data(), 32);
    EXPECT_EQ(pipelineCacheMismatch(h, 32, id), "");
    EXPECT_EQ(pipelineCacheMismatch(h, 100, id), "");
    EXPECT_NE(pipelineCacheMismatch(h, 32, identity(0x10DE, 0x2330, 8)).find("UUID"),
              std::string::npos);
    EXPECT_NE(pipelineCacheMismatch(h, 32, identity(0x1002, 0x2330, 7)), "");
    EXPECT_NE(pipelineCacheMismatch(h, 32, identity(0x10DE, 0x1, 7)), "");
    auto bad_version = h;
    bad_version.header_version = 2;
    EXPECT_NE(pipelineCacheMismatch(bad_version, 32, id).find("version"), std::string::npos);
    auto bad_size = h;
    bad_size.header_size = 16;
    EXPECT_NE(pipelineCacheMismatch(bad_size, 32, id), "");
    bad_size.header_size = 64;
    EXPECT_NE(pipelineCacheMismatch(bad_size, 48, id), "");
}

TEST(PipelineCacheHeader, TemporaryPathsAreSiblingsAndUnique) {
    const std::string a = temporaryPathFor("/x/y/cache.bin");
    const std::string b = temporaryPathFor("/x/y/cache.bin");
    EXPECT_NE(a, b);
    EXPECT_EQ(a.rfind("/x/y/cache.bin.tmp.", 0), 0u);
}

TEST(PipelineCache, SaveLoadRoundTrip) {
    VKD_REQUIRE_DEVICE();
    const auto dir = scratchDir("roundtrip");
    const std::string path = (dir / "nested" / "pipelines-test.bin").string();
    const auto spirv = test::compileOrFail(kShader, "triple");
    {
        PipelineCache cache(context(), {path});
        EXPECT_FALSE(cache.loaded(0));
        ComputePlan plan(context(), spirv, {BindingType::StorageBuffer}, 0, "triple", &cache);
        cache.save();
    }
    ASSERT_TRUE(std::filesystem::exists(path));
    const auto size = std::filesystem::file_size(path);
    EXPECT_GE(size, 32u);
    for (const auto& entry : std::filesystem::directory_iterator(dir / "nested"))
        EXPECT_EQ(entry.path().string(), path) << "temporary file left behind";
    {
        PipelineCache cache(context(), {path});
        EXPECT_TRUE(cache.loaded(0));
        ComputePlan plan(context(), spirv, {BindingType::StorageBuffer}, 0, "triple", &cache);
        EXPECT_TRUE(plan.forQueue(0).pipeline);
        cache.save();  // overwrite in place
    }
    EXPECT_TRUE(std::filesystem::exists(path));
    std::filesystem::remove_all(dir);
}

TEST(PipelineCache, GarbageAndForeignFilesAreIgnored) {
    VKD_REQUIRE_DEVICE();
    const auto dir = scratchDir("garbage");
    const auto garbage = dir / "garbage.bin";
    writeFile(garbage, test::randomBytes(200, 9));
    const auto foreign = dir / "foreign.bin";
    auto data = header(32, 1, 0xDEAD, 0xBEEF, 1);
    data.resize(128, 0);
    writeFile(foreign, data);
    const auto spirv = test::compileOrFail(kShader, "triple");
    for (const auto& path : {garbage, foreign, dir / "missing.bin"}) {
        PipelineCache cache(context(), {path.string()});
        EXPECT_FALSE(cache.loaded(0)) << path;
        ComputePlan plan(context(), spirv, {BindingType::StorageBuffer}, 0, "triple", &cache);
        EXPECT_TRUE(plan.forQueue(0).pipeline);
    }
    std::filesystem::remove_all(dir);
}

TEST(PipelineCache, PathCountMustMatchDevicesAndEmptyPathIsNotPersisted) {
    VKD_REQUIRE_DEVICE();
    EXPECT_THROW(PipelineCache(context(), {}), InvalidArgumentError);
    EXPECT_THROW(PipelineCache(context(), {"a", "b", "c", "d", "e", "f", "g", "h", "i"}),
                 InvalidArgumentError);
    PipelineCache cache(context(), {""});
    EXPECT_NO_THROW(cache.save());
    EXPECT_THROW(cache.handle(1), IndexOutOfRangeError);
}

TEST(PipelineCache, UnwritablePathThrowsNamingIt) {
    VKD_REQUIRE_DEVICE();
    PipelineCache cache(context(), {"/proc/vkdispatch-no-such-dir/pipelines.bin"});
    try {
        cache.save();
        FAIL() << "save() into /proc should fail";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("/proc/vkdispatch-no-such-dir"),
                  std::string::npos)
            << error.what();
    }
}
