// Misuse of the Kompute-compatible API that used to crash, hang or run freed Vulkan objects:
// objects destroyed (or an algorithm rebuilt) after a sequence recorded them, destroy() while a
// submission runs, workgroup counts above the device's limits, and malformed SPIR-V. Each is
// refused with an exception naming what is wrong, and the manager stays usable; so are memory
// objects an algorithm cannot bind (another kind than the shader declares, another device) and
// dispatches with fewer push-constant bytes than the shader reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "compute_helpers.hpp"
#include "kompute/Kompute.hpp"
#include "kompute_helpers.hpp"
#include "own_vulkan.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/log.hpp"

namespace {

using vkdispatch::test::kAffine;
using vkdispatch::test::messageOf;
using vkdispatch::test::randomFloats;
using vkdispatch::test::uploadDispatchDownload;

// y[i] = x[i] * x[i].
const char* kSquare = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() { uint i = gl_GlobalInvocationID.x; y[i] = x[i] * x[i]; }
)";

constexpr int kSlowSteps = 2000;
// kSlowSteps of v = v * 0.999 + 0.001 per element: lavapipe runs it for ~0.1 s at 64K elements.
const std::string kSlow = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float v = x[i];
    for (int k = 0; k < )" + std::to_string(kSlowSteps) + R"(; ++k) v = v * 0.999 + 0.001;
    y[i] = v;
}
)";

// y[i] = x[i] + (a, b, c)[i % 3], the three from push constants.
const char* kPushAdd = R"(#version 450
layout(local_size_x = 1) in;
layout(push_constant) uniform Push { float a; float b; float c; };
layout(set = 0, binding = 0) buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() { uint i = gl_GlobalInvocationID.x; y[i] = x[i] + vec3(a, b, c)[i % 3]; }
)";

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// x (random), y, and a sequence that uploads x, runs y = 3x + 1 and downloads y, run once.
struct Affine {
    std::vector<float> x;
    std::shared_ptr<kp::TensorT<float>> tx, ty;
    std::shared_ptr<kp::Algorithm> algorithm;
    std::shared_ptr<kp::Sequence> sequence;

    Affine(kp::Manager& mgr, unsigned seed)
        : x(randomFloats(257, seed)), tx(mgr.tensor(x)), ty(mgr.tensor(std::vector<float>(257))),
          algorithm(mgr.algorithm({tx, ty}, kp::Shader::compileSource(kAffine))),
          sequence(mgr.sequence()) {
        uploadDispatchDownload(*sequence, algorithm, tx, ty);
        expectMapped(*ty, [](float v) { return v * 3.0f + 1.0f; });
    }

    template <typename F>
    void expectMapped(kp::TensorT<float>& tensor, F f) const {
        const auto result = tensor.vector();
        for (size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ(result[i], f(x[i])) << i;
    }

    // The sequence, cleared, runs a new algorithm over the same tensors correctly.
    void expectRecovers(kp::Manager& mgr) {
        sequence->clear();
        auto square = mgr.algorithm({tx, ty}, kp::Shader::compileSource(kSquare));
        uploadDispatchDownload(*sequence, square, tx, ty);
        expectMapped(*ty, [](float v) { return v * v; });
    }
};

}  // namespace

// With VKDISPATCH_DEBUG=1 the managers run under the validation layer: any message it reports
// fails the test (a refused call must leave nothing invalid behind).
class KomputeMisuse : public ::testing::Test {
protected:
    void TearDown() override {
        for (const auto& error : vkdispatch::takeValidationErrors()) ADD_FAILURE() << error;
    }
};

TEST_F(KomputeMisuse, EvalAfterTheAlgorithmWasDestroyedNamesIt) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    Affine affine(mgr, 1);
    affine.algorithm->destroy();
    for (int i = 0; i < 2; ++i) {  // refused every time, until cleared
        const std::string message = messageOf([&] { affine.sequence->eval(); });
        EXPECT_TRUE(contains(message, "the OpAlgoDispatch recorded into them dispatches an "
                                      "algorithm that has been destroyed since"))
            << message;
    }
    affine.expectRecovers(mgr);
}

TEST_F(KomputeMisuse, EvalAfterATensorWasDestroyedNamesIt) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    Affine affine(mgr, 2);
    affine.ty->destroy();
    const std::string message = messageOf([&] { affine.sequence->evalAsync(); });
    EXPECT_TRUE(contains(message, "the OpAlgoDispatch recorded into them uses a tensor (memory "
                                  "object 1) that has been destroyed since; clear() the sequence"))
        << message;
    EXPECT_FALSE(affine.sequence->isRunning());
    // eval(op) clears first; x is still on the device.
    affine.tx->setData(std::vector<float>(affine.x.size(), 0.0f));
    affine.sequence->eval<kp::OpSyncLocal>({affine.tx});
    affine.expectMapped(*affine.tx, [](float v) { return v; });
}

TEST_F(KomputeMisuse, RecordingIntoABufferThatUsedADestroyedTensorThrows) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    auto gone = mgr.tensor({1.0f, 2.0f});
    auto kept = mgr.tensor({3.0f, 4.0f});
    auto sequence = mgr.sequence()->record<kp::OpSyncDevice>({gone});
    gone->destroy();
    for (auto action : {std::function<void()>([&] { sequence->record<kp::OpSyncDevice>({kept}); }),
                        std::function<void()>([&] { sequence->end(); }),
                        std::function<void()>([&] { sequence->rerecord(); })})
        EXPECT_TRUE(contains(messageOf(action), "OpSyncDevice recorded into them uses a tensor"));
    EXPECT_TRUE(sequence->isRecording());
    sequence->clear();  // drops the buffer without adding to it
    EXPECT_FALSE(sequence->isRecording());
    kept->setData(std::vector<float>{5.0f, 6.0f});
    sequence->record<kp::OpSyncDevice>({kept})->eval();
    kept->setData(std::vector<float>{0.0f, 0.0f});
    sequence->eval<kp::OpSyncLocal>({kept});
    EXPECT_EQ(kept->vector(), (std::vector<float>{5.0f, 6.0f}));
}

TEST_F(KomputeMisuse, AnAlgorithmRebuiltAfterRecordingIsRefused) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    Affine affine(mgr, 3);
    const uint64_t first = affine.algorithm->buildId();
    affine.algorithm->rebuild({affine.tx, affine.ty}, kp::Shader::compileSource(kSquare));
    EXPECT_NE(affine.algorithm->buildId(), first);
    EXPECT_TRUE(contains(messageOf([&] { affine.sequence->eval(); }),
                         "dispatches an algorithm that has been rebuilt since"));
    affine.sequence->clear();
    affine.sequence->record<kp::OpAlgoDispatch>(affine.algorithm)
        ->record<kp::OpSyncLocal>({affine.ty})
        ->eval();
    affine.expectMapped(*affine.ty, [](float v) { return v * v; });
}

// A user operation that declares what it records is checked like the built-in ones.
struct ZeroFill : kp::OpBase {
    std::shared_ptr<kp::Tensor> tensor;
    explicit ZeroFill(std::shared_ptr<kp::Tensor> t) : tensor(std::move(t)) {}
    void record(const vk::CommandBuffer& cb) override {
        cb.fillBuffer(vk::Buffer(tensor->getPrimaryBuffer()), 0, VK_WHOLE_SIZE, 0u);
    }
    kp::OpUses uses() const override { return {"ZeroFill", {tensor}, nullptr}; }
};

TEST_F(KomputeMisuse, UserOperationsDeclareWhatTheyRecord) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    auto tensor = mgr.tensor({1.0f});
    auto sequence = mgr.sequence()
                        ->record(std::make_shared<ZeroFill>(tensor))
                        ->record<kp::OpSyncLocal>({tensor})
                        ->eval();
    EXPECT_EQ(tensor->vector(), std::vector<float>{0.0f});
    tensor->destroy();
    EXPECT_TRUE(contains(messageOf([&] { sequence->eval(); }),
                         "the ZeroFill recorded into them uses a tensor (memory object 0)"));
}

TEST_F(KomputeMisuse, DestroyWhileASubmissionRunsWaitsForIt) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    const size_t n = 64 * 1024;
    const std::vector<float> x = randomFloats(n, 4, -1.0f, 1.0f);
    auto tx = mgr.tensor(x);
    auto ty = mgr.tensor(std::vector<float>(n));
    auto algorithm = mgr.algorithm({tx, ty}, kp::Shader::compileSource(kSlow),
                                   kp::Workgroup{static_cast<uint32_t>(n / 64), 1, 1});
    mgr.sequence()->eval<kp::OpSyncDevice>({tx});
    auto sequence = mgr.sequence()->evalAsync<kp::OpAlgoDispatch>(algorithm);
    tx->destroy();  // the dispatch still reads x and runs the pipeline
    algorithm->destroy();
    sequence->evalAwait();
    mgr.sequence()->eval<kp::OpSyncLocal>({ty});
    const auto result = ty->vector();
    for (size_t i = 0; i < n; i += 97) {
        double expected = x[i];
        for (int k = 0; k < kSlowSteps; ++k) expected = expected * 0.999 + 0.001;
        EXPECT_NEAR(result[i], expected, 1e-3) << i;
    }
}

TEST_F(KomputeMisuse, WorkgroupCountsAboveTheDeviceLimitThrow) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto limits = mgr.getDeviceProperties().limits.maxComputeWorkGroupCount;
    auto tx = mgr.tensor({1.0f});
    auto ty = mgr.tensor({0.0f});
    const auto spirv = kp::Shader::compileSource(kAffine);
    const char* axes = "xyz";
    for (int axis = 0; axis < 3; ++axis) {
        kp::Workgroup too_many{1, 1, 1};
        too_many[axis] = limits[axis] + 1;
        const std::string message = messageOf([&] { mgr.algorithm({tx, ty}, spirv, too_many); });
        EXPECT_EQ(message, std::string("workgroup: ") + axes[axis] + " = " +
                               std::to_string(limits[axis] + 1) +
                               " exceeds the device's maxComputeWorkGroupCount[" +
                               std::to_string(axis) + "] = " + std::to_string(limits[axis]) +
                               "; counts (" + std::to_string(too_many[0]) + ", " +
                               std::to_string(too_many[1]) + ", " + std::to_string(too_many[2]) +
                               "), limits (" + std::to_string(limits[0]) + ", " +
                               std::to_string(limits[1]) + ", " + std::to_string(limits[2]) + ")");
    }
    EXPECT_THROW(mgr.algorithm({tx, ty}, spirv, {70000, 70000, 70000}),
                 vkdispatch::InvalidArgumentError);

    // setWorkgroup and rebuild refuse too, and leave the algorithm as it was.
    auto algorithm = mgr.algorithm({tx, ty}, spirv, {1, 1, 1});
    const uint64_t build = algorithm->buildId();
    EXPECT_THROW(algorithm->setWorkgroup({limits[0] + 1, 1, 1}), std::runtime_error);
    EXPECT_THROW(algorithm->rebuild({tx, ty}, spirv, {1, limits[1] + 1, 1}), std::runtime_error);
    EXPECT_EQ(algorithm->getWorkgroup(), (kp::Workgroup{1, 1, 1}));
    EXPECT_EQ(algorithm->buildId(), build);
    uploadDispatchDownload(*mgr.sequence(), algorithm, tx, ty);
    EXPECT_EQ(ty->vector(), std::vector<float>{4.0f});
}

TEST_F(KomputeMisuse, MalformedSpirvIsRefusedBeforeVulkanSeesIt) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    auto tx = mgr.tensor({2.0f});
    auto ty = mgr.tensor({0.0f});
    const auto good = kp::Shader::compileSource(kAffine);
    const auto prefix = [&](size_t words) {
        return std::vector<uint32_t>(good.begin(), good.begin() + words);
    };
    auto scrambled = good;
    std::reverse(scrambled.begin() + 5, scrambled.end());
    auto wrong_magic = good;
    wrong_magic[0] = 0x03022307;  // byte-swapped
    const std::vector<std::pair<std::vector<uint32_t>, std::string>> cases = {
        {prefix(5), "spirv: the module (5 words) is not valid SPIR-V for Vulkan 1."},
        {prefix(6), "is not valid SPIR-V"},
        {prefix(good.size() / 2), "is not valid SPIR-V"},
        {scrambled, "is not valid SPIR-V"},
        {prefix(3), "spirv: 3 words (12 bytes) are no SPIR-V module"},
        {wrong_magic, "spirv: the first word is 0x03022307, not the SPIR-V magic number"},
    };
    auto algorithm = mgr.algorithm({tx, ty}, good);
    const uint64_t build = algorithm->buildId();
    for (const auto& [spirv, expected] : cases) {
        try {
            mgr.algorithm({tx, ty}, spirv);
            ADD_FAILURE() << "accepted " << spirv.size() << " words";
        } catch (const vkdispatch::InvalidArgumentError& error) {
            EXPECT_TRUE(contains(error.what(), expected)) << error.what();
        }
        EXPECT_THROW(algorithm->rebuild({tx, ty}, spirv), vkdispatch::InvalidArgumentError);
    }
    EXPECT_EQ(algorithm->buildId(), build);  // the refused rebuilds left it as it was
    uploadDispatchDownload(*mgr.sequence(), algorithm, tx, ty);
    EXPECT_EQ(ty->vector(), std::vector<float>{7.0f});
}

// Reads one texel of a storage image at binding 0 and writes it to the buffer at binding 1.
const char* kReadsAnImage = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D picture;
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() { y[0] = imageLoad(picture, ivec2(0, 0)).x; }
)";

TEST_F(KomputeMisuse, MemoryObjectsOfTheWrongKindOrDeviceOrCountAreRefusedByAlgorithm) {
    VKD_REQUIRE_DEVICE();
    vkdispatch::test::OwnVulkan own;  // another device: a Manager over the program's own
    ASSERT_NE(own.device, VK_NULL_HANDLE);
    auto other = own.manager();
    kp::Manager mgr;
    auto tx = mgr.tensor({1.0f, 2.0f});
    auto ty = mgr.tensor({0.0f, 0.0f});
    auto image = mgr.image({1.0f, 2.0f}, 2, 1, 1);
    const auto affine = kp::Shader::compileSource(kAffine);
    const auto reads_image = kp::Shader::compileSource(kReadsAnImage);
    // A tensor where the shader declares an image crashed the driver; an image where it
    // declares a buffer wrote nothing.
    EXPECT_TRUE(contains(messageOf([&] { mgr.algorithm({tx, ty}, reads_image); }),
                         "tensors: memory object 0 is a tensor, but the shader declares "
                         "binding 0 as an image"));
    EXPECT_TRUE(contains(messageOf([&] { mgr.algorithm({image, ty}, affine); }),
                         "tensors: memory object 0 is an image, but the shader declares "
                         "binding 0 as a buffer"));
    EXPECT_TRUE(contains(messageOf([&] { mgr.algorithm({tx}, affine); }),
                         "tensors: the shader uses binding 1 of descriptor set 0, but 1 "
                         "tensors or images were given"));
    EXPECT_TRUE(contains(messageOf([&] { mgr.algorithm({tx, other->tensor({0.0f, 0.0f})},
                                                       affine); }),
                         "tensors: memory object 1 was made on another device"));
    EXPECT_TRUE(contains(messageOf([&] {
                             mgr.sequence()->eval<kp::OpSyncDevice>({other->tensor({1.0f})});
                         }),
                         "memory object 0 was made on another device than the sequence's"));
    // The manager still works: the image read through a right algorithm.
    auto algorithm = mgr.algorithm({image, ty}, reads_image, {1, 1, 1});
    mgr.sequence()
        ->record<kp::OpSyncDevice>({image})
        ->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpSyncLocal>({ty})
        ->eval();
    EXPECT_EQ(ty->vector()[0], 1.0f);
}

TEST_F(KomputeMisuse, TooFewPushConstantsAreMadeAsInKomputeButRefusedWhenDispatched) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto x = randomFloats(9, 31);
    const auto push = randomFloats(3, 32);
    auto in = mgr.tensor(x);
    auto out = mgr.tensor(std::vector<float>(x.size()));
    const auto spirv = kp::Shader::compileSource(kPushAdd);
    auto short_push = mgr.algorithm({in, out}, spirv, {}, std::vector<float>{},
                                    std::vector<float>{push[0]});
    const std::string refused =
        "push_consts: the shader declares 12 bytes of push constants, got 4 (the shader would "
        "read bytes nobody set)";
    EXPECT_EQ(messageOf([&] { mgr.sequence()->record<kp::OpAlgoDispatch>(short_push); }),
              refused);
    EXPECT_THROW(short_push->checkPushConstants(), vkdispatch::InvalidArgumentError);
    EXPECT_EQ(messageOf([&] { mgr.sequence()->record<kp::OpAlgoDispatch>(short_push, push); }),
              "Kompute Algorithm push constant total memory size provided is 12 but expected 4 "
              "bytes");

    auto full = mgr.algorithm({in, out}, spirv, {}, std::vector<float>{}, push);
    uploadDispatchDownload(*mgr.sequence(), full, in, out);
    const auto result = out->vector();
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(result[i], x[i] + push[i % 3]) << i;
}
