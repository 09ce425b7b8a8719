"""The example of Kompute's early package overview (named sequences, begin/end and the
record_* helpers), running unchanged on vkdispatch's ``kp`` module with a shader of its own.

Run: python examples/kompute/package_overview.py
"""
import kp

SHADER = """#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { float a[]; };
layout(set = 0, binding = 1) buffer B { float b[]; };
layout(set = 0, binding = 2) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = a[i] * b[i] + a[i];
}
"""


def run():
    mgr = kp.Manager()
    tensor_in_a = mgr.build_tensor([2, 2, 2])
    tensor_in_b = mgr.build_tensor([1, 2, 3])
    tensor_out = mgr.build_tensor([0, 0, 0])

    seq = mgr.create_sequence("op")
    seq.begin()
    seq.record_tensor_sync_device([tensor_in_a, tensor_in_b, tensor_out])
    seq.record_algo_data([tensor_in_a, tensor_in_b, tensor_out], SHADER)
    seq.record_tensor_sync_local([tensor_out])
    seq.end()
    seq.eval()

    tensor_copy = mgr.build_tensor([0, 0, 0])
    mgr.create_sequence("copy").record_tensor_copy([tensor_out, tensor_copy]).eval()
    return tensor_out.data().tolist(), tensor_copy.data().tolist()


if __name__ == "__main__":
    out, copy = run()
    print("out =", out, "copy =", copy)  # [4.0, 6.0, 8.0] twice
