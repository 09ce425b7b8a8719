// kp::OpFFT: how a shape and axes become VkFFT's layout (no device), transforms against a
// float64 DFT (forward, inverse, batched, 2-D/3-D, a strided axis, double tensors) recorded
// beside other operations and evaluated again, the Manager's plan cache, and errors.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../src/kp/fft_layout.hpp"
#include "../src/kp/runtime.hpp"
#include "compute_helpers.hpp"
#include "fft_reference.hpp"
#include "kompute/Kompute.hpp"
#include "kompute_helpers.hpp"
#include "own_vulkan.hpp"
#include "vkdispatch/log.hpp"

namespace {

using kp::Memory;
using kp::detail::FftLayout;
using kp::detail::fftLayout;
using vkdispatch::test::messageOf;
using vkdispatch::test::randomFloats;
using vkdispatch::test::Complex;
using vkdispatch::test::referenceFft;
using vkdispatch::test::relativeError;
using Shape = std::vector<uint32_t>;
using Axes = std::vector<int32_t>;

std::vector<double> randomDoubles(size_t n, unsigned seed) {
    const std::vector<float> values = randomFloats(n, seed);
    return {values.begin(), values.end()};
}

size_t points(const Shape& shape) {
    size_t count = 1;
    for (uint32_t length : shape) count *= length;
    return count;
}

// The relative error of OpFFT on random data of `shape` (a device tensor, synced both ways)
// against the reference.
double fftError(kp::Manager& mgr, const Shape& shape, const Axes& axes,
                const std::vector<size_t>& reference_axes, bool inverse, unsigned seed) {
    const std::vector<float> values = randomFloats(2 * points(shape), seed);
    auto tensor = mgr.tensor(values);
    mgr.sequence()
        ->record<kp::OpSyncDevice>({tensor})
        ->record<kp::OpFFT>({tensor}, shape, inverse, axes)
        ->record<kp::OpSyncLocal>({tensor})
        ->eval();
    return relativeError(tensor->vector(), referenceFft(values, shape, reference_axes, inverse));
}

// y[i] = 2 * x[i] + 1 over every float of the tensor.
const char* kDoublePlusOne = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer X { float x[]; };
void main() { uint i = gl_GlobalInvocationID.x; x[i] = 2.0 * x[i] + 1.0; }
)";

}  // namespace

TEST(KomputeFftLayout, AxesBeforeTheFirstTransformedOneAreBatches) {
    const auto layout = fftLayout({3, 8, 64}, {-1});
    EXPECT_EQ(layout.dimensions, 1u);
    EXPECT_EQ(layout.size, (std::array<uint64_t, 3>{64, 1, 1}));
    EXPECT_EQ(layout.batches, 24u);
    EXPECT_EQ(layout.points(), 3u * 8 * 64);
}

TEST(KomputeFftLayout, AnUntransformedAxisAfterTheFirstIsOmittedInVkfftOrder) {
    const auto layout = fftLayout({16, 5}, {0});
    EXPECT_EQ(layout.dimensions, 2u);
    EXPECT_EQ(layout.size, (std::array<uint64_t, 3>{5, 16, 1}));
    EXPECT_EQ(layout.omitted, (std::array<bool, 3>{true, false, false}));
    EXPECT_EQ(layout.batches, 1u);
    EXPECT_TRUE(layout.geometry().normalize);  // inverses match numpy's ifft
}

TEST(KomputeFftLayout, AxesOfLengthOneAreLeftOut) {
    const auto layout = fftLayout({1, 32, 1, 8}, {});
    EXPECT_EQ(layout.dimensions, 2u);
    EXPECT_EQ(layout.size, (std::array<uint64_t, 3>{8, 32, 1}));
    EXPECT_EQ(layout.omitted, (std::array<bool, 3>{}));
    EXPECT_EQ(layout.batches, 1u);
}

TEST(KomputeFftLayout, LayoutsDifferingInAnyOneFieldAreDifferentKeys) {
    const auto base = fftLayout({4, 8}, {});
    EXPECT_TRUE(base == fftLayout({4, 8}, {0, 1}));
    const std::vector<std::function<void(FftLayout&)>> changes = {
        [](FftLayout& l) { l.dimensions = 3; },
        [](FftLayout& l) { l.size[2] = 2; },
        [](FftLayout& l) { l.omitted[1] = true; },
        [](FftLayout& l) { l.batches = 2; },
        [](FftLayout& l) { l.precision = vkdispatch::VkfftPrecision::Double; },
    };
    for (size_t i = 0; i < changes.size(); ++i) {
        FftLayout changed = base;
        changes[i](changed);
        EXPECT_FALSE(base == changed) << "change " << i;
    }
}

TEST(KomputeFftLayout, MalformedShapesAndAxesNameTheArgumentAndTheValues) {
    EXPECT_EQ(messageOf([] { fftLayout({}, {}); }),
              "Kompute OpFFT: shape: at least one length, got {}");
    EXPECT_EQ(messageOf([] { fftLayout({4, 0}, {}); }),
              "Kompute OpFFT: shape: every length must be >= 1, got {4, 0}");
    EXPECT_EQ(messageOf([] { fftLayout({65536, 65536, 2}, {}); }),
              "Kompute OpFFT: shape: {65536, 65536, 2} holds more than 4294967295 complex "
              "values, the most VkFFT transforms at once");
    EXPECT_EQ(messageOf([] { fftLayout({4, 8}, {2}); }),
              "Kompute OpFFT: axes: axis 2 is out of range for a shape of 2 axes (valid: -2 to "
              "1)");
    EXPECT_EQ(messageOf([] { fftLayout({4, 8}, {1, -1}); }),
              "Kompute OpFFT: axes: axis -1 is given twice (as 1); each axis is transformed once");
    EXPECT_EQ(messageOf([] { fftLayout({4, 1}, {1}); }),
              "Kompute OpFFT: axes: every transformed axis of shape {4, 1} with axes {1} has "
              "length 1 (the transform would be the identity)");
    EXPECT_EQ(messageOf([] { fftLayout({2, 3, 4, 5}, {0}); }),
              "Kompute OpFFT: shape: VkFFT transforms at most 3 axes of length > 1 from the "
              "first transformed one on (the axes before it are batches); shape {2, 3, 4, 5} "
              "with axes {0} has 4");
}

// With VKDISPATCH_DEBUG=1 the managers run under the validation layer (synchronization
// validation included): any message it reports fails the test.
class KomputeFft : public ::testing::Test {
protected:
    void TearDown() override {
        for (const auto& error : vkdispatch::takeValidationErrors()) ADD_FAILURE() << error;
    }
};

TEST_F(KomputeFft, ForwardAndInverseMatchNumpysFftAndIfft) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    EXPECT_LT(fftError(mgr, {60}, {}, {0}, false, 1), 1e-5);
    EXPECT_LT(fftError(mgr, {60}, {}, {0}, true, 2), 1e-5);
}

TEST_F(KomputeFft, BatchedLinesAreEachTransformed) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    EXPECT_LT(fftError(mgr, {6, 40}, {-1}, {1}, false, 3), 1e-5);
    EXPECT_LT(fftError(mgr, {2, 3, 16}, {2}, {2}, true, 4), 1e-5);
}

TEST_F(KomputeFft, TwoAndThreeDimensionalTransformsMatchTheDft) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    EXPECT_LT(fftError(mgr, {12, 16}, {}, {0, 1}, false, 5), 1e-5);
    EXPECT_LT(fftError(mgr, {4, 6, 8}, {}, {0, 1, 2}, true, 6), 1e-5);
    // The middle axis is batched over in place: VkFFT omits it.
    EXPECT_LT(fftError(mgr, {4, 6, 8}, {0, -1}, {0, 2}, false, 7), 1e-5);
}

TEST_F(KomputeFft, AStridedAxisIsTransformedAlone) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    EXPECT_LT(fftError(mgr, {16, 5}, {0}, {0}, false, 8), 1e-5);
}

TEST_F(KomputeFft, DoubleTensorsAreTransformedInDoublePrecision) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    auto probe = mgr.tensor({0.0f});
    if (!probe->runtime()->device().info().float_64_support)
        GTEST_SKIP() << "the device has no 64-bit floats";
    const Shape shape = {5, 24};
    const std::vector<double> values = randomDoubles(2 * points(shape), 9);
    auto tensor = mgr.tensorT<double>(values);
    mgr.sequence()
        ->record<kp::OpSyncDevice>({tensor})
        ->record<kp::OpFFT>({tensor}, shape, false, Axes{-1})
        ->record<kp::OpSyncLocal>({tensor})
        ->eval();
    // Far below what single precision reaches (~1e-7).
    EXPECT_LT(relativeError(tensor->vector(), referenceFft(values, shape, {1}, false)), 1e-12);
}

TEST_F(KomputeFft, RecordedBesideADispatchItSeesItsResultOnEveryEval) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    const Shape shape = {3, 32};
    auto tensor = mgr.tensor(std::vector<float>(2 * points(shape)));
    const std::vector<std::shared_ptr<Memory>> params = {tensor};
    auto algorithm =
        mgr.algorithm(params, vkdispatch::test::compileOrFail(kDoublePlusOne, "double"));
    auto sequence = mgr.sequence();
    sequence->record<kp::OpSyncDevice>(params)
        ->record<kp::OpAlgoDispatch>(algorithm)
        ->record<kp::OpFFT>(params, shape, false, Axes{-1})
        ->record<kp::OpSyncLocal>(params);
    for (unsigned seed = 10; seed < 13; ++seed) {
        std::vector<float> values = randomFloats(2 * points(shape), seed);
        tensor->setData(values);
        sequence->eval();
        for (auto& v : values) v = 2 * v + 1;
        EXPECT_LT(relativeError(tensor->vector(), referenceFft(values, shape, {1}, false)), 1e-5)
            << "eval with seed " << seed;
    }
}

TEST_F(KomputeFft, OneOperationTransformsEachTensorInTurn) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    const Shape shape = {20};
    const std::vector<float> a = randomFloats(40, 14), b = randomFloats(40, 15);
    auto ta = mgr.tensor(a), tb = mgr.tensor(b, Memory::MemoryTypes::eHost);
    // ta twice: the second transform reads what the first wrote.
    mgr.sequence()
        ->record<kp::OpSyncDevice>({ta})
        ->record<kp::OpFFT>({ta, tb, ta}, shape)
        ->record<kp::OpSyncLocal>({ta})
        ->eval();
    std::vector<float> once(40);
    const auto first = referenceFft(a, shape, {0}, false);
    for (size_t i = 0; i < first.size(); ++i) {
        once[2 * i] = static_cast<float>(first[i].real());
        once[2 * i + 1] = static_cast<float>(first[i].imag());
    }
    EXPECT_LT(relativeError(ta->vector(), referenceFft(once, shape, {0}, false)), 1e-5);
    // A host tensor is the memory itself: no sync either way.
    EXPECT_LT(relativeError(tb->vector(), referenceFft(b, shape, {0}, false)), 1e-5);
}

TEST_F(KomputeFft, TheManagerKeepsOneBindingPerLayoutAndTensor) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    auto a = mgr.tensor(randomFloats(64, 16)), b = mgr.tensor(randomFloats(64, 17));
    auto& plans = a->runtime()->fft_plans;
    auto& context = *a->runtime()->context;
    const auto layout = fftLayout({32}, {});
    const auto bound = plans.binding(context, layout, a);
    EXPECT_EQ(plans.binding(context, layout, a), bound);  // recorded again: nothing rebuilt
    EXPECT_NE(plans.binding(context, layout, b), bound);  // another buffer
    EXPECT_NE(plans.binding(context, fftLayout({2, 16}, {}), a), bound);  // another plan
    a->destroy();
    auto c = mgr.tensor(randomFloats(64, 18));  // may reuse a's buffer handle
    EXPECT_NE(plans.binding(context, layout, c), bound);
}

TEST_F(KomputeFft, ErrorsNameTheTensorTheExpectedAndTheActualValue) {
    VKD_REQUIRE_DEVICE();
    vkdispatch::test::OwnVulkan own;  // another device: a Manager over the program's own
    ASSERT_NE(own.device, VK_NULL_HANDLE);
    auto other = own.manager();
    kp::Manager mgr;
    auto good = mgr.tensor(randomFloats(32, 19));
    const Shape shape = {16};
    EXPECT_EQ(messageOf([&] { kp::OpFFT({good, mgr.tensor(randomFloats(30, 20))}, shape); }),
              "Kompute OpFFT: tensors[1] holds 30 values; shape {16} needs 32 (a real and an "
              "imaginary part per complex value)");
    EXPECT_EQ(messageOf([&] { kp::OpFFT({mgr.tensorT<int32_t>(32)}, shape); }),
              "Kompute OpFFT: tensors[0] is of type eInt; expected eFloat (complex values as "
              "float pairs) or eDouble (as double pairs)");
    EXPECT_EQ(messageOf([&] { kp::OpFFT({mgr.image(4, 4, 2)}, shape); }),
              "Kompute OpFFT: tensors[0] is an image; VkFFT transforms tensors");
    EXPECT_EQ(messageOf([&] { kp::OpFFT({good, other->tensor(randomFloats(32, 21))}, shape); }),
              "Kompute OpFFT: tensors[1] was made on another device than tensors[0]");
    EXPECT_EQ(messageOf([&] { kp::OpFFT({good, nullptr}, shape); }),
              "Kompute OpFFT: tensors[1] is null");
    EXPECT_EQ(messageOf([&] { kp::OpFFT(std::vector<std::shared_ptr<Memory>>{}, shape); }),
              "Kompute OpFFT: tensors: at least one tensor, got none");
    auto gone = mgr.tensor(randomFloats(32, 22));
    gone->destroy();
    EXPECT_EQ(messageOf([&] { kp::OpFFT({gone}, shape); }),
              "Kompute OpFFT: tensors[0] has been destroyed");
}

TEST_F(KomputeFft, ATensorDestroyedAfterwardsIsRefusedAtRecordAndAtEval) {
    VKD_REQUIRE_DEVICE();
    kp::Manager mgr;
    auto tensor = mgr.tensor(randomFloats(32, 23));
    auto op = std::make_shared<kp::OpFFT>(std::vector<std::shared_ptr<Memory>>{tensor},
                                          Shape{16});
    auto recorded = mgr.sequence()->record(op);
    tensor->destroy();
    EXPECT_EQ(messageOf([&] { mgr.sequence()->record(op); }),
              "Kompute OpFFT: tensors[0] has been destroyed since the operation was made: it "
              "cannot be recorded");
    EXPECT_EQ(messageOf([&] { recorded->eval(); }),
              "Kompute Sequence cannot run its commands: the OpFFT recorded into them uses a "
              "tensor (memory object 0) that has been destroyed since; clear() the sequence and "
              "record operations on live objects");
}

TEST_F(KomputeFft, AnOperationOutlivingItsManagerFreesVkfftsObjectsBeforeTheDevice) {
    VKD_REQUIRE_DEVICE();
    std::shared_ptr<kp::OpFFT> op;
    {
        kp::Manager mgr;
        auto tensor = mgr.tensor(randomFloats(32, 24));
        op = std::make_shared<kp::OpFFT>(std::vector<std::shared_ptr<Memory>>{tensor},
                                         Shape{16});
        mgr.destroy();  // destroys the tensor too
    }
    // The device goes with the operation's last hold on it: under the validation layer, a
    // VkFFT object still alive then is reported (and without the hold, freed memory is used).
    op.reset();
}
