// The VkFFT stage: plans against a float64 DFT, commands in lists with other commands, one plan
// on several buffers, kernels reloaded from a saved binary, and errors.
#include <gtest/gtest.h>

#include <clocale>
#include <cmath>
#include <complex>
#include <random>
#include <string>

#include "compute_helpers.hpp"
#include "fft_reference.hpp"
#include "vkdispatch/buffer_commands.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/pipeline_cache.hpp"
#include "vkdispatch/vkfft_command.hpp"
#include "vkdispatch/vkfft_plan.hpp"

using namespace vkdispatch;
using test::context;
using test::download;
using test::upload;

namespace {

using test::Complex;
using test::relativeError;

std::vector<float> randomComplex(size_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    std::vector<float> out(2 * count);
    for (auto& v : out) v = normal(rng);
    return out;
}

// Batched 1-D DFT of interleaved float pairs, in double precision.
std::vector<Complex> dft(const std::vector<float>& data, size_t n, int sign) {
    const size_t batches = data.size() / (2 * n);
    std::vector<Complex> out(batches * n);
    const double pi = std::acos(-1.0);
    for (size_t b = 0; b < batches; ++b)
        for (size_t k = 0; k < n; ++k) {
            Complex sum = 0;
            for (size_t j = 0; j < n; ++j) {
                const Complex x(data[2 * (b * n + j)], data[2 * (b * n + j) + 1]);
                sum += x * std::polar(1.0, sign * 2 * pi * double(j * k % n) / double(n));
            }
            out[b * n + k] = sum;
        }
    return out;
}

VkfftGeometry lines(uint64_t n, uint64_t count) {
    VkfftGeometry g;
    g.dimensions = 2;
    g.size = {n, count, 1};
    g.omitted = {false, true, false};
    return g;
}

uint64_t runList(CommandList& list) {
    const uint64_t value = list.submit(nullptr, 0, 1, 0, nullptr, nullptr, 0);
    context().queue(0).wait(value);
    return value;
}

// The relative error of `plan`'s forward transform of random lines of length n filling a
// buffer of `elements` complex values, against a float64 DFT.
double forwardError(VkfftPlan& plan, uint64_t n, uint64_t elements, unsigned seed) {
    Buffer buffer(context(), elements * 8);
    const auto data = randomComplex(elements, seed);
    upload(buffer, data);
    CommandList list(context());
    list.record(std::make_unique<VkfftCommand>(plan, buffer, -1, nullptr, nullptr));
    runList(list);
    return relativeError(download<float>(buffer, data.size()), dft(data, n, -1));
}

}  // namespace

TEST(VkfftStage, BatchedLinesMatchADft) {
    VKD_REQUIRE_DEVICE();
    for (uint64_t n : {8, 12, 7 * 5, 11 * 13, 1024}) {
        const uint64_t count = 6;
        VkfftPlan plan(context(), lines(n, count), {});
        EXPECT_LT(forwardError(plan, n, n * count, unsigned(n)), 1e-6 * std::log2(double(n)) + 1e-6)
            << "n = " << n;
    }
}

// Bluestein's algorithm over several uploads (N = 4099 pads to more than a workgroup holds):
// the plan's reverse-pass axes have objects of their own, which must go with the plan (under
// the validation layer, make test-native-validation, a leak is reported at device destruction).
TEST(VkfftStage, ABluesteinLengthOfSeveralUploadsMatchesADft) {
    VKD_REQUIRE_DEVICE();
    const uint64_t n = 4099, count = 2;
    VkfftPlan plan(context(), lines(n, count), {});
    EXPECT_LT(forwardError(plan, n, n * count, 11), 1e-5);
}

// Python's start-up sets LC_CTYPE alone, so the process locale has a composite name. VkFFT
// saves setlocale(LC_ALL, nullptr) and restores it after its own setlocale call freed that
// name: a read after free under AddressSanitizer (make test-sanitize) unless the plan is built
// from the "C" locale. The caller's locale must survive the build either way.
TEST(VkfftStage, APlanBuiltUnderACompositeLocaleKeepsIt) {
    VKD_REQUIRE_DEVICE();
    const std::string before = setlocale(LC_ALL, nullptr);
    if (setlocale(LC_CTYPE, "C.UTF-8") == nullptr) GTEST_SKIP() << "no C.UTF-8 locale";
    const std::string composite = setlocale(LC_ALL, nullptr);
    VkfftPlan plan(context(), lines(24, 2), {});
    EXPECT_EQ(setlocale(LC_ALL, nullptr), composite);
    EXPECT_LT(forwardError(plan, 24, 48, 24u), 1e-5);
    setlocale(LC_ALL, before.c_str());
}

TEST(VkfftStage, NormalisedInverseUndoesTheForwardInOneList) {
    VKD_REQUIRE_DEVICE();
    VkfftGeometry g = lines(48, 5);
    g.normalize = true;
    VkfftPlan plan(context(), g, {});
    Buffer buffer(context(), 48 * 5 * 8);
    const auto data = randomComplex(48 * 5, 3);
    upload(buffer, data);
    CommandList list(context());
    list.record(std::make_unique<VkfftCommand>(plan, buffer, -1, nullptr, nullptr));
    list.record(std::make_unique<VkfftCommand>(plan, buffer, 1, nullptr, nullptr));
    runList(list);
    const auto got = download<float>(buffer, data.size());
    for (size_t i = 0; i < data.size(); ++i) EXPECT_NEAR(got[i], data[i], 1e-5) << i;
}

TEST(VkfftStage, OnePlanTransformsSeveralBuffersOfOneList) {
    VKD_REQUIRE_DEVICE();
    VkfftPlan plan(context(), lines(64, 3), {});
    std::vector<std::unique_ptr<Buffer>> buffers;
    std::vector<std::vector<float>> inputs;
    CommandList list(context());
    // More buffers than the plan remembers: the first bindings live on in their commands.
    for (unsigned i = 0; i < VkfftPlan::kRememberedBindings + 2; ++i) {
        buffers.push_back(std::make_unique<Buffer>(context(), 64 * 3 * 8));
        inputs.push_back(randomComplex(64 * 3, 10 + i));
        upload(*buffers.back(), inputs.back());
        list.record(std::make_unique<VkfftCommand>(plan, *buffers.back(), -1, nullptr, nullptr));
    }
    runList(list);
    runList(list);  // a kept recording, replayed: each buffer transformed twice
    for (size_t i = 0; i < buffers.size(); ++i) {
        std::vector<float> once(inputs[i].size());
        const auto first = dft(inputs[i], 64, -1);
        for (size_t k = 0; k < first.size(); ++k) {
            once[2 * k] = float(first[k].real());
            once[2 * k + 1] = float(first[k].imag());
        }
        EXPECT_LT(relativeError(download<float>(*buffers[i], once.size()), dft(once, 64, -1)),
                  1e-5)
            << "buffer " << i;
    }
}

TEST(VkfftStage, OrdersAgainstCopiesOfTheSameList) {
    VKD_REQUIRE_DEVICE();
    VkfftPlan plan(context(), lines(32, 4), {});
    const uint64_t bytes = 32 * 4 * 8;
    Buffer source(context(), bytes), work(context(), bytes), result(context(), bytes);
    const auto data = randomComplex(32 * 4, 21);
    upload(source, data);
    CommandList list(context());
    list.record(std::make_unique<CopyBufferCommand>(context(), work, source, 0, 0, bytes));
    list.record(std::make_unique<VkfftCommand>(plan, work, -1, nullptr, nullptr));
    list.record(std::make_unique<CopyBufferCommand>(context(), result, work, 0, 0, bytes));
    runList(list);
    EXPECT_LT(relativeError(download<float>(result, data.size()), dft(data, 32, -1)), 1e-5);
}

TEST(VkfftStage, ASavedBinaryBuildsTheSameTransform) {
    VKD_REQUIRE_DEVICE();
    std::vector<std::vector<uint32_t>> binaries;
    {
        VkfftPlan first(context(), lines(60, 2), {});
        binaries = first.binaries();
    }
    ASSERT_EQ(binaries.size(), context().devices().size());
    ASSERT_FALSE(binaries[0].empty());
    VkfftPlan plan(context(), lines(60, 2), binaries);
    EXPECT_LT(forwardError(plan, 60, 60 * 2, 4), 1e-5);
}

TEST(VkfftStage, PipelinesGoThroughTheContextsCacheOfThatContextOnly) {
    VKD_REQUIRE_DEVICE();
    PipelineCache cache(context(), std::vector<std::string>(context().devices().size()));
    VkfftPlan plan(context(), lines(60, 2), {}, &cache);
    EXPECT_LT(forwardError(plan, 60, 60 * 2, 5), 1e-5);  // the spare application, then another
    EXPECT_LT(forwardError(plan, 60, 60 * 2, 6), 1e-5);

    auto& env = test::deviceEnvironment();
    const int device_index = env.context->devices()[0]->info().index;
    Context other(*env.instance, {device_index},
                  {{computeQueueFamily(env.instance->devices()[device_index])}});
    try {
        VkfftPlan foreign(other, lines(60, 2), {}, &cache);
        FAIL() << "a pipeline cache of another context was accepted";
    } catch (const InvalidArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("cache"), std::string::npos) << e.what();
    }
}

TEST(VkfftStage, BadGeometriesAndCommandsThrowNamingTheArgument) {
    VKD_REQUIRE_DEVICE();
    VkfftGeometry four = lines(8, 2);
    four.dimensions = 4;
    EXPECT_THROW(VkfftPlan(context(), four, {}), InvalidArgumentError);
    VkfftGeometry all_omitted = lines(8, 2);
    all_omitted.omitted = {true, true, true};
    EXPECT_THROW(VkfftPlan(context(), all_omitted, {}), InvalidArgumentError);

    VkfftPlan plan(context(), lines(16, 2), {});
    Buffer small(context(), 16 * 8), right(context(), 16 * 2 * 8);
    try {
        VkfftCommand(plan, small, -1, nullptr, nullptr);
        FAIL() << "a small buffer was accepted";
    } catch (const InvalidArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("buffer"), std::string::npos) << e.what();
    }
    EXPECT_THROW(VkfftCommand(plan, right, 0, nullptr, nullptr), InvalidArgumentError);
    EXPECT_THROW(VkfftCommand(plan, right, -1, &small, nullptr), InvalidArgumentError);
}

TEST(VkfftStage, ResultNamesAreVkFFTs) {
    EXPECT_EQ(vkfftResultName(3001), "VKFFT_ERROR_UNSUPPORTED_RADIX");
    EXPECT_EQ(vkfftResultName(0), "VKFFT_SUCCESS");
    const VkfftError error(4014, "building a VkFFT plan");
    EXPECT_NE(std::string(error.what()).find("VKFFT_ERROR_FAILED_SHADER_PARSE"),
              std::string::npos);
    EXPECT_GE(vkfftVersion(), 10226);
}

TEST(VkfftStage, RunsTransformConsecutiveBlocks) {
    VKD_REQUIRE_DEVICE();
    VkfftGeometry g = lines(40, 2);
    g.runs = 3;  // 3 blocks of 2 lines: the same as 6 lines
    VkfftPlan plan(context(), g, {});
    EXPECT_LT(forwardError(plan, 40, 40 * 6, 8), 1e-5);
    Buffer short_of_one_run(context(), 40 * 5 * 8);
    EXPECT_THROW(VkfftCommand(plan, short_of_one_run, -1, nullptr, nullptr), InvalidArgumentError);
}
