#include "parallel.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace ppk::cli {

unsigned default_threads() {
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    char* end = nullptr;
    const long threads = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && threads >= 1) return static_cast<unsigned>(std::min(threads, 1024L));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

void add_threads_option(po::options_description& options, const std::string& what) {
  options.add_options()("threads", po::value<long>()->value_name("N"),
                        (what + " (default: OMP_NUM_THREADS, else every hardware thread); "
                                "the output does not depend on N")
                            .c_str());
}

unsigned threads_option(const po::variables_map& values) {
  if (!values.count("threads")) return default_threads();
  const long threads = values["threads"].as<long>();
  if (threads < 1 || threads > 1024) throw UsageError("--threads must be in [1, 1024], got " + std::to_string(threads));
  return static_cast<unsigned>(threads);
}

namespace {

// The progress line on a terminal: "what: done/count", redrawn by one thread at a time.
class Progress {
 public:
  Progress(std::string what, std::size_t count)
      : what_(std::move(what)), count_(count), shown_(isatty(STDERR_FILENO) == 1) {}

  void update(std::size_t done) {
    if (!shown_) return;
    const auto now = std::chrono::steady_clock::now();
    // Workers never wait for each other here: a busy line skips this update.
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock() || now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    draw(done);
  }

  // The final count, after the workers have stopped.
  void finish(std::size_t done) {
    if (shown_) draw(done);
  }

  ~Progress() {
    if (drawn_) std::cerr << "\r\033[K" << std::flush;  // erase the line
  }

 private:
  void draw(std::size_t done) {
    std::cerr << '\r' << what_ << ": " << done << '/' << count_ << std::flush;
    drawn_ = true;
  }

  std::string what_;
  std::size_t count_;
  bool shown_;
  bool drawn_ = false;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace

void for_each_index(std::size_t count, unsigned threads, const std::string& what,
                    const std::function<void(std::size_t)>& task) {
  Progress progress(what, count);
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::atomic<bool> failed{false};
  std::mutex failure_mutex;
  std::size_t failed_index = count;
  std::exception_ptr failure;

  auto worker = [&] {
    for (;;) {
      if (failed.load()) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= count) return;
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (i < failed_index) {
          failed_index = i;
          failure = std::current_exception();
        }
        failed.store(true);
        return;
      }
      progress.update(done.fetch_add(1) + 1);
    }
  };

  const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(threads, count));
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) {
    // A thread that cannot start (std::system_error) only means fewer workers: the calling thread
    // works too, and the outcome does not depend on how many there are.
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;
    }
  }
  worker();
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
  progress.finish(done.load());
}

}  // namespace ppk::cli
