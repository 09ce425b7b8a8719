"""Logistic regression trained by gradient descent with vkdispatch's ``kp`` module.

The GPU computes each sample's gradient and loss in one dispatch; the host sums them and steps
the weights by editing the weight tensor's view between evaluations of one recorded sequence
(the upload happens at its OpSyncDevice). Run: python examples/kompute/logistic_regression.py
"""
import numpy as np

import kp

# Per sample i: p = sigmoid(w . x_i + bias); writes (p - y_i) * (x_i, 1) / m and the loss / m.
SHADER = """#version 450
layout(local_size_x = 1) in;
layout(constant_id = 0) const float samples = 1.0;
layout(set = 0, binding = 0) buffer X { vec2 x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
layout(set = 0, binding = 2) buffer W { float w[]; };   // w0, w1, bias
layout(set = 0, binding = 3) buffer G { vec4 g[]; };    // dw0, dw1, dbias, loss
void main() {
    uint i = gl_GlobalInvocationID.x;
    float p = 1.0 / (1.0 + exp(-(dot(vec2(w[0], w[1]), x[i]) + w[2])));
    float error = (p - y[i]) / samples;
    float loss = -(y[i] * log(p) + (1.0 - y[i]) * log(1.0 - p)) / samples;
    g[i] = vec4(error * x[i], error, loss);
}
"""


def make_data(samples: int, seed: int = 0):
    """Points in the unit square, labelled 1 above the line x0 + x1 = 1."""
    x = np.random.default_rng(seed).random((samples, 2), dtype=np.float32)
    return x, (x.sum(axis=1) > 1.0).astype(np.float32)


def train(x: np.ndarray, y: np.ndarray, iterations: int, learning_rate: float):
    """Weights (w0, w1, bias) and the loss of each iteration."""
    samples = len(y)
    mgr = kp.Manager()
    tensor_x, tensor_y = mgr.tensor(x), mgr.tensor(y)
    weights, gradients = mgr.tensor(np.zeros(3)), mgr.tensor(np.zeros(4 * samples))
    algorithm = mgr.algorithm([tensor_x, tensor_y, weights, gradients],
                              kp.Shader.compile_source(SHADER), spec_consts=[samples])
    mgr.sequence().eval(kp.OpSyncDevice([tensor_x, tensor_y]))
    step = (mgr.sequence()
            .record(kp.OpSyncDevice([weights]))
            .record(kp.OpAlgoDispatch(algorithm))
            .record(kp.OpSyncLocal([gradients])))
    losses = []
    for _ in range(iterations):
        step.eval()
        total = gradients.data().reshape(samples, 4).sum(axis=0, dtype=np.float64)
        weights.data()[:] -= np.float32(learning_rate) * total[:3].astype(np.float32)
        losses.append(total[3])
    return weights.data().copy(), np.array(losses)


if __name__ == "__main__":
    x, y = make_data(1000)
    w, losses = train(x, y, iterations=200, learning_rate=2.0)
    predicted = (x @ w[:2] + w[2]) > 0
    print(f"weights {w[:2]}, bias {w[2]:.3f}; loss {losses[0]:.3f} -> {losses[-1]:.3f}; "
          f"accuracy {np.mean(predicted == (y > 0.5)):.1%}")
