// The LIBSVM glue: a plugin module for the patched LIBSVM (libsvm-patch/) that
// registers the kernel types
//     5  ppk       k_rho(p, p') = integral of p^rho p'^rho          (JMLR 2004, eq. 2)
//     6  ppk_norm  k_rho(p, p') / sqrt(k_rho(p, p) k_rho(p', p'))  (in log space)
// LIBSVM's own fields carry the parameters: -g is rho, -d is T for sequence models.
// LIBSVM's hook decodes each row into a PreparedModel (svm_check_parameter every row, each
// kernel matrix of training its rows, each prediction x and the support vectors);
// evaluate_many() is the hot loop: LIBSVM hands it parts of kernel columns.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "ppk/core/family.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/kernel_diagnostic.hpp"
#include "ppk/core/row.hpp"
#include "ppk/core/thread_pool.hpp"
#include "svm.h"

namespace {

ppk::KernelParams kernel_params(const svm_parameter* param) {
  ppk::KernelParams params;
  params.rho = param->gamma;
  params.length = param->degree;
  return params;
}

// Each registered type's context points to its kind.
ppk::KernelKind kernel_kind(const void* context) { return *static_cast<const ppk::KernelKind*>(context); }

const ppk::PreparedModel& prepared(const void* decoded) { return *static_cast<const ppk::PreparedModel*>(decoded); }

const char* check_parameter(void*, const svm_parameter* param) {
  if (!(param->gamma > 0) || !std::isfinite(param->gamma))
    return "rho (-g) must be a finite number > 0 (0.5 Bhattacharyya, 1 expected likelihood)";
  if (param->degree < 0) return "T (-d) must be >= 0 (0 = each model's own length)";
  return nullptr;
}

// Where the plugin's warnings go: standard error, where LIBSVM's programs print theirs, unless the host
// set a sink (ppk::libsvm::set_warning_sink; the Python module hands them to Python's warnings).
std::atomic<void (*)(const char*)> warning_sink{nullptr};

void warn(const std::string& message) {
  if (void (*sink)(const char*) = warning_sink.load())
    sink(message.c_str());
  else
    std::fprintf(stderr, "ppk: warning: %s\n", message.c_str());
}

// Once per process and family whose kernel is a bound or an estimate (FamilyInfo::approximation), a
// warning (warn): training and prediction go on.
void warn_once_if_inexact(const ppk::FamilyInfo& family) {
  if (family.exact()) return;
  static std::mutex mutex;
  static std::vector<const ppk::FamilyInfo*> warned;
  const std::lock_guard<std::mutex> lock(mutex);
  if (std::find(warned.begin(), warned.end(), &family) != warned.end()) return;
  warned.push_back(&family);
  warn(ppk::inexact_kernel_warning(family));
}

void* decode(void* context, const svm_node* x, const svm_parameter* param, char* err, size_t err_size) {
  try {
    ppk::Row row;
    for (const svm_node* p = x; p->index != -1; ++p) row.push_back({p->index, p->value});
    auto model = std::make_unique<ppk::PreparedModel>(ppk::decode_row(row), kernel_params(param));
    ppk::check_finite_kernel_values(kernel_kind(context), *model);
    warn_once_if_inexact(model->family());
    return model.release();
  } catch (const std::exception& e) {
    std::snprintf(err, err_size, "%s", e.what());
    return nullptr;
  }
}

int compatible(void*, const void* a, const void* b, char* err, size_t err_size) {
  try {
    ppk::check_compatible(prepared(a).model(), prepared(b).model());
    return 1;
  } catch (const std::exception& e) {
    std::snprintf(err, err_size, "%s", e.what());
    return 0;
  }
}

// Decoding and check_compatible validated every row and pair that LIBSVM will
// combine, and the kernels are finite between such rows (kernel.hpp check_finite_kernel_values), so
// an exception other than a pair's KernelDomainError, or a NaN, is a bug here: stop rather than train
// on a wrong value.
[[noreturn]] void internal_error(const char* what) {
  std::fprintf(stderr, "ppk: internal error in a kernel evaluation: %s\n", what);
  std::abort();
}

std::atomic<bool> pair_errors_are_thrown{false};

// A KernelDomainError between two rows that each passed their checks: a pair that has no kernel value,
// which only its evaluation finds (two networks whose fused graph is too wide for exact elimination,
// docs/families.md, bayesnet). LIBSVM's programs stop with its message and exit status 1 before
// anything more is written, as for a row they cannot read; an embedding that set
// ppk::libsvm::throw_pair_errors() has the exception thrown on through LIBSVM instead.
[[noreturn]] void pair_error(const ppk::KernelDomainError& error) {
  if (pair_errors_are_thrown) throw error;
  std::fprintf(stderr, "ppk: error: two rows that each passed their checks have no kernel value: %s\n", error.what());
  std::fflush(nullptr);
  std::_Exit(1);  // not exit(): other threads may be inside LIBSVM's OpenMP loops (3.30 and later)
}

double checked(double value) {
  if (std::isnan(value)) internal_error("the kernel value between two rows is not a number");
  return value;
}

double evaluate(void* context, const void* a, const void* b) {
  try {
    return checked(ppk::evaluate(kernel_kind(context), prepared(a), prepared(b)));
  } catch (const ppk::KernelDomainError& e) {
    pair_error(e);
  } catch (const std::exception& e) {
    internal_error(e.what());
  }
}

// Threads for one call of evaluate_many: OpenMP's setting (OMP_NUM_THREADS, omp_set_num_threads),
// which also sets upstream LIBSVM's own loops (3.30 and later); one inside a parallel region of the
// calling program.
unsigned evaluation_threads() {
#ifdef _OPENMP
  return omp_in_parallel() ? 1u : static_cast<unsigned>(std::max(omp_get_max_threads(), 1));
#else
  return 1;
#endif
}

// A part of a kernel column or the support vectors, split across threads that sleep while idle
// (ppk::for_each_range) when it takes longer than 0.1 ms; each range in blocks of typed pointers on
// the stack. Every value is computed the same way whatever the split, so the results do not depend
// on the number of threads.
void evaluate_many(void* context, const void* a, const void* const* b, int n, double* out) {
  try {
    constexpr std::size_t kMinRange = 8;  // each range redoes the batch kernel's work on a
    constexpr double kParallelSeconds = 1e-4;
    const ppk::KernelKind kind = kernel_kind(context);
    const ppk::PreparedModel& first = prepared(a);
    ppk::for_each_range(static_cast<std::size_t>(n), evaluation_threads(), kMinRange, kParallelSeconds,
                        [&](std::size_t begin, std::size_t end) {
                          constexpr std::size_t kBlock = 256;
                          const ppk::PreparedModel* models[kBlock];
                          for (std::size_t m; begin < end; begin += m) {
                            m = std::min(kBlock, end - begin);
                            for (std::size_t k = 0; k < m; ++k) models[k] = &prepared(b[begin + k]);
                            ppk::evaluate_many(kind, first, models, m, out + begin);
                          }
                        });
  } catch (const ppk::KernelDomainError& e) {
    pair_error(e);
  } catch (const std::exception& e) {
    internal_error(e.what());
  }
  for (int k = 0; k < n; ++k) checked(out[k]);
}

void release(void*, void* decoded) { delete static_cast<ppk::PreparedModel*>(decoded); }

// From svm_check_parameter, before training (once per svm-train, also with -v): a warning (warn) when the
// kernel is nearly the identity or nearly constant on a sample of the training rows' pairs (kernel_diagnostic.hpp).
// Advice only: training goes on, unless a sampled pair has no kernel value (pair_error, before training starts).
void inspect(void*, const void* const* decoded, int l) {
  try {
    std::vector<const ppk::PreparedModel*> models;
    for (int i = 0; i < l; ++i) models.push_back(&prepared(decoded[i]));
    if (models.empty()) return;
    const std::string warning = ppk::degenerate_kernel_warning(
        ppk::kernel_spread(ppk::sample_log_normalized_kernels(models, models, true)), models.front()->params());
    if (!warning.empty()) warn(warning);
  } catch (const ppk::KernelDomainError& e) {
    pair_error(e);
  } catch (const std::exception& e) {
    warn(std::string("the degenerate-kernel check failed: ") + e.what());
  }
}

svm_kernel_type make_type(ppk::KernelKind& kind, const char* name, const char* help) {
  svm_kernel_type type{};
  type.abi_version = LIBSVM_KERNEL_PLUGIN_ABI;
  type.number = static_cast<int>(kind);
  type.name = name;
  type.help = help;
  type.default_gamma = 1.0;  // rho = 1: the expected-likelihood kernel
  type.default_degree = 0;   // T = each model's own length
  type.context = &kind;
  type.check_parameter = check_parameter;
  type.decode = decode;
  type.compatible = compatible;
  type.evaluate = evaluate;
  type.release = release;
  type.evaluate_many = evaluate_many;
  type.inspect = inspect;
  return type;
}

}  // namespace

namespace ppk::libsvm {
void throw_pair_errors() { pair_errors_are_thrown = true; }
void set_warning_sink(void (*sink)(const char* message)) { warning_sink = sink; }
}  // namespace ppk::libsvm

extern "C" __attribute__((visibility("default"))) int svm_kernel_plugin_init(
    int (*register_type)(const svm_kernel_type*)) {
  static ppk::KernelKind ppk_kind = ppk::KernelKind::ppk, ppk_norm_kind = ppk::KernelKind::ppk_norm;
  static const svm_kernel_type types[] = {
      make_type(ppk_kind, "ppk",
                "probability product kernel between the models in two rows: "
                "-g rho (default 1; 0.5 Bhattacharyya), -d T time steps of sequence models: the kernel "
                "compares x_0..x_T, i.e. T + 1 observations (default 0 = each model's own T)"),
      make_type(ppk_norm_kind, "ppk_norm",
                "ppk normalised to k(p,p')/sqrt(k(p,p)k(p',p')): -g rho (default 1), -d T as for ppk (default 0)"),
  };
  for (const svm_kernel_type& type : types)
    if (register_type(&type) != 0) return -1;
  return 0;
}
