"""The Python Kompute examples in examples/kompute/ run and compute what numpy computes."""
from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import loaded_example


def load(name: str):
    with loaded_example(f"kompute/{name}.py") as module:
        return module


@pytest.fixture(autouse=True)
def _device(mgr):
    """The examples make their own managers; this only skips them without a device."""


def test_array_multiply(rng):
    a, b = rng.standard_normal(333), rng.standard_normal(333)
    np.testing.assert_array_equal(load("array_multiply").multiply(a, b),
                                  a.astype(np.float32) * b.astype(np.float32))


def numpy_descent(x, y, iterations, learning_rate):
    """The example's gradient descent in float64 on the CPU."""
    w = np.zeros(3)
    features = np.column_stack([x.astype(np.float64), np.ones(len(y))])
    losses = []
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-(features @ w)))
        losses.append(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
        w -= learning_rate * features.T @ (p - y) / len(y)
    return w, np.array(losses)


def test_logistic_regression_matches_numpy():
    example = load("logistic_regression")
    x, y = example.make_data(500, seed=3)
    w, losses = example.train(x, y, iterations=60, learning_rate=2.0)
    expected_w, expected_losses = numpy_descent(x, y, 60, 2.0)
    np.testing.assert_allclose(w, expected_w, rtol=2e-3)
    np.testing.assert_allclose(losses, expected_losses, rtol=2e-3)
    assert np.mean(((x @ w[:2] + w[2]) > 0) == (y > 0.5)) > 0.9


def overview_in_numpy():
    """The package overview's ten rounds of t3 = t1 * t2, t1 = t3 + t2, in float32."""
    t1, t2 = np.float32([2, 2, 2]), np.float32([1, 2, 3])
    for _ in range(10):
        t3 = t1 * t2
        t1 = t3 + t2
    return t1, t2, t3


def test_package_overview_prints_kompute_numbers(capsys):
    returned = load("package_overview").run()
    expected = overview_in_numpy()
    for data, values in zip(returned, expected):
        np.testing.assert_array_equal(data, values)
    printed = [float(v) for v in re.findall(r"[-+0-9.e]+", capsys.readouterr().out)]
    np.testing.assert_allclose(printed, np.concatenate(expected), rtol=5e-5)
