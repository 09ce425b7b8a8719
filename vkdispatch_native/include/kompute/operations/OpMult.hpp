#pragma once
// kp::OpMult: out = lhs * rhs elementwise on three float tensors. The constructor rebuilds the
// given algorithm with a built-in multiply shader (one invocation per element), then it records
// like OpAlgoDispatch.
#include <memory>
#include <vector>

#include "kompute/operations/OpAlgoDispatch.hpp"

namespace kp {

class OpMult : public OpAlgoDispatch {
public:
    /// `mem_objects` = {lhs, rhs, out}; std::runtime_error for another count.
    OpMult(const std::vector<std::shared_ptr<Memory>>& mem_objects,
           const std::shared_ptr<Algorithm>& algorithm);
    /// The same over Kompute 0.9's list of tensors (see TensorList.hpp).
    template <typename List, IfTypedList<List> = 0>
    OpMult(const List& tensors, const std::shared_ptr<Algorithm>& algorithm)
        : OpMult(memoryList(tensors), algorithm) {}
    OpUses uses() const override;
};

}  // namespace kp
