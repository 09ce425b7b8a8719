#pragma once
// kp::OpAlgoDispatch: a barrier on the algorithm's memory objects (earlier transfers -> this
// shader), then the dispatch. Push constants given here replace the algorithm's (so later
// dispatches without values reuse them) and are captured when the operation is recorded.
#include <memory>
#include <vector>

#include "kompute/Algorithm.hpp"
#include "kompute/operations/OpBase.hpp"

namespace kp {

class OpAlgoDispatch : public OpBase {
public:
    template <typename T = float>
    explicit OpAlgoDispatch(const std::shared_ptr<Algorithm>& algorithm,
                            const std::vector<T>& push_constants = {})
        : m_algorithm(algorithm),
          m_push(push_constants.size() * sizeof(T)),
          m_push_size(sizeof(T)) {
        if (!m_push.empty()) std::memcpy(m_push.data(), push_constants.data(), m_push.size());
    }
    void record(const vk::CommandBuffer& command_buffer) override;
    OpUses uses() const override;

protected:
    std::shared_ptr<Algorithm> m_algorithm;

private:
    std::vector<uint8_t> m_push;  // empty: the algorithm's own push constants
    uint32_t m_push_size;         // bytes per value
};

}  // namespace kp
