// CommandList records the barriers it plans. CPU devices run commands one after another, so a
// missing barrier leaves results right there; the Khronos validation layer's synchronization
// validation reports it instead (as a SYNC-HAZARD error). These tests run on an instance of their
// own with validation on, record one hazard of each kind (read after write, write after read,
// write after write, across compute and transfer), and require both the exact result and no
// validation error. They skip when the validation layer is not installed.
//
// The layer does not report one hazard: a shader write after a shader write of a bound
// descriptor (it suppresses those, as it cannot tell whether two dispatches write disjoint
// parts). For that case a spy on the command-buffer entry points shows the barrier instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "buffer_kernels.hpp"
#include "device_fixture.hpp"
#include "scoped_entry_point.hpp"
#include "vkdispatch/buffer.hpp"
#include "vkdispatch/buffer_commands.hpp"
#include "vkdispatch/command_list.hpp"
#include "vkdispatch/context.hpp"
#include "vkdispatch/instance.hpp"
#include "vkdispatch/log.hpp"
#include "vkdispatch/transfer_engine.hpp"

using namespace vkdispatch;
using test::groupsFor;
using test::randomWords;
using test::repeatedWord;
using test::triplePlusOne;
using test::TripleIntoPlan;

namespace {

// Members in construction order, so the engine is destroyed first and the instance last.
struct ValidatedEnvironment {
    std::unique_ptr<Instance> instance;
    std::unique_ptr<Context> context;
    std::unique_ptr<TransferEngine> transfers;
    std::string skip_reason;
};

ValidatedEnvironment& validatedEnvironment() {
    static ValidatedEnvironment env = [] {
        ValidatedEnvironment e;
        try {
            e.instance = std::make_unique<Instance>(InstanceOptions{true});
            if (!e.instance->debug()) {
                e.skip_reason = "the Khronos validation layer (or VK_EXT_debug_utils) is missing";
                return e;
            }
            e.context = test::firstDeviceContext(*e.instance, e.skip_reason);
            if (e.context) e.transfers = std::make_unique<TransferEngine>(*e.context);
        } catch (const std::exception& error) {
            e.skip_reason = error.what();
        }
        return e;
    }();
    return env;
}

Context& context() { return *validatedEnvironment().context; }

void upload(Buffer& buffer, const std::vector<uint32_t>& words) {
    test::upload(*validatedEnvironment().transfers, buffer, words);
}

std::vector<uint32_t> download(Buffer& buffer) {
    return test::download<uint32_t>(*validatedEnvironment().transfers, buffer,
                                    buffer.size() / 4);
}

std::vector<uint32_t> mapped(std::vector<uint32_t> words, uint32_t (*f)(uint32_t)) {
    for (auto& w : words) w = f(w);
    return words;
}

// Watches what is recorded into command buffers (dispatches and pipeline barriers, in order)
// while it lives, passing every call on to the driver.
class RecordingSpy {
public:
    struct Entry {
        bool barrier;  // else a dispatch
        VkPipelineStageFlags src_stages, dst_stages;
        VkAccessFlags src_access, dst_access;  // of the global memory barriers
    };

    RecordingSpy() { current() = this; }
    ~RecordingSpy() { current() = nullptr; }
    RecordingSpy(const RecordingSpy&) = delete;
    RecordingSpy& operator=(const RecordingSpy&) = delete;

    const std::vector<Entry>& entries() const { return m_entries; }

private:
    static RecordingSpy*& current() {
        static RecordingSpy* spy = nullptr;
        return spy;
    }
    static VKAPI_ATTR void VKAPI_CALL dispatch(VkCommandBuffer cb, uint32_t x, uint32_t y,
                                               uint32_t z) {
        RecordingSpy& self = *current();
        self.m_entries.push_back({false, 0, 0, 0, 0});
        self.m_dispatch.original()(cb, x, y, z);
    }
    static VKAPI_ATTR void VKAPI_CALL barrier(
        VkCommandBuffer cb, VkPipelineStageFlags src_stages, VkPipelineStageFlags dst_stages,
        VkDependencyFlags flags, uint32_t memory_count, const VkMemoryBarrier* memory,
        uint32_t buffer_count, const VkBufferMemoryBarrier* buffers, uint32_t image_count,
        const VkImageMemoryBarrier* images) {
        RecordingSpy& self = *current();
        Entry entry{true, src_stages, dst_stages, 0, 0};
        for (uint32_t i = 0; i < memory_count; ++i) {
            entry.src_access |= memory[i].srcAccessMask;
            entry.dst_access |= memory[i].dstAccessMask;
        }
        self.m_entries.push_back(entry);
        self.m_barrier.original()(cb, src_stages, dst_stages, flags, memory_count, memory,
                                  buffer_count, buffers, image_count, images);
    }

    test::ScopedEntryPoint<PFN_vkCmdDispatch> m_dispatch{vkCmdDispatch, dispatch};
    test::ScopedEntryPoint<PFN_vkCmdPipelineBarrier> m_barrier{vkCmdPipelineBarrier, barrier};
    std::vector<Entry> m_entries;
};

class RecordedBarriers : public ::testing::Test {
protected:
    static constexpr size_t kWords = 1000;  // not a multiple of 64: the last group is partial

    void SetUp() override {
        if (!validatedEnvironment().context)
            GTEST_SKIP() << validatedEnvironment().skip_reason;
        takeValidationErrors();  // this thread's errors start with this test
    }

    // Submits `list` (every command takes `n` as its push constants) on queue 0 and waits.
    void run(CommandList& list, uint32_t instances = 1) {
        const auto pc = repeatedWord(kWords, list.instanceSize() / 4 * instances);
        context().queue(0).wait(list.submit(pc.data(), pc.size(), instances, 0, nullptr,
                                            nullptr, 0));
    }

    // Every validation error since SetUp (recording, submission, transfers) fails the test.
    void TearDown() override {
        if (!validatedEnvironment().context) return;
        for (const std::string& error : takeValidationErrors())
            ADD_FAILURE() << "validation error: " << error;
    }
};

}  // namespace

// The second dispatch reads what the first wrote.
TEST_F(RecordedBarriers, DispatchReadsWhatTheDispatchBeforeWrote) {
    Buffer s(context(), kWords * 4), x(context(), kWords * 4), y(context(), kWords * 4);
    const auto words = randomWords(kWords, 1);
    upload(s, words);
    TripleIntoPlan s_to_x(context(), s, x), x_to_y(context(), x, y);
    CommandList list(context());
    list.recordDispatch(s_to_x.plan, s_to_x.set, {groupsFor(kWords), 1, 1});
    list.recordDispatch(x_to_y.plan, x_to_y.set, {groupsFor(kWords), 1, 1});
    run(list);
    EXPECT_EQ(download(y), mapped(mapped(words, triplePlusOne), triplePlusOne));
}

// The second dispatch overwrites what the first read.
TEST_F(RecordedBarriers, DispatchOverwritesWhatTheDispatchBeforeRead) {
    Buffer s(context(), kWords * 4), x(context(), kWords * 4), y(context(), kWords * 4);
    const auto x_words = randomWords(kWords, 2), s_words = randomWords(kWords, 3);
    upload(x, x_words);
    upload(s, s_words);
    TripleIntoPlan x_to_y(context(), x, y), s_to_x(context(), s, x);
    CommandList list(context());
    list.recordDispatch(x_to_y.plan, x_to_y.set, {groupsFor(kWords), 1, 1});
    list.recordDispatch(s_to_x.plan, s_to_x.set, {groupsFor(kWords), 1, 1});
    run(list);
    EXPECT_EQ(download(y), mapped(x_words, triplePlusOne));
    EXPECT_EQ(download(x), mapped(s_words, triplePlusOne));
}

// Two dispatches write the same buffer: the later one's values remain, and a barrier from
// shader writes to shader writes separates them (the layer does not report this hazard).
TEST_F(RecordedBarriers, DispatchesWritingOneBufferInTurnLeaveTheLastValues) {
    Buffer s(context(), kWords * 4), t(context(), kWords * 4), x(context(), kWords * 4);
    const auto s_words = randomWords(kWords, 4), t_words = randomWords(kWords, 5);
    upload(s, s_words);
    upload(t, t_words);
    TripleIntoPlan s_to_x(context(), s, x), t_to_x(context(), t, x);
    CommandList list(context());
    list.recordDispatch(s_to_x.plan, s_to_x.set, {groupsFor(kWords), 1, 1});
    list.recordDispatch(t_to_x.plan, t_to_x.set, {groupsFor(kWords), 1, 1});
    std::vector<RecordingSpy::Entry> recorded;
    {
        RecordingSpy spy;
        run(list);
        recorded = spy.entries();
    }
    EXPECT_EQ(download(x), mapped(t_words, triplePlusOne));

    std::vector<size_t> dispatches;
    for (size_t i = 0; i < recorded.size(); ++i)
        if (!recorded[i].barrier) dispatches.push_back(i);
    ASSERT_EQ(dispatches.size(), 2u);
    bool ordered = false;
    for (size_t i = dispatches[0] + 1; i < dispatches[1]; ++i) {
        const RecordingSpy::Entry& e = recorded[i];
        ordered |= (e.src_stages & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) &&
                   (e.dst_stages & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) &&
                   (e.src_access & VK_ACCESS_SHADER_WRITE_BIT) &&
                   (e.dst_access & VK_ACCESS_SHADER_WRITE_BIT);
    }
    EXPECT_TRUE(ordered) << "no compute write -> compute write barrier between the dispatches";
}

// x -> y, then y -> x, replayed as three instances: each instance reads what the one before
// wrote and overwrites what it read. (Read-modify-write dispatches would make these shader
// writes after shader writes, which the layer does not report.)
TEST_F(RecordedBarriers, InstancesFollowTheInstanceBefore) {
    Buffer x(context(), kWords * 4), y(context(), kWords * 4);
    const auto words = randomWords(kWords, 6);
    upload(x, words);
    TripleIntoPlan x_to_y(context(), x, y), y_to_x(context(), y, x);
    CommandList list(context());
    list.recordDispatch(x_to_y.plan, x_to_y.set, {groupsFor(kWords), 1, 1});
    list.recordDispatch(y_to_x.plan, y_to_x.set, {groupsFor(kWords), 1, 1});
    run(list, 3);
    auto expected_x = words, expected_y = words;
    for (int i = 0; i < 3; ++i) {
        expected_y = mapped(expected_x, triplePlusOne);
        expected_x = mapped(expected_y, triplePlusOne);
    }
    EXPECT_EQ(download(x), expected_x);
    EXPECT_EQ(download(y), expected_y);
}

// A dispatch reads what a copy wrote (transfer -> compute).
TEST_F(RecordedBarriers, DispatchReadsWhatACopyWrote) {
    Buffer s(context(), kWords * 4), x(context(), kWords * 4), y(context(), kWords * 4);
    const auto words = randomWords(kWords, 7);
    upload(s, words);
    TripleIntoPlan x_to_y(context(), x, y);
    CommandList list(context());
    list.record(std::make_unique<CopyBufferCommand>(context(), x, s, 0, 0, kWords * 4));
    list.recordDispatch(x_to_y.plan, x_to_y.set, {groupsFor(kWords), 1, 1});
    run(list);
    EXPECT_EQ(download(y), mapped(words, triplePlusOne));
}

// A copy reads what a dispatch wrote (compute -> transfer).
TEST_F(RecordedBarriers, CopyReadsWhatADispatchWrote) {
    Buffer s(context(), kWords * 4), x(context(), kWords * 4), y(context(), kWords * 4);
    const auto words = randomWords(kWords, 8);
    upload(s, words);
    TripleIntoPlan s_to_x(context(), s, x);
    CommandList list(context());
    list.recordDispatch(s_to_x.plan, s_to_x.set, {groupsFor(kWords), 1, 1});
    list.record(std::make_unique<CopyBufferCommand>(context(), y, x, 0, 0, kWords * 4));
    run(list);
    EXPECT_EQ(download(y), mapped(words, triplePlusOne));
}

// A copy overwrites what a dispatch read (compute read -> transfer write).
TEST_F(RecordedBarriers, CopyOverwritesWhatADispatchRead) {
    Buffer s(context(), kWords * 4), x(context(), kWords * 4), y(context(), kWords * 4);
    const auto x_words = randomWords(kWords, 9), s_words = randomWords(kWords, 10);
    upload(x, x_words);
    upload(s, s_words);
    TripleIntoPlan x_to_y(context(), x, y);
    CommandList list(context());
    list.recordDispatch(x_to_y.plan, x_to_y.set, {groupsFor(kWords), 1, 1});
    list.record(std::make_unique<CopyBufferCommand>(context(), x, s, 0, 0, kWords * 4));
    run(list);
    EXPECT_EQ(download(y), mapped(x_words, triplePlusOne));
    EXPECT_EQ(download(x), s_words);
}

// A copy reads what a fill wrote (transfer -> transfer).
TEST_F(RecordedBarriers, CopyReadsWhatAFillWrote) {
    Buffer x(context(), kWords * 4), y(context(), kWords * 4);
    const auto x_words = randomWords(kWords, 11), y_words = randomWords(kWords, 12);
    upload(x, x_words);
    upload(y, y_words);
    CommandList list(context());
    list.record(std::make_unique<FillBufferCommand>(context(), x, 100 * 4, 500 * 4, 0xC0FFEEu));
    list.record(std::make_unique<CopyBufferCommand>(context(), y, x, 0, 0, kWords * 4));
    run(list);
    auto expected = x_words;
    std::fill(expected.begin() + 100, expected.begin() + 600, 0xC0FFEEu);
    EXPECT_EQ(download(x), expected);
    EXPECT_EQ(download(y), expected);
}
