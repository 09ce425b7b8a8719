#pragma once
// memcpy split across a small pool of persistent threads: one core cannot saturate the host
// memory bandwidth that a PCIe 5 upload needs.
//
// Thread safety: copy() may be called from several threads; calls are serialised.
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace vkdispatch {

class ParallelCopier {
public:
    /// `threads` <= 0 picks min(hardware threads, 8); 1 copies on the calling thread only.
    explicit ParallelCopier(int threads = 0);
    ~ParallelCopier();
    ParallelCopier(const ParallelCopier&) = delete;
    ParallelCopier& operator=(const ParallelCopier&) = delete;

    void copy(void* dst, const void* src, size_t size);
    int threads() const noexcept { return static_cast<int>(m_workers.size()) + 1; }

private:
    struct Job {
        char* dst = nullptr;
        const char* src = nullptr;
        size_t part = 0;
        size_t size = 0;
    };
    void work(int worker);
    void copyPart(const Job& job, int part) const;

    std::mutex m_call_mutex;  // one copy() at a time
    std::mutex m_mutex;
    std::condition_variable m_start;
    std::condition_variable m_done;
    Job m_job;
    unsigned m_generation = 0;
    int m_pending = 0;
    bool m_stop = false;
    std::vector<std::thread> m_workers;
};

}  // namespace vkdispatch
