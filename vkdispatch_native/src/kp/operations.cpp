// The built-in Kompute operations (one small class each; see kompute/operations/).
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kompute/operations/OpAlgoDispatch.hpp"
#include "kompute/operations/OpCopy.hpp"
#include "kompute/operations/OpMemoryBarrier.hpp"
#include "kompute/operations/OpSyncDevice.hpp"
#include "kompute/operations/OpSyncLocal.hpp"

namespace kp {
namespace {

// Kompute's barriers name single bits; ours cover every earlier writer, so that a dispatch after a
// dispatch, or a sync after a user's transfer, is ordered too (Kompute leaves those hazards).
template <typename Bits>
Bits both(Bits a, Bits b) {
    using Raw = std::underlying_type_t<Bits>;
    return static_cast<Bits>(static_cast<Raw>(a) | static_cast<Raw>(b));
}
const auto kAnyWrite = both(vk::AccessFlagBits::eTransferWrite, vk::AccessFlagBits::eShaderWrite);
const auto kWriters =
    both(vk::PipelineStageFlagBits::eTransfer, vk::PipelineStageFlagBits::eComputeShader);

// Orders the primary resource after every earlier transfer or shader write (and, as an execution
// dependency, after earlier reads) before an access of `dst_access` at `dst_stage`.
void afterEarlierWork(const vk::CommandBuffer& cb, Memory& memory, vk::AccessFlagBits dst_access,
                      vk::PipelineStageFlagBits dst_stage) {
    memory.recordPrimaryMemoryBarrier(cb, kAnyWrite, dst_access, kWriters, dst_stage);
}

// The same for the staging resource, which only transfers touch.
void stagingAfterEarlierTransfers(const vk::CommandBuffer& cb, Memory& memory,
                                  vk::AccessFlagBits dst_access) {
    memory.recordStagingMemoryBarrier(cb, vk::AccessFlagBits::eTransferWrite, dst_access,
                                      vk::PipelineStageFlagBits::eTransfer,
                                      vk::PipelineStageFlagBits::eTransfer);
}

std::vector<std::shared_ptr<Memory>> atLeast(const std::vector<std::shared_ptr<Memory>>& objects,
                                             size_t count, const char* operation) {
    if (objects.size() < count)
        throw std::runtime_error(std::string("Kompute ") + operation + " called with less than " +
                                 std::to_string(count) + " memory object" +
                                 (count > 1 ? "s" : ""));
    for (const auto& memory : objects)
        if (!memory) throw std::runtime_error(std::string("Kompute ") + operation +
                                              " was given a null memory object");
    return objects;
}

}  // namespace

OpSyncDevice::OpSyncDevice(const std::vector<std::shared_ptr<Memory>>& mem_objects)
    : m_mem_objects(atLeast(mem_objects, 1, "OpSyncDevice")) {}

OpUses OpSyncDevice::uses() const { return {"OpSyncDevice", m_mem_objects, nullptr}; }

void OpSyncDevice::record(const vk::CommandBuffer& cb) {
    for (const auto& memory : m_mem_objects) {
        if (memory->memoryType() != Memory::MemoryTypes::eDevice) continue;
        stagingAfterEarlierTransfers(cb, *memory, vk::AccessFlagBits::eTransferRead);
        afterEarlierWork(cb, *memory, vk::AccessFlagBits::eTransferWrite,
                         vk::PipelineStageFlagBits::eTransfer);
        memory->recordCopyFromStagingToDevice(cb);
    }
}

OpSyncLocal::OpSyncLocal(const std::vector<std::shared_ptr<Memory>>& mem_objects)
    : m_mem_objects(atLeast(mem_objects, 1, "OpSyncLocal")) {}

OpUses OpSyncLocal::uses() const { return {"OpSyncLocal", m_mem_objects, nullptr}; }

void OpSyncLocal::record(const vk::CommandBuffer& cb) {
    for (const auto& memory : m_mem_objects) {
        if (memory->memoryType() != Memory::MemoryTypes::eDevice) continue;
        afterEarlierWork(cb, *memory, vk::AccessFlagBits::eTransferRead,
                         vk::PipelineStageFlagBits::eTransfer);
        stagingAfterEarlierTransfers(cb, *memory, vk::AccessFlagBits::eTransferWrite);
        memory->recordCopyFromDeviceToStaging(cb);
        memory->recordStagingMemoryBarrier(cb, vk::AccessFlagBits::eTransferWrite,
                                           vk::AccessFlagBits::eHostRead,
                                           vk::PipelineStageFlagBits::eTransfer,
                                           vk::PipelineStageFlagBits::eHost);
    }
}

OpCopy::OpCopy(const std::vector<std::shared_ptr<Memory>>& mem_objects)
    : m_mem_objects(atLeast(mem_objects, 2, "OpCopy")) {}

OpUses OpCopy::uses() const { return {"OpCopy", m_mem_objects, nullptr}; }

void OpCopy::record(const vk::CommandBuffer& cb) {
    afterEarlierWork(cb, *m_mem_objects[0], vk::AccessFlagBits::eTransferRead,
                     vk::PipelineStageFlagBits::eTransfer);
    for (size_t i = 1; i < m_mem_objects.size(); ++i) {
        // A copy onto the source itself leaves it as it is (and overlapping regions are
        // invalid usage: VUID-vkCmdCopyBuffer-pRegions-00117).
        if (m_mem_objects[i] == m_mem_objects[0]) continue;
        afterEarlierWork(cb, *m_mem_objects[i], vk::AccessFlagBits::eTransferWrite,
                         vk::PipelineStageFlagBits::eTransfer);
        m_mem_objects[i]->recordCopyFrom(cb, m_mem_objects[0]);
    }
}

void OpCopy::postEval(const vk::CommandBuffer&) {
    const auto& source = m_mem_objects[0];
    if (source->memoryType() == Memory::MemoryTypes::eStorage || !source->isInit()) return;
    for (size_t i = 1; i < m_mem_objects.size(); ++i) {
        const auto& target = m_mem_objects[i];
        if (target == source || target->memoryType() == Memory::MemoryTypes::eStorage ||
            !target->isInit())
            continue;
        std::memcpy(target->rawData(), source->rawData(), source->memorySize());
    }
}

void OpAlgoDispatch::record(const vk::CommandBuffer& cb) {
    if (!m_algorithm) throw std::runtime_error("Kompute OpAlgoDispatch was given no algorithm");
    for (const auto& memory : m_algorithm->getMemObjects())
        afterEarlierWork(cb, *memory,
                         both(vk::AccessFlagBits::eShaderRead, vk::AccessFlagBits::eShaderWrite),
                         vk::PipelineStageFlagBits::eComputeShader);
    if (!m_push.empty())
        m_algorithm->setPushConstants(m_push.data(),
                                      static_cast<uint32_t>(m_push.size() / m_push_size),
                                      m_push_size);
    m_algorithm->recordBindCore(cb);
    m_algorithm->recordBindPush(cb);
    m_algorithm->recordDispatch(cb);
}

OpUses OpAlgoDispatch::uses() const {
    if (!m_algorithm) return {"OpAlgoDispatch", {}, nullptr};
    return {"OpAlgoDispatch", m_algorithm->getMemObjects(), m_algorithm};
}

OpMemoryBarrier::OpMemoryBarrier(const std::vector<std::shared_ptr<Memory>>& mem_objects,
                                 const vk::AccessFlagBits& src_access,
                                 const vk::AccessFlagBits& dst_access,
                                 const vk::PipelineStageFlagBits& src_stage,
                                 const vk::PipelineStageFlagBits& dst_stage,
                                 bool barrier_on_primary)
    : m_mem_objects(atLeast(mem_objects, 1, "OpMemoryBarrier")),
      m_src_access(src_access),
      m_dst_access(dst_access),
      m_src_stage(src_stage),
      m_dst_stage(dst_stage),
      m_primary(barrier_on_primary) {}

OpUses OpMemoryBarrier::uses() const { return {"OpMemoryBarrier", m_mem_objects, nullptr}; }

void OpMemoryBarrier::record(const vk::CommandBuffer& cb) {
    for (const auto& memory : m_mem_objects) {
        if (m_primary)
            memory->recordPrimaryMemoryBarrier(cb, m_src_access, m_dst_access, m_src_stage,
                                               m_dst_stage);
        else
            memory->recordStagingMemoryBarrier(cb, m_src_access, m_dst_access, m_src_stage,
                                               m_dst_stage);
    }
}

}  // namespace kp
