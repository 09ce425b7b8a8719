// Messages logged on threads the delivery check refuses wait, in order, for a thread it allows.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "vkdispatch/log.hpp"

namespace {

struct Captured {
    std::mutex mutex;
    std::vector<std::pair<int, std::string>> messages;
};

void capture(int level, const char* message, void* user) {
    auto* captured = static_cast<Captured*>(user);
    std::lock_guard<std::mutex> lock(captured->mutex);
    captured->messages.emplace_back(level, message);
}

// The thread the check allows (the test's own); every other thread defers.
std::atomic<std::thread::id> g_allowed;
bool onAllowedThread() { return std::this_thread::get_id() == g_allowed.load(); }

class LogDelivery : public ::testing::Test {
protected:
    void SetUp() override {
        m_level = vkdispatch::logLevel();
        g_allowed.store(std::this_thread::get_id());
        vkdispatch::setLogSink(capture, &m_captured);
        vkdispatch::setLogLevel(vkdispatch::LogLevel::Verbose);
        vkdispatch::setDeliveryCheck(onAllowedThread);
    }
    void TearDown() override {
        vkdispatch::setDeliveryCheck(nullptr);
        vkdispatch::deliverDeferredLogs();  // none may leak into the next test
        vkdispatch::setLogSink(nullptr, nullptr);
        vkdispatch::setLogLevel(m_level);
    }
    std::vector<std::string> texts() {
        std::lock_guard<std::mutex> lock(m_captured.mutex);
        std::vector<std::string> out;
        for (const auto& entry : m_captured.messages) out.push_back(entry.second);
        return out;
    }
    Captured m_captured;

private:
    vkdispatch::LogLevel m_level = vkdispatch::LogLevel::Warning;
};

std::vector<std::string> randomTexts(int count, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> values(0, 1 << 30);
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i) out.push_back("message " + std::to_string(values(rng)));
    return out;
}

}  // namespace

TEST_F(LogDelivery, AnAllowedThreadDeliversAtOnce) {
    const std::string text = randomTexts(1, 3)[0];
    vkdispatch::log(vkdispatch::LogLevel::Info, text);
    ASSERT_EQ(texts(), std::vector<std::string>{text});
    EXPECT_EQ(m_captured.messages[0].first, static_cast<int>(vkdispatch::LogLevel::Info));
}

TEST_F(LogDelivery, ARefusedThreadsMessagesWaitAndArriveInOrder) {
    const std::vector<std::string> sent = randomTexts(50, 5);
    std::thread([&] {
        for (const std::string& text : sent) vkdispatch::log(vkdispatch::LogLevel::Warning, text);
    }).join();
    // The sink never ran on the refused thread (as the GIL must not be taken there).
    EXPECT_TRUE(texts().empty()) << "a refused thread ran the sink";
    vkdispatch::deliverDeferredLogs();
    EXPECT_EQ(texts(), sent);
    vkdispatch::deliverDeferredLogs();  // delivered once only
    EXPECT_EQ(texts().size(), sent.size());
}

TEST_F(LogDelivery, TheNextMessageOnAnAllowedThreadComesAfterTheDeferredOnes) {
    const std::vector<std::string> sent = randomTexts(3, 7);
    std::thread([&] { vkdispatch::log(vkdispatch::LogLevel::Error, sent[0]); }).join();
    std::thread([&] { vkdispatch::log(vkdispatch::LogLevel::Error, sent[1]); }).join();
    vkdispatch::log(vkdispatch::LogLevel::Error, sent[2]);
    EXPECT_EQ(texts(), sent);
}

TEST_F(LogDelivery, MessagesBelowTheThresholdAreNotKept) {
    vkdispatch::setLogLevel(vkdispatch::LogLevel::Error);
    std::thread([] { vkdispatch::log(vkdispatch::LogLevel::Info, "below"); }).join();
    vkdispatch::deliverDeferredLogs();
    EXPECT_TRUE(texts().empty());
}
