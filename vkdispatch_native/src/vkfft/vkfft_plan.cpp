#include "vkdispatch/vkfft_plan.hpp"

#include <string>

#include "vkdispatch/atomic_max.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/pipeline_cache.hpp"

namespace vkdispatch {

struct VkfftBinding::Kernels {
    Context& context;
    VkfftGeometry geometry;
    std::mutex mutex;
    std::vector<std::vector<uint32_t>> binaries;  // per device
    std::vector<VkPipelineCache> caches;           // per device (VK_NULL_HANDLE: none)
    // Per device, the application built with the plan: not bound yet, so the first binding of
    // that device takes it instead of building another.
    std::vector<std::unique_ptr<VkfftApplication>> spares;

    Kernels(Context& c, const VkfftGeometry& g) : context(c), geometry(g) {}

    std::unique_ptr<VkfftApplication> applicationFor(int queue_index) {
        const int device = context.deviceIndexOfQueue(queue_index);
        std::lock_guard<std::mutex> lock(mutex);
        if (spares[device]) return std::move(spares[device]);
        return std::make_unique<VkfftApplication>(context.deviceOfQueue(queue_index),
                                                  context.queue(queue_index), geometry,
                                                  binaries[device], caches[device]);
    }
};

VkfftBinding::VkfftBinding(std::shared_ptr<Kernels> kernels, const VkfftBuffers* per_queue)
    : m_kernels(std::move(kernels)), m_queues(m_kernels->context.queueCount()) {
    // Built here, not at recording: a queue is busy recording then, and VkFFT submits to it
    // while it builds.
    for (size_t q = 0; q < m_queues.size(); ++q) {
        m_queues[q].application = m_kernels->applicationFor(static_cast<int>(q));
        m_queues[q].application->bind(per_queue[q]);
    }
}

VkfftBinding::~VkfftBinding() {
    for (size_t q = 0; q < m_queues.size(); ++q) {
        auto application =
            std::shared_ptr<VkfftApplication>(std::move(m_queues[q].application));
        m_kernels->context.queue(static_cast<int>(q))
            .retire(m_queues[q].last_use.load(),
                    [application]() mutable { application.reset(); });
    }
}

void VkfftBinding::append(int queue_index, VkCommandBuffer cb, int direction) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_queues.at(static_cast<size_t>(queue_index)).application->append(cb, direction);
}

void VkfftBinding::markUsed(int queue_index, uint64_t value) noexcept {
    detail::raiseTo(m_queues[static_cast<size_t>(queue_index)].last_use, value);
}

VkfftPlan::VkfftPlan(Context& context, const VkfftGeometry& geometry,
                     const std::vector<std::vector<uint32_t>>& binaries, PipelineCache* cache)
    : m_kernels(std::make_shared<VkfftBinding::Kernels>(context, geometry)) {
    const size_t devices = context.devices().size();
    if (!binaries.empty() && binaries.size() != devices)
        throw InvalidArgumentError("binaries: one per device (" + std::to_string(devices) +
                                   ") or none, got " + std::to_string(binaries.size()));
    if (cache != nullptr) cache->checkServes(context, "an FFT plan");
    m_kernels->binaries.resize(devices);
    m_kernels->spares.resize(devices);
    m_kernels->caches.assign(devices, VK_NULL_HANDLE);
    for (size_t d = 0; d < devices; ++d) {
        if (!binaries.empty()) m_kernels->binaries[d] = binaries[d];
        if (cache != nullptr) m_kernels->caches[d] = cache->handle(static_cast<int>(d));
        Device& device = *context.devices()[d];
        auto application = std::make_unique<VkfftApplication>(
            device, *device.queues().front(), geometry, m_kernels->binaries[d],
            m_kernels->caches[d]);
        if (m_kernels->binaries[d].empty()) m_kernels->binaries[d] = application->binary();
        m_kernels->spares[d] = std::move(application);
    }
}

Context& VkfftPlan::context() const noexcept { return m_kernels->context; }

const VkfftGeometry& VkfftPlan::geometry() const noexcept { return m_kernels->geometry; }

std::vector<std::vector<uint32_t>> VkfftPlan::binaries() const {
    std::lock_guard<std::mutex> lock(m_kernels->mutex);
    return m_kernels->binaries;
}

std::shared_ptr<VkfftBinding> VkfftPlan::binding(Buffer& buffer, Buffer* input, Buffer* kernel) {
    const Key key{buffer.serial(), input ? input->serial() : 0, kernel ? kernel->serial() : 0};
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto it = m_recent.begin(); it != m_recent.end(); ++it) {
        if (it->first != key) continue;
        m_recent.splice(m_recent.begin(), m_recent, it);
        return it->second;
    }
    std::vector<VkfftBuffers> per_queue(context().queueCount());
    for (int q = 0; q < context().queueCount(); ++q) {
        per_queue[q].buffer = buffer.replica(q).storage.buffer.get();
        if (input) per_queue[q].input = input->replica(q).storage.buffer.get();
        if (kernel) per_queue[q].kernel = kernel->replica(q).storage.buffer.get();
    }
    auto made = bind(per_queue);
    m_recent.emplace_front(key, made);
    if (m_recent.size() > kRememberedBindings) m_recent.pop_back();
    return made;
}

std::shared_ptr<VkfftBinding> VkfftPlan::bind(const std::vector<VkfftBuffers>& per_queue) {
    if (per_queue.size() != static_cast<size_t>(context().queueCount()))
        throw InvalidArgumentError("per_queue: one set of buffers per queue of the context (" +
                                   std::to_string(context().queueCount()) + "), got " +
                                   std::to_string(per_queue.size()));
    return std::make_shared<VkfftBinding>(m_kernels, per_queue.data());
}

}  // namespace vkdispatch
