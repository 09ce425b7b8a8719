// The only translation unit that includes vkFFT.h.
//
// Debian's vkFFT.h (1.2.26) does not compile against Debian's glslang 12 headers: it initialises
// glslang_resource_t positionally, and glslang has since inserted nine `*_ext` mesh-shader fields
// before `limits` ("cannot convert brace-enclosed initializer list to int"). So before including
// vkFFT.h, glslang_resource_t and glslang_input_t are renamed (macros) to the older layouts VkFFT
// was written for, and the three glslang calls that take them are routed through functions that
// convert to the real structs. Everything else VkFFT uses from glslang is unchanged.
//
// VkFFT also creates its pipelines without a pipeline cache; its vkCreateComputePipelines calls
// are routed (one more macro) through the context's cache, so a process that loads VkFFT's
// kernels from the disk cache does not wait for the driver to compile them again either.
//
// A newer VkFFT (1.3, a folder of headers beside vkFFT.h) builds too, where the build is given
// its folder (VKDISPATCH_VKFFT_INCLUDE, docs/vkfft.rst): it fills glslang's structs by field
// name, so the renaming is left out, and it mends the leak worked around below.
#include "vkdispatch/vkfft_application.hpp"

#include <cstddef>
#include <clocale>
#include <cstring>
#include <mutex>

#include <glslang/Include/glslang_c_interface.h>

#include "vkdispatch/device.hpp"
#include "vkdispatch/queue.hpp"

#if __has_include(<vkFFT/vkFFT_Structs/vkFFT_Structs.h>)
#define VKD_VKFFT_1_3 1
#else
#define VKD_VKFFT_1_3 0
#endif

namespace {

#if !VKD_VKFFT_1_3
// Every int of glslang_resource_t that VkFFT's initializer fills, in declaration order.
constexpr size_t kOlderResourceInts =
    offsetof(glslang_resource_t, max_mesh_output_vertices_ext) / sizeof(int);

struct OlderGlslangResource {
    int values[kOlderResourceInts];
    int max_dual_source_draw_buffers_ext;
    glslang_limits_t limits;
};

struct OlderGlslangInput {
    glslang_source_t language;
    glslang_stage_t stage;
    glslang_client_t client;
    glslang_target_client_version_t client_version;
    glslang_target_language_t target_language;
    glslang_target_language_version_t target_language_version;
    const char* code;
    int default_version;
    glslang_profile_t default_profile;
    int force_default_version_and_profile;
    int forward_compatible;
    glslang_messages_t messages;
    const OlderGlslangResource* resource;
};

// glslang keeps a pointer to input->code between create, preprocess and parse, so the converted
// input lives in one place per thread (VkFFT compiles one shader at a time per thread).
struct ConvertedInput {
    glslang_resource_t resource;
    glslang_input_t input;
};
thread_local ConvertedInput t_converted;

const glslang_input_t* converted(const OlderGlslangInput* older) {
    glslang_resource_t& resource = t_converted.resource;
    resource = glslang_resource_t{};
    std::memcpy(&resource, older->resource->values, sizeof older->resource->values);
    resource.max_mesh_output_vertices_ext = resource.max_mesh_output_vertices_nv;
    resource.max_mesh_output_primitives_ext = resource.max_mesh_output_primitives_nv;
    resource.max_mesh_work_group_size_x_ext = resource.max_mesh_work_group_size_x_nv;
    resource.max_mesh_work_group_size_y_ext = resource.max_mesh_work_group_size_y_nv;
    resource.max_mesh_work_group_size_z_ext = resource.max_mesh_work_group_size_z_nv;
    resource.max_task_work_group_size_x_ext = resource.max_task_work_group_size_x_nv;
    resource.max_task_work_group_size_y_ext = resource.max_task_work_group_size_y_nv;
    resource.max_task_work_group_size_z_ext = resource.max_task_work_group_size_z_nv;
    resource.max_mesh_view_count_ext = resource.max_mesh_view_count_nv;
    resource.max_dual_source_draw_buffers_ext = older->resource->max_dual_source_draw_buffers_ext;
    resource.limits = older->resource->limits;
    t_converted.input = glslang_input_t{older->language,
                                        older->stage,
                                        older->client,
                                        older->client_version,
                                        older->target_language,
                                        older->target_language_version,
                                        older->code,
                                        older->default_version,
                                        older->default_profile,
                                        older->force_default_version_and_profile,
                                        older->forward_compatible,
                                        older->messages,
                                        &resource};
    return &t_converted.input;
}

glslang_shader_t* createShaderFromOlderInput(const OlderGlslangInput* input) {
    return glslang_shader_create(converted(input));
}
int preprocessOlderInput(glslang_shader_t* shader, const OlderGlslangInput* input) {
    return glslang_shader_preprocess(shader, converted(input));
}
int parseOlderInput(glslang_shader_t* shader, const OlderGlslangInput* input) {
    return glslang_shader_parse(shader, converted(input));
}
#endif

// The cache of the application being built (builds hold g_build_mutex, one at a time).
VkPipelineCache g_building_cache = VK_NULL_HANDLE;

VkResult createPipelinesThroughCache(VkDevice device, VkPipelineCache, uint32_t count,
                                     const VkComputePipelineCreateInfo* infos,
                                     const VkAllocationCallbacks* allocator,
                                     VkPipeline* pipelines) {
    return vkCreateComputePipelines(device, g_building_cache, count, infos, allocator, pipelines);
}

}  // namespace

#define vkCreateComputePipelines(...) createPipelinesThroughCache(__VA_ARGS__)
#if !VKD_VKFFT_1_3
#define glslang_resource_t OlderGlslangResource
#define glslang_input_t OlderGlslangInput
#define glslang_shader_create createShaderFromOlderInput
#define glslang_shader_preprocess preprocessOlderInput
#define glslang_shader_parse parseOlderInput
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wformat-truncation"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <vkFFT.h>
#pragma GCC diagnostic pop
#undef vkCreateComputePipelines
#undef glslang_resource_t
#undef glslang_input_t
#undef glslang_shader_create
#undef glslang_shader_preprocess
#undef glslang_shader_parse

namespace vkdispatch {
namespace {

// VkFFT initialises and finalises glslang around each plan and switches the process-wide locale
// while it generates code: one plan is built at a time.
std::mutex g_build_mutex;

const char* meaningOf(int result) {
    switch (result) {
        case VKFFT_ERROR_MALLOC_FAILED: return "VkFFT ran out of host memory";
        case VKFFT_ERROR_INSUFFICIENT_CODE_BUFFER:
            return "the generated kernel exceeded VkFFT's code buffer";
        case VKFFT_ERROR_UNSUPPORTED_RADIX:
            return "a length has a prime factor VkFFT's kernels do not support";
        case VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH:
            return "VkFFT cannot plan a transform of this length";
        case VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C:
            return "VkFFT cannot plan a real transform of this length";
        case VKFFT_ERROR_UNSUPPORTED_FFT_OMIT:
            return "VkFFT cannot leave this axis untransformed here (not the contiguous axis "
                   "of a real transform, not with a convolution)";
        case VKFFT_ERROR_FAILED_TO_ALLOCATE:
        case VKFFT_ERROR_FAILED_TO_ALLOCATE_MEMORY:
        case VKFFT_ERROR_FAILED_TO_FIND_MEMORY:
            return "VkFFT could not allocate the device memory of its tables or scratch buffer";
        case VKFFT_ERROR_FAILED_SHADER_PREPROCESS:
        case VKFFT_ERROR_FAILED_SHADER_PARSE:
        case VKFFT_ERROR_FAILED_SHADER_LINK:
        case VKFFT_ERROR_FAILED_SPIRV_GENERATE:
            return "glslang rejected a kernel VkFFT generated";
        default: break;
    }
    if (result >= 1001 && result < 2000) return "VkFFT was given an invalid handle or option";
    if (result >= 2001 && result < 3000) return "a buffer or size VkFFT needs was not given";
    if (result >= 3001 && result < 4000) return "VkFFT does not support this transform";
    if (result >= 4001) return "a Vulkan or glslang call inside VkFFT failed";
    return "VkFFT failed";
}

std::string describe(int result, const std::string& operation) {
    return operation + " failed: " + vkfftResultName(result) + " (VkFFTResult " +
           std::to_string(result) + "): " + meaningOf(result);
}

[[noreturn]] void throwFor(int result, const std::string& operation) {
    if (result >= 3001 && result < 4000) throw InvalidArgumentError(describe(result, operation));
    throw VkfftError(result, operation);
}

}  // namespace

std::string vkfftResultName(int result) {
#define NAME(code) \
    case code: return #code;
    switch (result) {
        NAME(VKFFT_SUCCESS)
        NAME(VKFFT_ERROR_MALLOC_FAILED)
        NAME(VKFFT_ERROR_INSUFFICIENT_CODE_BUFFER)
        NAME(VKFFT_ERROR_INSUFFICIENT_TEMP_BUFFER)
        NAME(VKFFT_ERROR_PLAN_NOT_INITIALIZED)
        NAME(VKFFT_ERROR_NULL_TEMP_PASSED)
        NAME(VKFFT_ERROR_INVALID_PHYSICAL_DEVICE)
        NAME(VKFFT_ERROR_INVALID_DEVICE)
        NAME(VKFFT_ERROR_INVALID_QUEUE)
        NAME(VKFFT_ERROR_INVALID_COMMAND_POOL)
        NAME(VKFFT_ERROR_INVALID_FENCE)
        NAME(VKFFT_ERROR_ONLY_FORWARD_FFT_INITIALIZED)
        NAME(VKFFT_ERROR_ONLY_INVERSE_FFT_INITIALIZED)
        NAME(VKFFT_ERROR_INVALID_CONTEXT)
        NAME(VKFFT_ERROR_INVALID_PLATFORM)
        NAME(VKFFT_ERROR_ENABLED_saveApplicationToString)
        NAME(VKFFT_ERROR_EMPTY_FILE)
        NAME(VKFFT_ERROR_EMPTY_FFTdim)
        NAME(VKFFT_ERROR_EMPTY_size)
        NAME(VKFFT_ERROR_EMPTY_bufferSize)
        NAME(VKFFT_ERROR_EMPTY_buffer)
        NAME(VKFFT_ERROR_EMPTY_tempBufferSize)
        NAME(VKFFT_ERROR_EMPTY_tempBuffer)
        NAME(VKFFT_ERROR_EMPTY_inputBufferSize)
        NAME(VKFFT_ERROR_EMPTY_inputBuffer)
        NAME(VKFFT_ERROR_EMPTY_outputBufferSize)
        NAME(VKFFT_ERROR_EMPTY_outputBuffer)
        NAME(VKFFT_ERROR_EMPTY_kernelSize)
        NAME(VKFFT_ERROR_EMPTY_kernel)
        NAME(VKFFT_ERROR_EMPTY_applicationString)
#if VKD_VKFFT_1_3
        NAME(VKFFT_ERROR_EMPTY_useCustomBluesteinPaddingPattern_arrays)
#else
        NAME(VKFFT_ERROR_EMPRY_useCustomBluesteinPaddingPattern_arrays)
#endif
        NAME(VKFFT_ERROR_UNSUPPORTED_RADIX)
        NAME(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH)
        NAME(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C)
#if VKD_VKFFT_1_3
        NAME(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2R)
#else
        NAME(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_DCT)
#endif
        NAME(VKFFT_ERROR_UNSUPPORTED_FFT_OMIT)
        NAME(VKFFT_ERROR_FAILED_TO_ALLOCATE)
        NAME(VKFFT_ERROR_FAILED_TO_MAP_MEMORY)
        NAME(VKFFT_ERROR_FAILED_TO_ALLOCATE_COMMAND_BUFFERS)
        NAME(VKFFT_ERROR_FAILED_TO_BEGIN_COMMAND_BUFFER)
        NAME(VKFFT_ERROR_FAILED_TO_END_COMMAND_BUFFER)
        NAME(VKFFT_ERROR_FAILED_TO_SUBMIT_QUEUE)
        NAME(VKFFT_ERROR_FAILED_TO_WAIT_FOR_FENCES)
        NAME(VKFFT_ERROR_FAILED_TO_RESET_FENCES)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_DESCRIPTOR_POOL)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_DESCRIPTOR_SET_LAYOUT)
        NAME(VKFFT_ERROR_FAILED_TO_ALLOCATE_DESCRIPTOR_SETS)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE_LAYOUT)
        NAME(VKFFT_ERROR_FAILED_SHADER_PREPROCESS)
        NAME(VKFFT_ERROR_FAILED_SHADER_PARSE)
        NAME(VKFFT_ERROR_FAILED_SHADER_LINK)
        NAME(VKFFT_ERROR_FAILED_SPIRV_GENERATE)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_SHADER_MODULE)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_INSTANCE)
        NAME(VKFFT_ERROR_FAILED_TO_SETUP_DEBUG_MESSENGER)
        NAME(VKFFT_ERROR_FAILED_TO_FIND_PHYSICAL_DEVICE)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_DEVICE)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_FENCE)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_COMMAND_POOL)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_BUFFER)
        NAME(VKFFT_ERROR_FAILED_TO_ALLOCATE_MEMORY)
        NAME(VKFFT_ERROR_FAILED_TO_BIND_BUFFER_MEMORY)
        NAME(VKFFT_ERROR_FAILED_TO_FIND_MEMORY)
        NAME(VKFFT_ERROR_FAILED_TO_SYNCHRONIZE)
        NAME(VKFFT_ERROR_FAILED_TO_COPY)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM)
        NAME(VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM)
        NAME(VKFFT_ERROR_FAILED_TO_GET_CODE_SIZE)
        NAME(VKFFT_ERROR_FAILED_TO_GET_CODE)
        NAME(VKFFT_ERROR_FAILED_TO_DESTROY_PROGRAM)
        NAME(VKFFT_ERROR_FAILED_TO_LOAD_MODULE)
        NAME(VKFFT_ERROR_FAILED_TO_GET_FUNCTION)
        NAME(VKFFT_ERROR_FAILED_TO_SET_DYNAMIC_SHARED_MEMORY)
        NAME(VKFFT_ERROR_FAILED_TO_MODULE_GET_GLOBAL)
        NAME(VKFFT_ERROR_FAILED_TO_LAUNCH_KERNEL)
        NAME(VKFFT_ERROR_FAILED_TO_EVENT_RECORD)
        NAME(VKFFT_ERROR_FAILED_TO_ADD_NAME_EXPRESSION)
        NAME(VKFFT_ERROR_FAILED_TO_INITIALIZE)
        NAME(VKFFT_ERROR_FAILED_TO_SET_DEVICE_ID)
        NAME(VKFFT_ERROR_FAILED_TO_GET_DEVICE)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_CONTEXT)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE)
        NAME(VKFFT_ERROR_FAILED_TO_SET_KERNEL_ARG)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_COMMAND_QUEUE)
        NAME(VKFFT_ERROR_FAILED_TO_RELEASE_COMMAND_QUEUE)
        NAME(VKFFT_ERROR_FAILED_TO_ENUMERATE_DEVICES)
        NAME(VKFFT_ERROR_FAILED_TO_GET_ATTRIBUTE)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_EVENT)
        NAME(VKFFT_ERROR_FAILED_TO_CREATE_COMMAND_LIST)
        NAME(VKFFT_ERROR_FAILED_TO_DESTROY_COMMAND_LIST)
        NAME(VKFFT_ERROR_FAILED_TO_SUBMIT_BARRIER)
        default: return "unknown VkFFT result";
    }
#undef NAME
}

int vkfftVersion() noexcept { return VkFFTGetVersion(); }

VkfftError::VkfftError(int result, const std::string& operation)
    : Error(describe(result, operation)), m_result(result) {}

uint64_t VkfftGeometry::bufferBytes() const noexcept {
    // A real transform works in place on rows of size[0] / 2 + 1 complex values.
    const uint64_t row = r2c ? size[0] / 2 + 1 : size[0];
    const uint64_t outputs = kernel_count > 0 ? uint64_t(kernel_count) * coordinate_features : 1;
    return uint64_t(runs) * batches * outputs * row * size[1] * size[2] * complexBytes();
}

void VkfftGeometry::check() const {
    if (dimensions < 1 || dimensions > 3)
        throw InvalidArgumentError("dimensions: an FFT has 1 to 3 dimensions, got " +
                                   std::to_string(dimensions));
    for (uint32_t d = 0; d < 3; ++d) {
        if (size[d] == 0 || (d >= dimensions && size[d] != 1))
            throw InvalidArgumentError("size: dimension " + std::to_string(d) + " is " +
                                       std::to_string(size[d]) +
                                       " (must be >= 1, and 1 beyond the dimension count)");
        if (pad_right[d] != 0 && (pad_left[d] > pad_right[d] || pad_right[d] > size[d]))
            throw InvalidArgumentError("padding: the zero block [" + std::to_string(pad_left[d]) +
                                       ", " + std::to_string(pad_right[d]) + ") of dimension " +
                                       std::to_string(d) + " does not lie in [0, " +
                                       std::to_string(size[d]) + "]");
    }
    if (omitted[0] && omitted[1] && omitted[2])
        throw InvalidArgumentError("axes: at least one axis must be transformed");
    if (batches == 0) throw InvalidArgumentError("batches: must be >= 1, got 0");
    if (runs == 0) throw InvalidArgumentError("runs: must be >= 1, got 0");
#if VKD_VKFFT_1_3
    // VkFFT 1.3 generates no code for the kernel's conjugate (it conjugates only the sequence,
    // whose result spectrum is conjugated too), and its padded convolutions differ from 1.2.26's
    // (both measured wrong against numpy): refused rather than wrong.
    if (kernel_count > 0 && conjugate_convolution == 2)
        throw InvalidArgumentError("conjugate_convolution: 2 (the kernel's conjugate, "
                                   "convolve2D's conjugate_kernel=True) is not offered by this "
                                   "build's VkFFT (1.3); Debian's VkFFT 1.2.26 offers it");
    for (uint32_t d = 0; d < 3; ++d) {
        if (kernel_count > 0 && pad_right[d] != 0)
            throw InvalidArgumentError("padding: a padded convolution is not offered by this "
                                       "build's VkFFT (1.3); Debian's VkFFT 1.2.26 offers it");
    }
#endif
}

namespace {

// VkFFT 1.2.26's deleteVkFFT forgets the axes it plans for the reverse pass of a Bluestein
// transform split over several uploads (inverseBluesteinAxes[i][j], j >= 1; j = 0 is a copy
// made before planning, with no objects): their pipelines, layouts and descriptor pools
// outlived the plan (VUID-vkDestroyDevice-device-00378 at exit, N = 4099 for example).
// VkFFT 1.3 deletes them itself.
void deleteReverseBluesteinAxes([[maybe_unused]] VkFFTApplication& app) {
#if !VKD_VKFFT_1_3
    for (VkFFTPlan* plan : {app.localFFTPlan, app.localFFTPlan_inverse}) {
        if (plan == nullptr) continue;
        for (uint64_t i = 0; i < app.configuration.FFTdim; ++i) {
            if (!app.useBluesteinFFT[i] || plan->numAxisUploads[i] < 2) continue;
            for (uint64_t j = 1; j < plan->numAxisUploads[i]; ++j)
                deleteAxis(&app, &plan->inverseBluesteinAxes[i][j]);
        }
    }
#endif
}

}  // namespace

struct VkfftApplication::State {
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    UniqueCommandPool pool_owner;
    uint32_t runs = 1;
    uint64_t buffer_bytes = 0, input_bytes = 0, kernel_bytes = 0;  // of every run together
    // VkFFT keeps pointers to its buffer handles and rewrites its descriptor sets only when an
    // append passes other pointers: the plan is built without buffers (no descriptor is
    // written), the first append passes `bound` and writes them, later ones change nothing.
    VkfftBuffers bound;
    bool is_bound = false;
    std::vector<uint32_t> loaded, saved;
    VkFFTApplication app = {};
    bool initialized = false;

    ~State() {
        if (initialized) {
            deleteReverseBluesteinAxes(app);
            deleteVkFFT(&app);
        }
        if (fence != VK_NULL_HANDLE) vkDestroyFence(device, fence, nullptr);
    }
};

namespace {

void createSubmitObjects(VkfftApplication::State& s, uint32_t family) {
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = family;
    VK_CHECK(vkCreateCommandPool(s.device, &pool_info, nullptr, &s.pool),
             "creating VkFFT's command pool");
    s.pool_owner = UniqueCommandPool(s.device, s.pool);
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(s.device, &fence_info, nullptr, &s.fence), "creating VkFFT's fence");
}

void describeTransform(VkFFTConfiguration& c, const VkfftGeometry& g) {
    c.FFTdim = g.dimensions;
    for (int d = 0; d < 3; ++d) {
        c.size[d] = g.size[d];
        c.omitDimension[d] = g.omitted[d] ? 1 : 0;
        c.performZeropadding[d] = g.pad_right[d] != 0 ? 1 : 0;
        c.fft_zeropad_left[d] = g.pad_left[d];
        c.fft_zeropad_right[d] = g.pad_right[d];
    }
    c.numberBatches = g.batches;
    c.doublePrecision = g.precision == VkfftPrecision::Double ? 1 : 0;
    c.performR2C = g.r2c ? 1 : 0;
    // VkFFT runs two real lines as one complex line when their count along the next axis is
    // even: where that axis is not transformed (a batch), one line's rounding errors and NaN
    // then reach its neighbour's result (numpy keeps lines apart; measured 3.6e-2 relative).
    // (What VkFFT generates changes: base/vkfft_native_plan.py's CONFIGURATION_REVISION says so.)
    c.disableMergeSequencesR2C = g.r2c && (g.dimensions < 2 || g.omitted[1]) ? 1 : 0;
    c.normalize = g.normalize ? 1 : 0;
    c.frequencyZeroPadding = g.frequency_zeropadding ? 1 : 0;
    c.coordinateFeatures = g.coordinate_features;
    c.kernelConvolution = g.kernel_convolution ? 1 : 0;
    c.keepShaderCode = g.keep_shader_code ? 1 : 0;
    c.specifyOffsetsAtLaunch = g.runs > 1 ? 1 : 0;
}

void describeResources(VkFFTConfiguration& c, const VkfftGeometry& g,
                       VkfftApplication::State& s) {
    c.physicalDevice = &s.physical;
    c.device = &s.device;
    c.queue = &s.queue;
    c.commandPool = &s.pool;
    c.fence = &s.fence;
    c.bufferSize = &s.buffer_bytes;
    if (g.kernel_count > 0) {
        c.performConvolution = 1;
        c.numberKernels = g.kernel_count;
        c.conjugateConvolution = g.conjugate_convolution;
        c.kernelSize = &s.kernel_bytes;
    }
    if (g.input_bytes > 0) {
        c.isInputFormatted = 1;
        c.inputBufferSize = &s.input_bytes;
    }
    if (s.loaded.empty()) {
        c.saveApplicationToString = 1;
    } else {
        c.loadApplicationFromString = 1;
        c.loadApplicationString = s.loaded.data();
    }
}

}  // namespace

VkfftApplication::VkfftApplication(Device& device, Queue& queue, const VkfftGeometry& geometry,
                                   const std::vector<uint32_t>& binary, VkPipelineCache cache)
    : m_state(std::make_unique<State>()) {
    geometry.check();
    State& s = *m_state;
    s.physical = device.physical();
    s.device = device.handle();
    s.loaded = binary;
    s.runs = geometry.runs;
    s.buffer_bytes = geometry.bufferBytes();
    s.input_bytes = geometry.inputBytes();
    s.kernel_bytes = geometry.kernelBytes();
    createSubmitObjects(s, queue.family());

    VkFFTConfiguration c = {};
    describeTransform(c, geometry);
    describeResources(c, geometry, s);
    VkFFTResult result = VKFFT_SUCCESS;
    {
        std::lock_guard<std::mutex> lock(g_build_mutex);
        // VkFFT sets the "C" locale while it generates code and "restores" the previous one
        // from the pointer setlocale(LC_ALL, nullptr) returned, which its own setlocale call
        // frees when that name is composite (Python's start-up sets LC_CTYPE alone): a read
        // after free that AddressSanitizer reports. Entering it in "C" (a static name, never
        // freed) avoids that; the caller's locale is kept here and restored after.
        const std::string locale = setlocale(LC_ALL, nullptr);
        setlocale(LC_ALL, "C");
        g_building_cache = cache;
        // VkFFT submits its table uploads to the queue and waits on its fence.
        queue.runExclusive([&](VkQueue raw) {
            s.queue = raw;
            result = initializeVkFFT(&s.app, c);
        });
        setlocale(LC_ALL, locale.c_str());
    }
    if (result != VKFFT_SUCCESS) throwFor(result, "building a VkFFT plan");
    s.initialized = true;
    if (c.saveApplicationToString && s.app.saveApplicationString != nullptr) {
        const size_t bytes = s.app.applicationStringSize;
        s.saved.resize((bytes + 3) / 4);
        std::memcpy(s.saved.data(), s.app.saveApplicationString, bytes);
    }
}

VkfftApplication::~VkfftApplication() = default;

const std::vector<uint32_t>& VkfftApplication::binary() const noexcept { return m_state->saved; }

void VkfftApplication::bind(const VkfftBuffers& buffers) {
    if (m_state->is_bound) throw std::logic_error("a VkFFT application is bound only once");
    m_state->bound = buffers;
    m_state->is_bound = true;
}

void VkfftApplication::append(VkCommandBuffer cb, int direction) {
    State& s = *m_state;
    if (!s.is_bound) throw std::logic_error("a VkFFT application must be bound before use");
    VkFFTLaunchParams params = {};
    params.commandBuffer = &cb;
    params.buffer = &s.bound.buffer;
    if (s.input_bytes > 0) params.inputBuffer = &s.bound.input;
    if (s.kernel_bytes > 0) params.kernel = &s.bound.kernel;
    for (uint32_t run = 0; run < s.runs; ++run) {
        params.bufferOffset = run * (s.buffer_bytes / s.runs);
        params.inputBufferOffset = run * (s.input_bytes / s.runs);
        params.kernelOffset = run * (s.kernel_bytes / s.runs);
        const VkFFTResult result = VkFFTAppend(&s.app, direction, &params);
        if (result != VKFFT_SUCCESS) throwFor(result, "recording a VkFFT transform");
    }
}

}  // namespace vkdispatch
