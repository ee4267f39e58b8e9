// A tiny LIBSVM kernel plugin for testing the plugin hook without the ppk plugin.
//
// Kernel type 17, "test_linear": the dot product of two rows, computed exactly like LIBSVM's
// linear kernel, so that it must reproduce -t 0 bit for bit.
//  * decode rejects a row that contains index 999;
//  * rows containing index 997 are of "flavor B" and incompatible with the others;
//  * check_parameter rejects gamma <= 0 (the defaults are -g 2 -d 7, to show svm-train uses them);
//  * every decode is counted: test_plugin_decode_count() and, if the environment variable
//    LIBSVM_TEST_PLUGIN_COUNT_FILE names a file, the count is appended to it at exit;
//  * LIBSVM_TEST_PLUGIN_SLOW_NS=N makes each evaluation take at least N ns (an expensive kernel),
//    and LIBSVM_TEST_PLUGIN_THREADS_FILE receives at exit how many threads evaluated kernels;
//    the first evaluation inside an OpenMP team of several threads waits (up to 5 s, once per
//    process) until a second thread evaluates too, so that a busy machine, whose other core may
//    not wake the second thread before the first has taken all the work, still shows the split;
//  * evaluate_many is provided (a loop over evaluate), unless LIBSVM_TEST_PLUGIN_NO_BATCH is set,
//    so that both of LIBSVM's paths are tested; LIBSVM_TEST_PLUGIN_BATCH_FILE receives at exit how
//    many kernel values were asked for through evaluate_many.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "svm.h"

namespace {

struct Row {
  std::vector<svm_node> nodes;  // index -1 terminated
  bool flavor_b = false;
};

std::atomic<long> decodes{0};
std::atomic<long> live{0};          // decoded rows not yet released
std::atomic<long> batch_values{0};  // kernel values asked for through evaluate_many
long slow_ns = 0;
// the threads that evaluated kernels, recorded in slow mode (no thread_local here: LeakSanitizer
// of GCC 12 crashes on dynamic TLS of dlopen()ed modules in non-main threads)
std::mutex threads_mutex;
std::set<std::thread::id> threads;
std::condition_variable second_thread;  // notified when threads reaches 2
bool rendezvous_over = false;           // the one wait for a second thread is done

// Records the calling thread; inside a team of several threads, the first caller waits for another
// (see the file comment). LIBSVM hands out the rest of the work while it waits, so the other thread
// arrives unless the loop was too short to split.
void record_thread() {
  std::unique_lock<std::mutex> lock(threads_mutex);
  threads.insert(std::this_thread::get_id());
  if (threads.size() >= 2) {
    rendezvous_over = true;
    second_thread.notify_all();
    return;
  }
  bool in_team = false;
#ifdef _OPENMP
  in_team = omp_get_num_threads() > 1;
#endif
  if (!in_team || rendezvous_over) return;
  second_thread.wait_for(lock, std::chrono::seconds(5), [] { return threads.size() >= 2; });
  rendezvous_over = true;
}

const char *check_parameter(void *, const svm_parameter *param) {
  return param->gamma > 0 ? nullptr : "test_linear: -g must be > 0";
}

void *decode(void *, const svm_node *x, const svm_parameter *, char *err, size_t err_size) {
  ++decodes;
  Row *row = new Row;
  for (const svm_node *p = x; p->index != -1; ++p) {
    if (p->index == 999) {
      snprintf(err, err_size, "test_linear: index 999 is not allowed (value %g)", p->value);
      delete row;
      return nullptr;
    }
    if (p->index == 997) row->flavor_b = true;
    row->nodes.push_back(*p);
  }
  svm_node end;
  end.index = -1;
  end.value = 0;
  row->nodes.push_back(end);
  ++live;
  return row;
}

int compatible(void *, const void *a, const void *b, char *err, size_t err_size) {
  if (static_cast<const Row *>(a)->flavor_b == static_cast<const Row *>(b)->flavor_b) return 1;
  snprintf(err, err_size, "test_linear: rows of different flavors");
  return 0;
}

// the same loop as LIBSVM's Kernel::dot
double evaluate(void *, const void *a, const void *b) {
  if (slow_ns > 0) {
    record_thread();
    auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(slow_ns);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  const svm_node *px = static_cast<const Row *>(a)->nodes.data();
  const svm_node *py = static_cast<const Row *>(b)->nodes.data();
  double sum = 0;
  while (px->index != -1 && py->index != -1) {
    if (px->index == py->index) {
      sum += px->value * py->value;
      ++px;
      ++py;
    } else if (px->index > py->index)
      ++py;
    else
      ++px;
  }
  return sum;
}

void evaluate_many(void *context, const void *a, const void *const *b, int n, double *out) {
  batch_values += n;
  for (int k = 0; k < n; ++k) out[k] = evaluate(context, a, b[k]);
}

void release(void *, void *decoded) {
  --live;
  delete static_cast<Row *>(decoded);
}

void append(const char *variable, long value) {
  if (const char *path = getenv(variable))
    if (FILE *f = fopen(path, "a")) {
      fprintf(f, "%ld\n", value);
      fclose(f);
    }
}

void write_counts() {
  append("LIBSVM_TEST_PLUGIN_COUNT_FILE", decodes.load());
  append("LIBSVM_TEST_PLUGIN_BATCH_FILE", batch_values.load());
  std::lock_guard<std::mutex> lock(threads_mutex);
  append("LIBSVM_TEST_PLUGIN_THREADS_FILE", (long)threads.size());
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) long test_plugin_decode_count(void) { return decodes.load(); }
__attribute__((visibility("default"))) long test_plugin_live_count(void) { return live.load(); }

__attribute__((visibility("default"))) int svm_kernel_plugin_init(int (*register_type)(const svm_kernel_type *)) {
  svm_kernel_type type = {};
  type.abi_version = LIBSVM_KERNEL_PLUGIN_ABI;
  type.number = 17;
  type.name = "test_linear";
  type.help = "test plugin: u'*v like -t 0 (-g > 0 and -d are ignored)";
  type.default_gamma = 2;
  type.default_degree = 7;
  type.context = nullptr;
  type.check_parameter = check_parameter;
  type.decode = decode;
  type.compatible = compatible;
  type.evaluate = evaluate;
  type.release = release;
  type.evaluate_many = getenv("LIBSVM_TEST_PLUGIN_NO_BATCH") ? nullptr : evaluate_many;
  if (const char *slow = getenv("LIBSVM_TEST_PLUGIN_SLOW_NS")) slow_ns = atol(slow);
  atexit(write_counts);
  return register_type(&type);
}

}  // extern "C"
