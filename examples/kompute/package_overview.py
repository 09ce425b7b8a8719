"""The program of Kompute 0.5's Python package overview ("Kompute Operation Capabilities"),
running unchanged on vkdispatch's ``kp``: three tensors from ``build_tensor`` (which uploads
their data), one named sequence per shader recorded between ``begin()`` and ``end()`` and
evaluated ten times in turn, then the results downloaded and printed.

The overview imported its two shaders from a module it did not show (and recorded a third name,
``add_shader``, into the multiplying sequence); here they are GLSL source, which
``record_algo_data`` compiles. Each round computes ``t3 = t1 * t2``, then ``t1 = t3 + t2``.

Run: python examples/kompute/package_overview.py
"""
from kp import Manager

_HEAD = """#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { float a[]; };
layout(set = 0, binding = 1) buffer B { float b[]; };
layout(set = 0, binding = 2) buffer O { float o[]; };
"""
mult_shader = _HEAD + "void main() { uint i = gl_GlobalInvocationID.x; o[i] = a[i] * b[i]; }"
sum_shader = _HEAD + "void main() { uint i = gl_GlobalInvocationID.x; o[i] = a[i] + b[i]; }"


def run():
    """The overview's program; returns the data it printed."""
    mgr = Manager()

    t1 = mgr.build_tensor([2, 2, 2])
    t2 = mgr.build_tensor([1, 2, 3])
    t3 = mgr.build_tensor([1, 2, 3])

    sq_mult = mgr.create_sequence("SQ_MULT")
    sq_sum = mgr.create_sequence("SQ_SUM")
    sq_sync = mgr.create_sequence("SQ_SYNC")

    sq_mult.begin()
    sq_mult.record_algo_data([t1, t2, t3], mult_shader)
    sq_mult.end()

    sq_sum.begin()
    sq_sum.record_algo_data([t3, t2, t1], sum_shader)
    sq_sum.end()

    sq_sync.begin()
    sq_sync.record_tensor_sync_local([t1, t3])
    sq_sync.end()

    for i in range(10):
        sq_mult.eval()
        sq_sum.eval()

    sq_sync.eval()

    print(t1.data(), t2.data(), t3.data())
    return t1.data(), t2.data(), t3.data()


if __name__ == "__main__":
    run()  # [1.2000e+01 4.0940e+03 2.0667e+05] [1. 2. 3.] [1.10000e+01 4.09200e+03 2.06667e+05]
