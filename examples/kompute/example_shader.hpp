// The GLSL of a C++ Kompute example, read from examples/kompute/shaders/ (the folder is
// KP_EXAMPLE_SHADERS, defined by the CMake file that builds the example): the example's Python
// twin reads the same file, so the two cannot drift apart.
#pragma once

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

inline std::string exampleShader(const std::string& name) {
    const std::string path = std::string(KP_EXAMPLE_SHADERS) + "/" + name;
    std::ifstream file(path);
    if (!file) throw std::runtime_error("cannot read the example's shader " + path);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}
