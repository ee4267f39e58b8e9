// ppk::for_each_range (thread_pool.hpp): every index exactly once, in ranges of the promised sizes;
// a second thread works when the loop is long enough; the serial cases; exceptions; nested and
// concurrent calls; a forked child.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "ppk/core/thread_pool.hpp"

namespace ppk {
namespace {

using Range = std::pair<std::size_t, std::size_t>;

// The ranges for_each_range hands to work, sorted, and the threads that ran them.
struct Calls {
  std::mutex mutex;
  std::vector<Range> ranges;
  std::set<std::thread::id> threads;

  void record(std::size_t begin, std::size_t end) {
    std::lock_guard<std::mutex> lock(mutex);
    ranges.emplace_back(begin, end);
    threads.insert(std::this_thread::get_id());
  }
  std::vector<Range> sorted() {
    std::sort(ranges.begin(), ranges.end());
    return ranges;
  }
};

// The ranges tile [0, n): contiguous, non-empty, none shorter than min_range but the last.
void expect_tiling(std::vector<Range> ranges, std::size_t n, std::size_t min_range) {
  ASSERT_FALSE(ranges.empty());
  std::size_t next = 0;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(ranges[i].first, next);
    EXPECT_LT(ranges[i].first, ranges[i].second);
    if (i + 1 < ranges.size()) {
      EXPECT_GE(ranges[i].second - ranges[i].first, min_range);
    }
    next = ranges[i].second;
  }
  EXPECT_EQ(next, n);
}

TEST(ThreadPool, EveryIndexOnceInRangesOfAtLeastMinRange) {
  for (std::size_t n : {1, 2, 7, 8, 9, 100, 1000, 4097})
    for (unsigned threads : {1u, 2u, 3u, 8u})
      for (std::size_t min_range : {1, 8, 50}) {
        SCOPED_TRACE(testing::Message() << "n " << n << " threads " << threads << " min_range " << min_range);
        std::vector<std::atomic<int>> count(n);
        Calls calls;
        for_each_range(n, threads, min_range, 0.0, [&](std::size_t begin, std::size_t end) {
          calls.record(begin, end);
          for (std::size_t i = begin; i < end; ++i) ++count[i];
        });
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(count[i].load(), 1) << "index " << i;
        expect_tiling(calls.sorted(), n, min_range);
      }
}

TEST(ThreadPool, NothingForAnEmptyLoop) {
  int calls = 0;
  for_each_range(0, 2, 8, 0.0, [&](std::size_t, std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

// Each range after the first (timed) one waits until two threads have entered: it returns only
// if a helper took a range too (or after 20 s, and then the test fails).
TEST(ThreadPool, AHelperTakesRangesOfALongLoop) {
  for (unsigned threads : {2u, 4u}) {
    Calls calls;
    std::mutex mutex;
    std::condition_variable entered;
    for_each_range(64, threads, 1, 0.0, [&](std::size_t begin, std::size_t end) {
      calls.record(begin, end);
      if (begin == 0) return;
      std::unique_lock<std::mutex> lock(mutex);
      entered.notify_all();
      entered.wait_for(lock, std::chrono::seconds(20), [&] {
        std::lock_guard<std::mutex> calls_lock(calls.mutex);
        return calls.threads.size() >= 2;
      });
    });
    EXPECT_GE(calls.threads.size(), 2u) << threads << " threads";
    expect_tiling(calls.sorted(), 64, 1);
  }
}

TEST(ThreadPool, OneThreadIsOneCall) {
  Calls calls;
  for_each_range(100, 1, 8, 0.0, [&](std::size_t begin, std::size_t end) { calls.record(begin, end); });
  EXPECT_EQ(calls.sorted(), (std::vector<Range>{{0, 100}}));
  EXPECT_EQ(calls.threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

// When the timed first range says the rest is quick, the rest is one call on the calling thread.
TEST(ThreadPool, AQuickLoopStaysOnTheCallingThread) {
  Calls calls;
  for_each_range(100, 2, 8, 1e9, [&](std::size_t begin, std::size_t end) { calls.record(begin, end); });
  EXPECT_EQ(calls.sorted(), (std::vector<Range>{{0, 8}, {8, 100}}));
  EXPECT_EQ(calls.threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ThreadPool, AnExceptionIsRethrownAndThePoolWorksAfterIt) {
  EXPECT_THROW(for_each_range(1000, 2, 1, 0.0,
                              [&](std::size_t begin, std::size_t end) {
                                if (begin <= 500 && 500 < end) throw std::runtime_error("index 500");
                              }),
               std::runtime_error);
  std::vector<std::atomic<int>> count(1000);
  for_each_range(1000, 2, 1, 0.0, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) ++count[i];
  });
  for (std::size_t i = 0; i < 1000; ++i) ASSERT_EQ(count[i].load(), 1) << "index " << i;
}

// A loop inside a loop (on the calling thread or a helper) runs, serially, without deadlock.
TEST(ThreadPool, NestedLoopsRun) {
  std::vector<std::atomic<int>> count(50 * 40);
  for_each_range(50, 2, 1, 0.0, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      for_each_range(40, 2, 1, 0.0, [&](std::size_t b, std::size_t e) {
        for (std::size_t j = b; j < e; ++j) ++count[i * 40 + j];
      });
  });
  for (std::size_t k = 0; k < count.size(); ++k) ASSERT_EQ(count[k].load(), 1) << "index " << k;
}

// Threads of the calling program that loop at the same time each get every index once.
TEST(ThreadPool, ConcurrentCallersEachGetTheirLoop) {
  constexpr std::size_t kCallers = 4, kN = 300;
  std::vector<std::vector<std::atomic<int>>> counts(kCallers);
  for (auto& c : counts) c = std::vector<std::atomic<int>>(kN);
  std::vector<std::thread> callers;
  for (std::size_t c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int round = 0; round < 20; ++round)
        for_each_range(kN, 2, 1, 0.0, [&](std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) ++counts[c][i];
        });
    });
  for (auto& t : callers) t.join();
  for (std::size_t c = 0; c < kCallers; ++c)
    for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(counts[c][i].load(), 20) << "caller " << c << " index " << i;
}

// After fork() the child has none of the parent's helper threads; its loops still finish (a hang
// ends with SIGALRM after 20 s).
TEST(ThreadPool, AForkedChildLoops) {
  for_each_range(100, 2, 1, 0.0, [](std::size_t, std::size_t) {});  // the parent's pool exists
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);
    std::atomic<std::size_t> total{0};
    for (int round = 0; round < 10; ++round)
      for_each_range(100, 2, 1, 0.0, [&](std::size_t begin, std::size_t end) { total += end - begin; });
    _exit(total == 1000 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace ppk
