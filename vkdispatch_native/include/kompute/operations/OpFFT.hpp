#pragma once
// kp::OpFFT: VkFFT's complex-to-complex transform, in place, of tensors that hold complex values
// interleaved (real, imaginary): float tensors (complex64) or double tensors (complex128),
// recorded into the sequence's command buffer like the other operations and ordered after the
// transfers and dispatches recorded before it.
//
// `shape` is the complex array's shape in numpy's order (the last axis contiguous) and `axes`
// the transformed axes (negative ones count from the end; empty: all), so a tensor ends up as
// numpy.fft.fftn(x.reshape(shape), axes=axes), or ifftn (dividing by the product of the
// transformed lengths) when `inverse`. The axes before the first transformed one are batches:
// `count` transforms of length n are shape {count, n}, axes {-1}. VkFFT takes at most three axes
// of length > 1 from the first transformed one on.
//
// The constructor plans the transform (VkFFT compiles its kernels, the slow step) and binds it
// to each tensor. The Manager remembers plans by shape, axes and precision, and bindings by
// tensor, so more OpFFT operations of that shape, or on that tensor, build nothing again.
#include <cstdint>
#include <memory>
#include <vector>

#include "kompute/Memory.hpp"
#include "kompute/TensorList.hpp"
#include "kompute/operations/OpBase.hpp"

namespace vkdispatch {
class VkfftBinding;
}

namespace kp {

class OpFFT : public OpBase {
public:
    /// Throws vkdispatch::InvalidArgumentError (a std::runtime_error) naming the argument: an
    /// empty `tensors`, an entry that is null, an image, destroyed, of a data type other than
    /// eFloat or eDouble (eDouble on a device without 64-bit floats), made on another device
    /// than the first or not of 2 * (product of `shape`) elements; a malformed `shape` or `axes`
    /// (see above), or one VkFFT cannot plan.
    OpFFT(const std::vector<std::shared_ptr<Memory>>& tensors, const std::vector<uint32_t>& shape,
          bool inverse = false, const std::vector<int32_t>& axes = {});
    /// The same over Kompute 0.9's list of tensors (see TensorList.hpp).
    template <typename List, IfTypedList<List> = 0>
    OpFFT(const List& tensors, const std::vector<uint32_t>& shape, bool inverse = false,
          const std::vector<int32_t>& axes = {})
        : OpFFT(memoryList(tensors), shape, inverse, axes) {}

    /// Throws std::runtime_error for a tensor destroyed since the operation was made.
    void record(const vk::CommandBuffer& command_buffer) override;
    OpUses uses() const override;

private:
    // Held, not reached through the tensors: a destroyed tensor (or Manager) lets go of it, and
    // the bindings' VkFFT applications must go before the device does.
    std::shared_ptr<detail::Runtime> m_runtime;
    std::vector<std::shared_ptr<Memory>> m_tensors;
    std::vector<std::shared_ptr<vkdispatch::VkfftBinding>> m_bindings;  // per tensor
    int m_direction;  // VkFFT's: -1 forward, 1 inverse
};

}  // namespace kp
