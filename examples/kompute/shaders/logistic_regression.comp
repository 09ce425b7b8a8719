#version 450
// One sample i per invocation (logistic_regression.cpp and logistic_regression.py):
// p = sigmoid(w . x_i + bias); writes (p - y_i) * (x_i, 1) / m and the loss / m.
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
