// Kompute 0.9's API: tensor lists (std::vector<std::shared_ptr<kp::Tensor>>, and lists of any
// other Memory subclass) given to the operations, Manager::algorithm, Algorithm::rebuild and
// Sequence::record / eval / evalAsync, Algorithm::getTensors, and TensorT<T>::dataType()
// specialised for a user struct, against host computations on random data.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compute_helpers.hpp"
#include "kompute/Kompute.hpp"
#include "kompute_helpers.hpp"
#include "vkdispatch/log.hpp"

namespace {

using vkdispatch::test::messageOf;
using vkdispatch::test::randomFloats;
using TensorList = std::vector<std::shared_ptr<kp::Tensor>>;

// out[i] = a[i] - 2 * b[i], one invocation per element.
const char* kCombine = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { float a[]; };
layout(set = 0, binding = 1) buffer B { float b[]; };
layout(set = 0, binding = 2) buffer O { float o[]; };
void main() { uint i = gl_GlobalInvocationID.x; o[i] = a[i] - 2.0 * b[i]; }
)";

// Random inputs a and b and an output of zeros, as Kompute 0.9 programs hold them.
struct Operands {
    std::vector<float> x, y;
    TensorList tensors;

    Operands(kp::Manager& mgr, size_t n, unsigned seed)
        : x(randomFloats(n, seed)), y(randomFloats(n, seed + 500)),
          tensors{mgr.tensor(x), mgr.tensor(y), mgr.tensor(std::vector<float>(n))} {}

    std::vector<float> out() const { return tensors[2]->vector<float>(); }
};

// A Kompute 0.9 user operation: it takes the tensor list itself and scales its tensors' host
// views (no commands).
class OpScaleHost : public kp::OpBase {
public:
    OpScaleHost(const TensorList& tensors, float factor) : m_tensors(tensors), m_factor(factor) {}
    void record(const vk::CommandBuffer&) override {}
    void postEval(const vk::CommandBuffer&) override {
        for (const auto& tensor : m_tensors)
            for (uint32_t i = 0; i < tensor->size(); ++i) tensor->data<float>()[i] *= m_factor;
    }

private:
    TensorList m_tensors;
    float m_factor;
};

// A user struct in a tensor, which Kompute 0.9 programs declare by specialising
// TensorT<T>::dataType() (below, at namespace scope as C++ requires).
struct Particle {
    float mass;
    uint32_t id;
    int32_t charge;
    bool operator==(const Particle& other) const {
        return mass == other.mass && id == other.id && charge == other.charge;
    }
};

#define KP_REQUIRE_DEVICE() VKD_REQUIRE_DEVICE()

}  // namespace

template <>
kp::Tensor::TensorDataTypes kp::TensorT<Particle>::dataType() {
    return Tensor::TensorDataTypes::eCustom;
}

class KomputeTensorLists : public ::testing::Test {
protected:
    void TearDown() override {
        for (const auto& error : vkdispatch::takeValidationErrors()) ADD_FAILURE() << error;
    }
};

TEST_F(KomputeTensorLists, AlgorithmAndSyncOperationsTakeTensorLists) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    Operands ops(mgr, 37, 1);
    auto algorithm = mgr.algorithm(ops.tensors, kp::Shader::compileSource(kCombine));
    EXPECT_EQ(algorithm->getWorkgroup(), (kp::Workgroup{37, 1, 1}));
    mgr.sequence()
        ->record<kp::OpTensorSyncDevice>(ops.tensors)
        ->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpMemoryBarrier>(ops.tensors, vk::AccessFlagBits::eShaderWrite,
                                      vk::AccessFlagBits::eTransferRead,
                                      vk::PipelineStageFlagBits::eComputeShader,
                                      vk::PipelineStageFlagBits::eTransfer)
        ->record<kp::OpTensorSyncLocal>(ops.tensors)
        ->eval();
    const auto result = ops.out();
    for (size_t i = 0; i < ops.x.size(); ++i) EXPECT_EQ(result[i], ops.x[i] - 2 * ops.y[i]) << i;
}

TEST_F(KomputeTensorLists, OpMultCopyAndAsyncEvaluationTakeTensorLists) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    Operands ops(mgr, 23, 2);
    auto sequence = mgr.sequence();
    sequence->eval<kp::OpTensorSyncDevice>(ops.tensors)
        ->eval<kp::OpMult>(ops.tensors, mgr.algorithm())
        ->evalAsync<kp::OpTensorSyncLocal>({ops.tensors})  // a list in braces, as 0.9 allowed
        ->evalAwait();
    const auto product = ops.out();
    for (size_t i = 0; i < ops.x.size(); ++i) EXPECT_EQ(product[i], ops.x[i] * ops.y[i]) << i;

    // Copies of a typed list (TensorT<float>, not Tensor) spread the product.
    std::vector<std::shared_ptr<kp::TensorT<float>>> copies{
        mgr.tensorT<float>(ops.x.size()), mgr.tensorT<float>(ops.x.size())};
    auto from_out = std::vector<std::shared_ptr<kp::TensorT<float>>>{
        std::dynamic_pointer_cast<kp::TensorT<float>>(ops.tensors[2]), copies[0], copies[1]};
    sequence->eval<kp::OpTensorCopy>(from_out);
    copies[0]->setData(std::vector<float>(ops.x.size(), 0.0f));  // only the device keeps it
    sequence->eval<kp::OpTensorSyncLocal>(copies);
    EXPECT_EQ(copies[0]->vector(), product);
    EXPECT_EQ(copies[1]->vector(), product);
}

TEST_F(KomputeTensorLists, RebuildAndGetTensorsUseTensorLists) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    Operands first(mgr, 11, 3), second(mgr, 19, 4);
    auto algorithm = mgr.algorithm(first.tensors, kp::Shader::compileSource(kCombine));
    algorithm->rebuild(second.tensors, kp::Shader::compileSource(kCombine));
    EXPECT_EQ(algorithm->getTensors(), second.tensors);
    EXPECT_EQ(algorithm->getWorkgroup(), (kp::Workgroup{19, 1, 1}));
    mgr.sequence()
        ->record<kp::OpTensorSyncDevice>(second.tensors)
        ->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpTensorSyncLocal>(second.tensors)
        ->eval();
    const auto result = second.out();
    for (size_t i = 0; i < second.x.size(); ++i)
        EXPECT_EQ(result[i], second.x[i] - 2 * second.y[i]) << i;

    auto image = mgr.image(std::vector<float>(4, 1.0f), 2, 2, 1);
    auto mixed = mgr.algorithm({first.tensors[0], image}, {});
    EXPECT_EQ(messageOf([&] { mixed->getTensors(); }),
              "Kompute Algorithm getTensors: memory object 1 of 2 is an image, not a tensor; "
              "use getMemObjects()");
}

TEST_F(KomputeTensorLists, UserOperationsReceiveTheListAsGiven) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    Operands ops(mgr, 9, 5);
    const TensorList inputs{ops.tensors[0], ops.tensors[1]};
    auto sequence = mgr.sequence();
    sequence->record<OpScaleHost>(inputs, 0.5f)->eval();
    sequence->evalAsync<OpScaleHost>(inputs, 4.0f)->evalAwait();
    sequence->eval<OpScaleHost>(inputs, -1.0f);
    const auto a = ops.tensors[0]->vector<float>(), b = ops.tensors[1]->vector<float>();
    for (size_t i = 0; i < ops.x.size(); ++i) {
        EXPECT_EQ(a[i], -2.0f * ops.x[i]) << i;
        EXPECT_EQ(b[i], -2.0f * ops.y[i]) << i;
    }
}

TEST_F(KomputeTensorLists, TensorTDataTypeSpecialisedForAUserStructRoundTrips) {
    KP_REQUIRE_DEVICE();
    kp::Manager mgr;
    const auto masses = randomFloats(6, 6);
    std::vector<Particle> particles;
    for (size_t i = 0; i < masses.size(); ++i)
        particles.push_back({masses[i], uint32_t(1000 + 7 * i), int32_t(i) - 3});
    auto tensor = mgr.tensorT<Particle>(particles);
    EXPECT_EQ(tensor->dataType(), kp::Tensor::TensorDataTypes::eCustom);
    EXPECT_EQ(tensor->dataTypeMemorySize(), sizeof(Particle));
    auto sequence = mgr.sequence();
    sequence->eval<kp::OpTensorSyncDevice>(TensorList{tensor});
    tensor->setData(std::vector<Particle>(particles.size(), Particle{0.0f, 0, 0}));
    sequence->eval<kp::OpTensorSyncLocal>(TensorList{tensor});
    EXPECT_EQ(tensor->vector(), particles);
}
