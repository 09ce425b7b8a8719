#pragma once
// kp::OpBase: what a Sequence records. record() writes commands into the sequence's command
// buffer when the operation is recorded; preEval() runs just before each submission and
// postEval() after the submission finished. Users subclass it for operations of their own.
#include <memory>
#include <vector>

#include "kompute/Algorithm.hpp"
#include "kompute/Core.hpp"
#include "kompute/Memory.hpp"

namespace kp {

/// The objects whose Vulkan resources an operation's recorded commands use (see OpBase::uses).
struct OpUses {
    const char* operation = "user operation";  // its name in error messages
    std::vector<std::shared_ptr<Memory>> mem_objects;
    std::shared_ptr<Algorithm> algorithm;  // null when it dispatches none
};

class OpBase {
public:
    virtual ~OpBase() = default;
    virtual void record(const vk::CommandBuffer& command_buffer) = 0;
    virtual void preEval(const vk::CommandBuffer& /*command_buffer*/) {}
    virtual void postEval(const vk::CommandBuffer& /*command_buffer*/) {}
    /// What record() wrote commands for. destroy() frees an object's Vulkan resources, as in
    /// Kompute, so a command buffer that used them must never run again: before it submits, or
    /// records more into, a buffer, a Sequence checks these objects are alive (and the
    /// algorithm not rebuilt since) and throws instead. Kompute has no such call; a user
    /// operation that records objects of its own overrides it to be covered too.
    virtual OpUses uses() const { return {}; }
};

}  // namespace kp
