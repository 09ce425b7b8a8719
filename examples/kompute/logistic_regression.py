"""Logistic regression trained by gradient descent with vkdispatch's ``kp`` module.

The GPU computes each sample's gradient and loss in one dispatch; the host sums them and steps
the weights by editing the weight tensor's view between evaluations of one recorded sequence
(the upload happens at its OpSyncDevice). Run: python examples/kompute/logistic_regression.py
"""
from pathlib import Path

import numpy as np

import kp

# Per sample i: the gradient and loss terms (shared with the C++ twin, logistic_regression.cpp).
SHADER = (Path(__file__).parent / "shaders" / "logistic_regression.comp").read_text()


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
