// Kompute's log macros (kompute/logger/Logger.hpp): the "{}" formatter against hand-written
// expectations, the compile-time level this file selects (WARN: TRACE, DEBUG and INFO compiled
// out, their arguments never evaluated), and where messages go (the native sink when one is
// installed, stderr otherwise). Needs no device.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#undef KOMPUTE_OPT_ACTIVE_LOG_LEVEL
#define KOMPUTE_OPT_ACTIVE_LOG_LEVEL KOMPUTE_LOG_LEVEL_WARN
#include "kompute/logger/Logger.hpp"
#include "vkdispatch/log.hpp"

namespace {

using kp::logger::format;

struct Captured {
    std::vector<std::pair<int, std::string>> messages;
};

void capture(int level, const char* message, void* user) {
    static_cast<Captured*>(user)->messages.emplace_back(level, message);
}

// Installs a capturing sink at the most verbose threshold; puts back "no sink" and the
// previous threshold at the end of the test.
class KomputeLoggerSink : public ::testing::Test {
protected:
    void SetUp() override {
        m_level = vkdispatch::logLevel();
        vkdispatch::setLogSink(capture, &m_captured);
        vkdispatch::setLogLevel(vkdispatch::LogLevel::Verbose);
    }
    void TearDown() override {
        vkdispatch::setLogSink(nullptr, nullptr);
        vkdispatch::setLogLevel(m_level);
    }
    Captured m_captured;

private:
    vkdispatch::LogLevel m_level = vkdispatch::LogLevel::Warning;
};

int g_evaluations = 0;
int counted(int value) {
    ++g_evaluations;
    return value;
}

}  // namespace

TEST(KomputeLoggerFormat, FieldsTakeArgumentsInOrderOrByIndex) {
    std::mt19937 rng(41);
    std::uniform_int_distribution<int> values(-100000, 100000);
    const int a = values(rng), b = values(rng);
    const std::string sa = std::to_string(a), sb = std::to_string(b);
    EXPECT_EQ(format("a={} b={}", a, b), "a=" + sa + " b=" + sb);
    EXPECT_EQ(format("{1} then {0} then {1}", a, b), sb + " then " + sa + " then " + sb);
    EXPECT_EQ(format("{:>8} {:x}", a, b), sa + " " + sb);  // specs accepted, not applied
    EXPECT_EQ(format("{}, {}, {}", "text", 2.5, true), "text, 2.5, true");
    EXPECT_EQ(format("no fields"), "no fields");
}

TEST(KomputeLoggerFormat, BracesAndMissingOrExtraArgumentsNeverThrow) {
    EXPECT_EQ(format("{{literal}} {}", 7), "{literal} 7");
    EXPECT_EQ(format("{} {} {}", 1), "1 {} {}");  // fields without arguments stay as written
    EXPECT_EQ(format("{5}", 1), "{5}");
    EXPECT_EQ(format("{}", 1, 2, 3), "1");  // extra arguments are dropped
    EXPECT_EQ(format("open { and close }", 1), "open { and close }");
    EXPECT_EQ(format("{name}", 1), "{name}");
}

TEST_F(KomputeLoggerSink, MacrosAboveTheCompiledLevelReachTheSink) {
    KP_LOG_WARN("warned {} of {}", 3, 9);
    KP_LOG_ERROR("failed: {}", std::string("reason"));
    ASSERT_EQ(m_captured.messages.size(), 2u);
    EXPECT_EQ(m_captured.messages[0],
              std::make_pair(static_cast<int>(vkdispatch::LogLevel::Warning),
                             std::string("warned 3 of 9")));
    EXPECT_EQ(m_captured.messages[1],
              std::make_pair(static_cast<int>(vkdispatch::LogLevel::Error),
                             std::string("failed: reason")));
}

TEST_F(KomputeLoggerSink, MacrosBelowTheCompiledLevelAreCompiledOut) {
    g_evaluations = 0;
    KP_LOG_TRACE("{}", counted(1));
    KP_LOG_DEBUG("{}", counted(2));
    KP_LOG_INFO("{}", counted(3));
    EXPECT_EQ(g_evaluations, 0);
    EXPECT_TRUE(m_captured.messages.empty());
    KP_LOG_WARN("{}", counted(4));
    EXPECT_EQ(g_evaluations, 1);
    ASSERT_EQ(m_captured.messages.size(), 1u);
    EXPECT_EQ(m_captured.messages[0].second, "4");
}

TEST_F(KomputeLoggerSink, TheSinksThresholdStillApplies) {
    vkdispatch::setLogLevel(vkdispatch::LogLevel::Error);
    KP_LOG_WARN("dropped {}", 1);
    KP_LOG_ERROR("kept {}", 2);
    ASSERT_EQ(m_captured.messages.size(), 1u);
    EXPECT_EQ(m_captured.messages[0].second, "kept 2");
}

TEST(KomputeLoggerStderr, WithoutASinkMessagesGoToStderrWithLevelAndFile) {
    vkdispatch::setLogSink(nullptr, nullptr);
    ::testing::internal::CaptureStderr();
    KP_LOG_WARN("no sink: {} + {}", 20, 22);
    const int line = __LINE__ - 1;
    const std::string printed = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(printed, "[warn] [test_kompute_logger.cpp:" + std::to_string(line) +
                           "] no sink: 20 + 22\n");
}
