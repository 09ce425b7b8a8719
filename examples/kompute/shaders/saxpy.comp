#version 450
// y = a * x + y, one invocation per element, with a given as a push constant.
layout(local_size_x = 1) in;
layout(push_constant) uniform Push { float a; };
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    y[i] = a * x[i] + y[i];
}
