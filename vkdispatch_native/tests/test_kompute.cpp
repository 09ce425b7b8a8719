// The Kompute-compatible C++ API (namespace kp) against host computations: Kompute's array
// multiply (examples/kompute/array_multiply.cpp), every memory type, specialization and push
// constants, asynchronous evaluation, copies, timestamps, a user operation, and Kompute's errors.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <functional>
#include <string>

#include "compute_helpers.hpp"
#include "kompute/Kompute.hpp"
#include "kompute_helpers.hpp"
#include "vkdispatch/log.hpp"

namespace {

using kp::Memory;
using vkdispatch::test::messageOf;
using vkdispatch::test::randomFloats;

// Kompute's example shader: out[i] = a[i] * b[i], one invocation per element.
const char* kMultiply = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { float a[]; };
layout(set = 0, binding = 1) buffer B { float b[]; };
layout(set = 0, binding = 2) buffer O { float o[]; };
void main() { uint i = gl_GlobalInvocationID.x; o[i] = a[i] * b[i]; }
)";

// out[i] = a[i] * SCALE + pc.offset (a specialization and a push constant).
const char* kAffine = R"(#version 450
layout(local_size_x = 1) in;
layout(constant_id = 0) const float SCALE = 1.0;
layout(set = 0, binding = 0) buffer A { float a[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
layout(push_constant) uniform PC { float offset; } pc;
void main() { uint i = gl_GlobalInvocationID.x; o[i] = a[i] * SCALE + pc.offset; }
)";

// out[i] = a[i] + b[i] for int32.
const char* kAddInt = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { int a[]; };
layout(set = 0, binding = 1) buffer B { int b[]; };
layout(set = 0, binding = 2) buffer O { int o[]; };
void main() { uint i = gl_GlobalInvocationID.x; o[i] = a[i] + b[i]; }
)";

// Inputs a and b of random floats and an output of zeros, all eDevice tensors of `n` elements.
struct Product {
    std::vector<float> x, y;
    std::shared_ptr<kp::TensorT<float>> a, b, out;
    std::vector<std::shared_ptr<Memory>> params;

    Product(kp::Manager& mgr, size_t n, unsigned seed)
        : x(randomFloats(n, seed)), y(randomFloats(n, seed + 1000)),
          a(mgr.tensor(x)), b(mgr.tensor(y)), out(mgr.tensor(std::vector<float>(n))),
          params{a, b, out} {}

    void expectComputed() {
        const auto result = out->vector();
        for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(result[i], x[i] * y[i]) << i;
    }
};

#define KP_REQUIRE_DEVICE() VKD_REQUIRE_DEVICE()

}  // namespace

// With VKDISPATCH_DEBUG=1 the managers run under the validation layer (synchronization
// validation included): any message it reports fails the test.
class Kompute : public ::testing::Test {
protected:
    void TearDown() override {
        const auto errors = vkdispatch::takeValidationErrors();
        for (const auto& error : errors) ADD_FAILURE() << error;
    }
};

TEST_F(Kompute, ArrayMultiplyMatchesTheHost) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    Product p(mgr, 97, 1);
    auto algorithm = mgr.algorithm(p.params, vkdispatch::test::compileOrFail(kMultiply, "mul"));
    EXPECT_EQ(algorithm->getWorkgroup(), (kp::Workgroup{97, 1, 1}));  // one per element
    mgr.sequence()
        ->record<kp::OpSyncDevice>(p.params)
        ->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpSyncLocal>(p.params)
        ->eval();
    p.expectComputed();
}

TEST_F(Kompute, OpMultAndTheLegacyOperationNames) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    Product p(mgr, 33, 7);
    auto placeholder = mgr.algorithm(p.params, vkdispatch::test::compileOrFail(kAddInt, "add"));
    mgr.sequence()
        ->record<kp::OpTensorSyncDevice>(p.params)
        ->record<kp::OpMult>(p.params, placeholder)
        ->record<kp::OpTensorSyncLocal>(p.params)
        ->eval();
    p.expectComputed();
    auto host = mgr.tensorT<uint32_t>(std::vector<uint32_t>{7u}, kp::Tensor::TensorTypes::eHost);
    EXPECT_EQ(host->memoryType(), Memory::MemoryTypes::eHost);
    EXPECT_EQ(host->dataType(), kp::Tensor::TensorDataTypes::eUnsignedInt);
    EXPECT_EQ(messageOf([&] { kp::OpMult({p.a, p.b}, placeholder); }),
              "Kompute OpMult expected 3 mem objects but got 2");
}

TEST_F(Kompute, EveryMemoryTypeSeesItsDataAtTheRightTime) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const std::vector<int32_t> x = {3, -7, 11, 40000, -2}, y = {5, 6, -20, 1, 99};
    for (auto type : {Memory::MemoryTypes::eDevice, Memory::MemoryTypes::eHost,
                      Memory::MemoryTypes::eDeviceAndHost}) {
        auto a = mgr.tensorT<int32_t>(x, type), b = mgr.tensorT<int32_t>(y, type);
        auto out = mgr.tensorT<int32_t>(x.size(), type);
        EXPECT_EQ(out->dataType(), Memory::DataTypes::eInt);
        const std::vector<std::shared_ptr<Memory>> params = {a, b, out};
        auto algorithm = mgr.algorithm(params, vkdispatch::test::compileOrFail(kAddInt, "add"));
        auto sequence = mgr.sequence();
        sequence->record<kp::OpSyncDevice>(params)->record<kp::OpAlgoDispatch>(algorithm)->eval();
        std::vector<int32_t> expected(x.size());
        for (size_t i = 0; i < x.size(); ++i) expected[i] = x[i] + y[i];
        if (type == Memory::MemoryTypes::eDevice) {
            // The host view is the staging copy: the result appears only after OpSyncLocal.
            EXPECT_EQ(out->vector(), std::vector<int32_t>(x.size()));
            sequence->eval<kp::OpSyncLocal>(params);
        }
        EXPECT_EQ(out->vector(), expected) << static_cast<int>(type);
    }
    auto storage = mgr.tensorT<float>(std::vector<float>(4, 1.0f), Memory::MemoryTypes::eStorage);
    EXPECT_THROW(storage->rawData(), std::runtime_error);
}

TEST_F(Kompute, SpecializationAndPushConstantsReachTheShader) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto x = randomFloats(16, 3);
    auto a = mgr.tensor(x), out = mgr.tensor(std::vector<float>(16));
    const std::vector<std::shared_ptr<Memory>> params = {a, out};
    auto algorithm = mgr.algorithm<float, float>(
        params, vkdispatch::test::compileOrFail(kAffine, "affine"), {}, {2.5f}, {0.5f});
    auto sequence = mgr.sequence();
    sequence->record<kp::OpSyncDevice>(params)
        ->record<kp::OpAlgoDispatch>(algorithm, std::vector<float>{-1.25f})
        ->record<kp::OpSyncLocal>(params)
        ->eval();
    // A GPU may fuse the multiply-add (one rounding instead of two): a few ulp of the terms.
    for (size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(out->vector()[i], x[i] * 2.5f - 1.25f,
                    4 * FLT_EPSILON * (std::fabs(x[i] * 2.5f) + 1.25f));
    // The override stays in the algorithm: a dispatch without values reuses it.
    EXPECT_EQ(algorithm->getPushConstants<float>(), std::vector<float>{-1.25f});
    EXPECT_EQ(algorithm->getSpecializationConstants<float>(), std::vector<float>{2.5f});
    const std::string message = messageOf([&] {
        sequence->eval<kp::OpAlgoDispatch>(algorithm, std::vector<float>{1.0f, 2.0f});
    });
    EXPECT_EQ(message, "Kompute Algorithm push constant total memory size provided is 8 but "
                       "expected 4 bytes");
}

TEST_F(Kompute, AsyncEvaluationAndTheSequenceStateMachine) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    Product p(mgr, 64, 4);
    const auto& params = p.params;
    auto algorithm = mgr.algorithm(params, vkdispatch::test::compileOrFail(kMultiply, "mul"));
    auto sequence = mgr.sequence();
    sequence->eval<kp::OpSyncDevice>(params);
    sequence->evalAsync<kp::OpAlgoDispatch>(algorithm);
    EXPECT_TRUE(sequence->isRunning());
    EXPECT_EQ(messageOf([&] { sequence->eval(); }),
              "Kompute Sequence evalAsync called when an eval async was called without "
              "successful wait");
    EXPECT_EQ(messageOf([&] { sequence->record<kp::OpSyncLocal>(params); }),
              "Kompute Sequence begin called when sequence still running");
    sequence->evalAwait();
    EXPECT_FALSE(sequence->isRunning());
    sequence->evalAwait();  // idle: nothing to wait for
    sequence->eval<kp::OpSyncLocal>(params);
    p.expectComputed();

    // eval() again resubmits the recorded buffer: new host data, synced again.
    p.a->setData(std::vector<float>(64, 3.0f));
    auto resync = mgr.sequence();
    resync->record<kp::OpSyncDevice>({p.a})->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpSyncLocal>({p.out})->eval();
    p.x.assign(64, -2.0f);
    p.a->setData(p.x);
    resync->eval();
    p.expectComputed();

    // An await that times out leaves the buffer to the GPU; the next eval waits for it.
    p.x.assign(64, 0.5f);
    p.a->setData(p.x);
    resync->evalAsync()->evalAwait(0);
    EXPECT_FALSE(resync->isRunning());
    resync->eval();
    p.expectComputed();
}

TEST_F(Kompute, CopyMovesDeviceDataAndHostViews) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto x = randomFloats(10, 6);
    auto source = mgr.tensor(x), target = mgr.tensor(std::vector<float>(10));
    auto checked = mgr.tensor(std::vector<float>(10));
    auto sequence = mgr.sequence();
    sequence->eval<kp::OpSyncDevice>({source});
    sequence->eval<kp::OpCopy>({source, target});
    EXPECT_EQ(target->vector(), x);  // postEval copied the host view
    target->setData(std::vector<float>(10, 0.0f));
    sequence->eval<kp::OpSyncLocal>({target});
    EXPECT_EQ(target->vector(), x);  // and the device copy happened too
    auto ints = mgr.tensorT<int32_t>(std::vector<int32_t>(10));
    EXPECT_EQ(messageOf([&] { sequence->eval<kp::OpCopy>({source, ints}); }),
              "Attempting to copy memory of different types from eFloat to eInt");
    auto longer = mgr.tensor(std::vector<float>(11));
    EXPECT_EQ(messageOf([&] { sequence->eval<kp::OpCopy>({source, longer}); }),
              "Attempting to copy tensors of different sizes from 10 to 11");
    EXPECT_EQ(messageOf([&] { kp::OpCopy copy({source}); }),
              "Kompute OpCopy called with less than 2 memory objects");
    EXPECT_EQ(messageOf([&] { kp::OpSyncDevice sync({}); }),
              "Kompute OpSyncDevice called with less than 1 memory object");
    (void)checked;
}

namespace {
// A user operation: fills a tensor's primary buffer through vulkan.hpp.
class FillOp : public kp::OpBase {
public:
    FillOp(std::shared_ptr<kp::Tensor> tensor, uint32_t word)
        : m_tensor(std::move(tensor)), m_word(word) {}
    void record(const vk::CommandBuffer& cb) override {
        cb.fillBuffer(vk::Buffer(m_tensor->getPrimaryBuffer()), 0, m_tensor->memorySize(), m_word);
        ++recorded;
    }
    void postEval(const vk::CommandBuffer&) override { ++evaluated; }
    int recorded = 0, evaluated = 0;

private:
    std::shared_ptr<kp::Tensor> m_tensor;
    uint32_t m_word;
};
}  // namespace

TEST_F(Kompute, UserOperationsRecordThroughVulkanHppAndTimestampsCount) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    auto tensor = mgr.tensorT<uint32_t>(std::vector<uint32_t>(8, 1u));
    auto fill = std::make_shared<FillOp>(tensor, 0xC0FFEEu);
    auto sequence = mgr.sequence(0, 4);
    sequence->record(fill)->record<kp::OpSyncLocal>({tensor})->eval()->eval();
    EXPECT_EQ(fill->recorded, 1);
    EXPECT_EQ(fill->evaluated, 2);
    EXPECT_EQ(tensor->vector(), std::vector<uint32_t>(8, 0xC0FFEEu));
    const auto ticks = sequence->getTimestamps();
    ASSERT_EQ(ticks.size(), 3u);  // the start and one per operation
    EXPECT_GT(ticks[0], 0u);
    EXPECT_LE(ticks[0], ticks[1]);
    EXPECT_LE(ticks[1], ticks[2]);
    EXPECT_EQ(messageOf([&] { mgr.sequence()->getTimestamps(); }),
              "Timestamp latching not enabled");
}

TEST_F(Kompute, ShaderCompileSourceGivesSpirvOrTheCompilersLog) {
    const auto words = kp::Shader::compileSource(kMultiply);
    ASSERT_FALSE(words.empty());
    EXPECT_EQ(words[0], 0x07230203u);  // the SPIR-V magic number
    const std::string message =
        messageOf([] { kp::Shader::compileSource("#version 450\nvoid main() { x = 1; }"); });
    EXPECT_NE(message.find("Kompute Shader failed to compile"), std::string::npos) << message;
    EXPECT_NE(message.find("'x'"), std::string::npos) << message;
}

TEST_F(Kompute, ManagerErrorsAndDestroy) {
    KP_REQUIRE_DEVICE();
    EXPECT_EQ(messageOf([] { kp::Manager(1000); }),
              "There is no such physical index or device, please use your existing device");
    EXPECT_EQ(messageOf([] { kp::Manager(0, {1000}); }),
              "Given family queue index does not exists. Index given: 1000");
    EXPECT_EQ(messageOf([] { kp::Manager mgr; mgr.tensor(std::vector<float>{}); }),
              "Kompute Memory attempted to create a zero-sized memory object");

    kp::Manager mgr;
    auto tensor = mgr.tensor({1.0f, 2.0f});
    auto sequence = mgr.sequence();
    auto algorithm = mgr.algorithm({tensor}, {});
    EXPECT_FALSE(algorithm->isInit());  // no SPIR-V: Kompute's uninitialised algorithm
    EXPECT_TRUE(tensor->isInit() && sequence->isInit());
    mgr.destroy();
    EXPECT_FALSE(tensor->isInit());
    EXPECT_EQ(tensor->size(), 0u);
    EXPECT_FALSE(sequence->isInit());
    EXPECT_THROW(tensor->rawData(), std::runtime_error);
    mgr.destroy();  // twice: nothing happens
    EXPECT_THROW(mgr.sequence(), std::runtime_error);
}

TEST_F(Kompute, GetVkInstanceIsASharedVulkanHppInstanceThatOutlivesDestroy) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    std::shared_ptr<vk::Instance> instance = mgr.getVkInstance();
    ASSERT_TRUE(instance && *instance);
    const auto devices = instance->enumeratePhysicalDevices();
    ASSERT_EQ(devices.size(), mgr.listDevices().size());
    EXPECT_EQ(devices.front().getProperties().deviceID, mgr.getDeviceProperties().deviceID);
    mgr.destroy();
    // The pointer holds the instance, as Kompute's does for as long as its Manager lives.
    EXPECT_EQ(instance->enumeratePhysicalDevices().size(), devices.size());
    EXPECT_EQ(messageOf([&] { mgr.getVkInstance(); }),
              "Kompute Manager device is null: its Manager was destroyed");
}

TEST_F(Kompute, SharedHostViewOutlivesDestroy) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto values = randomFloats(64, 11);
    auto tensor = mgr.tensor(values);
    std::shared_ptr<void> view = tensor->sharedRawData();
    mgr.destroy();
    EXPECT_FALSE(tensor->isInit());
    EXPECT_THROW(tensor->sharedRawData(), std::runtime_error);
    const float* kept = static_cast<const float*>(view.get());
    EXPECT_EQ(std::vector<float>(kept, kept + values.size()), values);
}

TEST_F(Kompute, CopiesAfterSyncsAndDispatchesAreOrdered) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    Product product(mgr, 4096, 12);
    auto copy = mgr.tensor(std::vector<float>(4096));
    auto algorithm = mgr.algorithm(product.params, kp::Shader::compileSource(kMultiply));
    mgr.sequence()
        ->record<kp::OpSyncDevice>(product.params)
        ->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpCopy>({product.out, copy})
        ->record<kp::OpSyncDevice>({product.a})  // rewrites a after the dispatch read it
        ->eval();
    // Separately: OpCopy's postEval set copy's host view to out's (stale) staging copy.
    mgr.sequence()->eval<kp::OpSyncLocal>({copy});
    const auto result = copy->vector();
    for (size_t i = 0; i < product.x.size(); ++i)
        EXPECT_EQ(result[i], product.x[i] * product.y[i]) << i;
}

TEST_F(Kompute, AnOperationBeyondTheTimestampsIsRefusedBeforeItRecords) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    auto tensor = mgr.tensor({1.0f});
    auto sequence = mgr.sequence(0, 1)->record<kp::OpSyncDevice>({tensor});
    EXPECT_EQ(messageOf([&] { sequence->record<kp::OpSyncLocal>({tensor}); }),
              "Kompute Sequence recorded more operations than its 1 timestamps");
    sequence->eval();
    EXPECT_EQ(sequence->getTimestamps().size(), 2u);
}
