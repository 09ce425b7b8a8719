#include "vkdispatch/parallel_copy.hpp"

#include <algorithm>
#include <cstring>

namespace vkdispatch {
namespace {
constexpr size_t kMinParallelBytes = size_t(1) << 20;  // below this, threads cost more than they save
constexpr int kMaxThreads = 16;
}  // namespace

ParallelCopier::ParallelCopier(int threads) {
    if (threads <= 0)
        threads = std::min<int>(kMaxThreads, std::max(1u, std::thread::hardware_concurrency()));
    for (int i = 1; i < threads; ++i) m_workers.emplace_back([this, i] { work(i); });
}

ParallelCopier::~ParallelCopier() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_start.notify_all();
    for (auto& worker : m_workers) worker.join();
}

void ParallelCopier::copyPart(const Job& job, int part) const {
    const size_t begin = std::min(job.size, job.part * static_cast<size_t>(part));
    const size_t end = std::min(job.size, begin + job.part);
    if (end > begin) std::memcpy(job.dst + begin, job.src + begin, end - begin);
}

void ParallelCopier::work(int worker) {
    unsigned seen = 0;
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_start.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop) return;
            seen = m_generation;
            job = m_job;
        }
        copyPart(job, worker);
        std::lock_guard<std::mutex> lock(m_mutex);
        if (--m_pending == 0) m_done.notify_one();
    }
}

void ParallelCopier::copy(void* dst, const void* src, size_t size) {
    // memcpy's pointers must be valid even for 0 bytes, and an empty vector's data() is null.
    if (size == 0) return;
    if (size < kMinParallelBytes || m_workers.empty()) {
        std::memcpy(dst, src, size);
        return;
    }
    std::lock_guard<std::mutex> call(m_call_mutex);
    const size_t parts = static_cast<size_t>(threads());
    // Parts are cache-line aligned so two threads never write the same line.
    const size_t part = ((size + parts - 1) / parts + 63) & ~size_t(63);
    Job job{static_cast<char*>(dst), static_cast<const char*>(src), part, size};
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_job = job;
        m_pending = static_cast<int>(m_workers.size());
        ++m_generation;
    }
    m_start.notify_all();
    copyPart(job, 0);
    std::unique_lock<std::mutex> lock(m_mutex);
    m_done.wait(lock, [&] { return m_pending == 0; });
}

}  // namespace vkdispatch
