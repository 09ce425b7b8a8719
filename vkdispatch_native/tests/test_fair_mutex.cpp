// FairMutex: try_lock takes only a free lock; threads that wait are let in in the order they
// came; two threads taking two of them in opposite orders through std::scoped_lock (which
// backs off with try_lock) never deadlock, and the counts they guard come out exact.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "vkdispatch/fair_mutex.hpp"

using vkdispatch::FairMutex;

TEST(FairMutex, TryLockTakesOnlyAFreeLock) {
    FairMutex mutex;
    ASSERT_TRUE(mutex.try_lock());
    std::thread other([&] { EXPECT_FALSE(mutex.try_lock()); });
    other.join();
    mutex.unlock();
    std::thread again([&] {
        EXPECT_TRUE(mutex.try_lock());
        mutex.unlock();
    });
    again.join();
}

TEST(FairMutex, WaitingThreadsGetTheLockInTheOrderTheyCame) {
    FairMutex mutex;
    std::mutex order_guard;
    std::vector<int> order;
    mutex.lock();
    std::vector<std::thread> waiters;
    for (int i = 0; i < 4; ++i) {
        waiters.emplace_back([&, i] {
            std::lock_guard<FairMutex> lock(mutex);
            std::lock_guard<std::mutex> record(order_guard);
            order.push_back(i);
        });
        // Long enough for thread i to be waiting before thread i + 1 starts.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_FALSE(mutex.try_lock());  // held, and others wait for it
    mutex.unlock();
    for (auto& waiter : waiters) waiter.join();
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
}

TEST(FairMutex, TwoLocksTakenInOppositeOrdersNeverDeadlock) {
    FairMutex a, b;
    long count_a = 0, count_b = 0;
    auto work = [&](bool a_first) {
        for (int k = 0; k < 20000; ++k) {
            if (a_first) {
                std::scoped_lock both(a, b);
                ++count_a, ++count_b;
            } else {
                std::scoped_lock both(b, a);
                ++count_a, ++count_b;
            }
        }
    };
    std::thread first(work, true), second(work, false);
    first.join();
    second.join();
    EXPECT_EQ(count_a, 40000);
    EXPECT_EQ(count_b, 40000);
}
