"""Kompute's array-multiply example on vkdispatch's ``kp`` module: out = a * b on the GPU.

Run: python examples/kompute/array_multiply.py
"""
from pathlib import Path

import numpy as np

import kp

# The GLSL, shared with the C++ twin (array_multiply.cpp).
SHADER = (Path(__file__).parent / "shaders" / "array_multiply.comp").read_text()


def multiply(a, b) -> np.ndarray:
    mgr = kp.Manager()
    tensor_a, tensor_b = mgr.tensor(a), mgr.tensor(b)
    tensor_out = mgr.tensor(np.zeros(len(a)))
    params = [tensor_a, tensor_b, tensor_out]
    algorithm = mgr.algorithm(params, kp.Shader.compile_source(SHADER))  # one workgroup each
    (mgr.sequence()
        .record(kp.OpSyncDevice(params))
        .record(kp.OpAlgoDispatch(algorithm))
        .record(kp.OpSyncLocal([tensor_out]))
        .eval())
    return tensor_out.data().copy()  # a copy: the view's memory goes with the manager


if __name__ == "__main__":
    result = multiply([2, 4, 6], [0, 1, 2])
    print("out =", result)  # [ 0.  4. 12.]
