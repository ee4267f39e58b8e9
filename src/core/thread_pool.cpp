#include "ppk/core/thread_pool.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace ppk {
namespace {

using Work = std::function<void(std::size_t, std::size_t)>;

thread_local bool on_pool_thread = false;

// One loop's ranges, taken by the calling thread and the helpers that join it.
class Job {
 public:
  Job(const Work& work, std::size_t begin, std::size_t end, unsigned threads, std::size_t min_range)
      : work_(work), end_(end), threads_(threads), min_range_(min_range), next_(begin) {}

  // Runs ranges until none is left (or another thread's work has thrown).
  void run_ranges() {
    std::size_t begin = next_.load(std::memory_order_relaxed);
    for (;;) {
      if (begin >= end_ || failed_.load(std::memory_order_relaxed)) return;
      const std::size_t left = end_ - begin;
      const std::size_t size = std::min(left, std::max(min_range_, left / (2 * std::size_t{threads_})));
      if (!next_.compare_exchange_weak(begin, begin + size, std::memory_order_relaxed)) continue;
      work_(begin, begin + size);
      begin = next_.load(std::memory_order_relaxed);
    }
  }

  // Called with the pool's mutex held.
  void record_failure(std::exception_ptr error) {
    if (!error_) error_ = error;
    failed_.store(true, std::memory_order_relaxed);
  }
  void rethrow_failure() const {
    if (error_) std::rethrow_exception(error_);
  }

  unsigned helpers_wanted = 0;   // helpers that may join
  unsigned helpers_joined = 0;   // under the pool's mutex
  unsigned helpers_working = 0;  // under the pool's mutex

 private:
  const Work& work_;
  const std::size_t end_;
  const unsigned threads_;
  const std::size_t min_range_;
  std::atomic<std::size_t> next_;
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

// Helper threads that sleep on a condition variable until a job is posted. Never destroyed (the
// threads are detached and may still be waiting when the process exits).
class Pool {
 public:
  static Pool& instance() {
    static const int fork_handler = pthread_atfork(nullptr, nullptr, [] {
      // The child has none of the parent's threads (and maybe a locked mutex): a new pool.
      current_.store(nullptr, std::memory_order_relaxed);
    });
    (void)fork_handler;
    Pool* pool = current_.load(std::memory_order_acquire);
    if (pool) return *pool;
    Pool* fresh = new Pool;
    if (current_.compare_exchange_strong(pool, fresh, std::memory_order_acq_rel)) return *fresh;
    delete fresh;  // another thread made one first
    return *pool;
  }

  // One job at a time; false if another thread's job is running.
  bool try_acquire() { return !busy_.exchange(true, std::memory_order_acquire); }
  void release() { busy_.store(false, std::memory_order_release); }

  // Runs the job on the calling thread and up to threads - 1 helpers; returns when every range
  // has run, waiting only for the helpers that took one.
  void run(Job& job, unsigned threads) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      start_workers(threads - 1);
      job.helpers_wanted = std::min(threads - 1, workers_);
      job_ = &job;
      ++generation_;
    }
    wake_.notify_all();
    try {
      job.run_ranges();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      job.record_failure(std::current_exception());
    }
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = nullptr;  // helpers that wake from now on go back to sleep
    done_.wait(lock, [&] { return job.helpers_working == 0; });
  }

 private:
  void start_workers(unsigned wanted) {
    while (workers_ < wanted) {
      try {
        std::thread([this] { work(); }).detach();
      } catch (const std::system_error&) {
        return;  // fewer helpers: the calling thread works too
      }
      ++workers_;
    }
  }

  void work() {
    on_pool_thread = true;
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock,
                 [&] { return job_ != nullptr && generation_ != seen && job_->helpers_joined < job_->helpers_wanted; });
      seen = generation_;
      Job& job = *job_;
      ++job.helpers_joined;
      ++job.helpers_working;
      lock.unlock();
      try {
        job.run_ranges();
      } catch (...) {
        lock.lock();
        job.record_failure(std::current_exception());
        lock.unlock();
      }
      lock.lock();
      if (--job.helpers_working == 0) done_.notify_one();  // job may be gone after this
    }
  }

  static std::atomic<Pool*> current_;

  std::atomic<bool> busy_{false};
  std::mutex mutex_;
  std::condition_variable wake_;  // helpers wait here for a job
  std::condition_variable done_;  // the calling thread waits here for its helpers
  Job* job_ = nullptr;
  std::uint64_t generation_ = 0;
  unsigned workers_ = 0;
};

std::atomic<Pool*> Pool::current_{nullptr};

}  // namespace

void for_each_range(std::size_t n, unsigned threads, std::size_t min_range, double parallel_seconds, const Work& work) {
  min_range = std::max<std::size_t>(min_range, 1);
  if (threads <= 1 || n <= min_range || on_pool_thread) {
    if (n > 0) work(0, n);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  work(0, min_range);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Pool& pool = Pool::instance();
  if (seconds / static_cast<double>(min_range) * static_cast<double>(n - min_range) <= parallel_seconds ||
      !pool.try_acquire()) {
    work(min_range, n);
    return;
  }
  struct Release {
    Pool& pool;
    ~Release() { pool.release(); }
  } release{pool};
  Job job(work, min_range, n, threads, min_range);
  pool.run(job, threads);
  job.rethrow_failure();
}

}  // namespace ppk
