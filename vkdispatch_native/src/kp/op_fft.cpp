#include "kompute/operations/OpFFT.hpp"

#include <stdexcept>
#include <string>

#include "fft_layout.hpp"
#include "kompute/Tensor.hpp"
#include "runtime.hpp"
#include "vkdispatch/errors.hpp"
#include "vkdispatch/vkfft_plan.hpp"

namespace kp {
namespace {

using vkdispatch::VkfftPrecision;
using vkdispatch::InvalidArgumentError;

std::string named(size_t index) {
    return "Kompute OpFFT: tensors[" + std::to_string(index) + "]";
}

// The precision of the complex values a tensor holds, from its data type.
VkfftPrecision precisionOf(const Memory& tensor, size_t index) {
    switch (tensor.dataType()) {
        case Memory::DataTypes::eFloat: return VkfftPrecision::Single;
        case Memory::DataTypes::eDouble:
            if (!tensor.runtime()->device().info().float_64_support)
                throw InvalidArgumentError(named(index) +
                                           " is of type eDouble, but the device has no 64-bit "
                                           "floats; use eFloat");
            return VkfftPrecision::Double;
        default: break;
    }
    throw InvalidArgumentError(named(index) + " is of type " + toString(tensor.dataType()) +
                               "; expected eFloat (complex values as float pairs) or eDouble "
                               "(as double pairs)");
}

// `memory` as a live tensor of the device of `runtime` (null: any) holding `points` complex
// values, else an error naming it.
std::shared_ptr<Tensor> checkedTensor(const std::shared_ptr<Memory>& memory, size_t index,
                                      const std::shared_ptr<detail::Runtime>& runtime,
                                      uint64_t points, const std::vector<uint32_t>& shape) {
    if (!memory) throw InvalidArgumentError(named(index) + " is null");
    if (memory->type() != Memory::Type::eTensor)
        throw InvalidArgumentError(named(index) + " is an image; VkFFT transforms tensors");
    if (!memory->isInit()) throw InvalidArgumentError(named(index) + " has been destroyed");
    if (runtime && !memory->belongsTo(runtime))
        throw InvalidArgumentError(named(index) + " was made on another device than tensors[0]");
    if (memory->size() != 2 * points)
        throw InvalidArgumentError(named(index) + " holds " + std::to_string(memory->size()) +
                                   " values; shape " + detail::listText(shape) + " needs " +
                                   std::to_string(2 * points) +
                                   " (a real and an imaginary part per complex value)");
    return std::static_pointer_cast<Tensor>(memory);
}

}  // namespace

OpFFT::OpFFT(const std::vector<std::shared_ptr<Memory>>& tensors,
             const std::vector<uint32_t>& shape, bool inverse, const std::vector<int32_t>& axes)
    : m_tensors(tensors), m_direction(inverse ? 1 : -1) {
    if (tensors.empty())
        throw InvalidArgumentError("Kompute OpFFT: tensors: at least one tensor, got none");
    const detail::FftLayout layout = detail::fftLayout(shape, axes);
    for (size_t i = 0; i < tensors.size(); ++i) {
        const auto tensor = checkedTensor(tensors[i], i, m_runtime, layout.points(), shape);
        if (i == 0) m_runtime = tensor->runtime();
        detail::FftLayout typed = layout;
        typed.precision = precisionOf(*tensor, i);
        m_bindings.push_back(m_runtime->fft_plans.binding(*m_runtime->context, typed, tensor));
    }
}

OpUses OpFFT::uses() const { return {"OpFFT", m_tensors, nullptr}; }

void OpFFT::record(const vk::CommandBuffer& cb) {
    // A global barrier, not one on each tensor's buffer: VkFFT's own buffers (the scratch of
    // sizes it splits into passes) are then ordered after an earlier transform too, whatever
    // barriers VkFFT does or does not record at the end of its own commands.
    const vk::MemoryBarrier after_writes(
        vk::AccessFlagBits::eTransferWrite | vk::AccessFlagBits::eShaderWrite,
        vk::AccessFlagBits::eShaderRead | vk::AccessFlagBits::eShaderWrite);
    for (size_t i = 0; i < m_tensors.size(); ++i) {
        if (!m_tensors[i]->isInit())
            throw std::runtime_error(named(i) + " has been destroyed since the operation was "
                                                "made: it cannot be recorded");
        cb.pipelineBarrier(
            vk::PipelineStageFlagBits::eTransfer | vk::PipelineStageFlagBits::eComputeShader,
            vk::PipelineStageFlagBits::eComputeShader, {}, after_writes, nullptr, nullptr);
        // OpBase::record is not told the sequence's queue, and VkFFT records for any queue of
        // the device: queue 0's application serves all. (Two queues using one binding at once
        // would be two in-place transforms of one tensor at once, a race of the caller's.)
        m_bindings[i]->append(0, static_cast<VkCommandBuffer>(cb), m_direction);
    }
}

}  // namespace kp
