// Logistic regression trained by gradient descent on vkdispatch's kp API (the C++ twin of
// logistic_regression.py): the GPU computes each sample's gradient and loss, the host sums them
// and steps the weights through the weight tensor's host view between evaluations of one
// recorded sequence. Checks the result against the same descent in double precision on the CPU
// and exits with status 1 if they differ or the points are not separated.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <kompute/Kompute.hpp>

#include "example_shader.hpp"

constexpr int kSamples = 1000;
constexpr int kIterations = 200;
constexpr float kLearningRate = 2.0f;

struct Data {
    std::vector<float> x;  // x0, x1 per sample
    std::vector<float> y;  // 1 above the line x0 + x1 = 1
};

static Data makeData() {
    std::mt19937 generator(7);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    Data data;
    for (int i = 0; i < kSamples; ++i) {
        const float a = uniform(generator), b = uniform(generator);
        data.x.insert(data.x.end(), {a, b});
        data.y.push_back(a + b > 1.0f ? 1.0f : 0.0f);
    }
    return data;
}

static std::vector<float> trainOnGpu(const Data& data) {
    kp::Manager mgr;
    auto x = mgr.tensor(data.x);
    auto y = mgr.tensor(data.y);
    auto weights = mgr.tensor({0.0f, 0.0f, 0.0f});
    auto gradients = mgr.tensorT<float>(4 * kSamples);
    const auto spirv = kp::Shader::compileSource(exampleShader("logistic_regression.comp"));
    auto algorithm = mgr.algorithm({x, y, weights, gradients}, spirv, {},
                                   std::vector<float>{float(kSamples)});
    mgr.sequence()->eval<kp::OpSyncDevice>({x, y});
    auto step = mgr.sequence()
                    ->record<kp::OpSyncDevice>({weights})
                    ->record<kp::OpAlgoDispatch>(algorithm)
                    ->record<kp::OpSyncLocal>({gradients});
    for (int iteration = 0; iteration < kIterations; ++iteration) {
        step->eval();
        double total[3] = {0, 0, 0};
        for (int i = 0; i < kSamples; ++i)
            for (int k = 0; k < 3; ++k) total[k] += (*gradients)[4 * i + k];
        for (int k = 0; k < 3; ++k) (*weights)[k] -= kLearningRate * float(total[k]);
    }
    return weights->vector();
}

static std::vector<double> trainOnCpu(const Data& data) {
    std::vector<double> w = {0, 0, 0};
    for (int iteration = 0; iteration < kIterations; ++iteration) {
        double total[3] = {0, 0, 0};
        for (int i = 0; i < kSamples; ++i) {
            const double x0 = data.x[2 * i], x1 = data.x[2 * i + 1];
            const double p = 1.0 / (1.0 + std::exp(-(w[0] * x0 + w[1] * x1 + w[2])));
            const double error = (p - data.y[i]) / kSamples;
            total[0] += error * x0;
            total[1] += error * x1;
            total[2] += error;
        }
        for (int k = 0; k < 3; ++k) w[k] -= kLearningRate * total[k];
    }
    return w;
}

int main() {
    const Data data = makeData();
    const std::vector<float> gpu = trainOnGpu(data);
    const std::vector<double> cpu = trainOnCpu(data);
    int correct = 0;
    for (int i = 0; i < kSamples; ++i) {
        const float z = gpu[0] * data.x[2 * i] + gpu[1] * data.x[2 * i + 1] + gpu[2];
        correct += (z > 0) == (data.y[i] > 0.5f);
    }
    bool agrees = true;
    for (int k = 0; k < 3; ++k) agrees &= std::fabs(gpu[k] - cpu[k]) <= 1e-3 * std::fabs(cpu[k]);
    std::printf("GPU weights %.4f %.4f bias %.4f; CPU (double) %.4f %.4f bias %.4f; "
                "accuracy %.1f%%\n", gpu[0], gpu[1], gpu[2], cpu[0], cpu[1], cpu[2],
                100.0 * correct / kSamples);
    return agrees && correct >= kSamples * 95 / 100 ? 0 : 1;
}
