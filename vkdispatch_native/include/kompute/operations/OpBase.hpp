#pragma once
// kp::OpBase: what a Sequence records. record() writes commands into the sequence's command
// buffer when the operation is recorded; preEval() runs just before each submission and
// postEval() after the submission finished. Users subclass it for operations of their own.
#include "kompute/Core.hpp"

namespace kp {

class OpBase {
public:
    virtual ~OpBase() = default;
    virtual void record(const vk::CommandBuffer& command_buffer) = 0;
    virtual void preEval(const vk::CommandBuffer& /*command_buffer*/) {}
    virtual void postEval(const vk::CommandBuffer& /*command_buffer*/) {}
};

}  // namespace kp
