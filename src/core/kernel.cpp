// The kernel dispatcher (see kernel.hpp).
//
// Two models of one family go to the family's own closed form. Pairs of different families
// are defined only where their sample spaces agree and one of the two families computes the
// cross-family kernel (FamilyInfo::kernels_with, kernel_with_any_family: a mixture against any plain
// model of its sample space, a gamma against an exponential model, a network against an HMM, a
// linear Gaussian DAG against a Gaussian, ...), which is where further kernels are declared.
#include "ppk/core/kernel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "ppk/core/family.hpp"
#include "ppk/core/model_fields.hpp"

namespace ppk {

namespace {

// Whether models of `own` family compute the kernel with models of `other` (FamilyInfo::kernels_with).
bool computes_kernel_with(const FamilyInfo& own, const FamilyInfo& other) {
  if (own.kernel_with_any_family) return true;
  return std::find(own.kernels_with.begin(), own.kernels_with.end(), other.name) != own.kernels_with.end();
}

// Of a and b, models of two different families with the same sample space, the one whose log_kernel
// takes the other as its other model, or nullptr when that pair has no kernel.
const Model* computing_model(const Model& a, const Model& b) {
  const FamilyInfo &family_a = a.family(), &family_b = b.family();
  if (family_a.pairs_only_with_itself || family_b.pairs_only_with_itself) return nullptr;
  if (family_a.kernel_with_any_family) return &a;
  if (family_b.kernel_with_any_family) return &b;
  if (computes_kernel_with(family_a, family_b)) return &a;
  if (computes_kernel_with(family_b, family_a)) return &b;
  return nullptr;
}

std::string describe(const Model& model) { return model.family().name + " over " + model.sample_space().describe(); }

// The T's of a and b (or of the models of two montecarlo rows) when they are sequence models of
// one family whose sample spaces differ only in T: the same observation space (an HMM's emissions),
// so that one -d T gives them a kernel; else nothing.
std::optional<std::pair<long, long>> lengths_apart(const Model& row_a, const Model& row_b) {
  if (&row_a.family() != &row_b.family()) return std::nullopt;
  const Model& a = row_a.estimated_model();
  const Model& b = row_b.estimated_model();
  const std::optional<long> steps_a = a.sequence_steps(), steps_b = b.sequence_steps();
  if (!steps_a || !steps_b || *steps_a == *steps_b || &a.family() != &b.family() ||
      a.sample_space().dim != b.sample_space().dim || a.step_space() != b.step_space())
    return std::nullopt;
  return std::make_pair(*steps_a, *steps_b);
}

}  // namespace

PreparedModel::PreparedModel(std::unique_ptr<Model> model, const KernelParams& params)
    : model_(std::move(model)), family_(model_ ? &model_->family() : nullptr), params_(params) {
  if (!model_) throw std::invalid_argument("PreparedModel: no model");
  model_->prepare(params_);
  sample_space_ = model_->sample_space();  // after prepare: a sequence model's space has the T of -d
  log_self_ = model_->log_kernel(*model_);
  // log k(p, p) finite <=> k(p, p) finite and positive; ppk_norm divides by its square root.
  if (!std::isfinite(log_self_))
    throw KernelDomainError("the self-kernel k(p, p) of a " + describe(*model_) +
                            " model at rho = " + detail::format_number(params_.rho) + " is " +
                            (std::isnan(log_self_) ? std::string("not a number")
                             : log_self_ > 0       ? std::string("infinite")
                                                   : std::string("0")));
  root_self_ = std::exp(0.5 * log_self_);
}

void check_finite_kernel_values(KernelKind kind, const PreparedModel& model) {
  static const double kLogLargestDouble = std::log(std::numeric_limits<double>::max());
  if (kind == KernelKind::ppk && model.log_self_kernel() > kLogLargestDouble)
    throw KernelDomainError("the self-kernel k(p, p) of a " + describe(model.model()) +
                            " model at rho = " + detail::format_number(model.params().rho) + " is exp(" +
                            detail::format_number(model.log_self_kernel()) +
                            "), beyond the largest double; use ppk_norm (-t 6), which is computed in log space");
}

std::string inexact_kernel_warning(const FamilyInfo& family) {
  if (family.exact()) return "";
  return family.name + " rows: the kernel values are " + family.approximation +
         ", not k itself; the Gram matrix may not be positive semidefinite";
}

void check_compatible(const Model& a, const Model& b) {
  // A family's own rule (combined rows pair part i with part i under one weighting).
  for (const FamilyInfo* family : {&a.family(), &b.family()})
    if (family->check_compatible != nullptr) {
      family->check_compatible(a, b);
      return;
    }
  const SampleSpace space_a = a.sample_space(), space_b = b.sample_space();
  if (space_a != space_b) {
    std::string what = describe(a) + " vs " + describe(b) + ": no kernel between different sample spaces";
    if (const auto lengths = lengths_apart(a, b))
      what += "; the two " + a.family().name + " rows have different lengths T = " + std::to_string(lengths->first) +
              " and " + std::to_string(lengths->second) +
              ": give one T for every row with -d T (svm-train, ppk gram), e.g. -d " +
              std::to_string(std::min(lengths->first, lengths->second)) +
              ", so that every kernel compares x_0..x_T, T + 1 observations";
    throw KernelDomainError(what);
  }
  if (&a.family() != &b.family() && computing_model(a, b) == nullptr)
    throw KernelDomainError(describe(a) + " vs " + describe(b) + ": no kernel between " + a.family().name + " and " +
                            b.family().name + " models");
}

void check_compatible(const PreparedModel& a, const PreparedModel& b) {
  if (&a.family() == &b.family() && a.sample_space() == b.sample_space()) return;
  check_compatible(a.model(), b.model());
}

double log_kernel(const PreparedModel& a, const PreparedModel& b) {
  // The hot path: one family pointer comparison on cached pointers.
  if (&a.family() == &b.family()) return a.model().log_kernel(b.model());
  if (a.params().rho != b.params().rho) detail::throw_unprepared_pair(a.family().name + " vs " + b.family().name);
  return log_kernel(a.model(), b.model());
}

double log_kernel(const Model& a, const Model& b) {
  if (&a.family() == &b.family()) return a.log_kernel(b);
  if (const Model* computing = computing_model(a, b)) return computing->log_kernel(computing == &a ? b : a);
  check_compatible(a, b);  // throws the message that names both sample spaces
  throw KernelDomainError("no kernel between " + a.family().name + " and " + b.family().name);
}

namespace {
// k(a,b) held to the Cauchy-Schwarz bound sqrt(k(a,a)) sqrt(k(b,b)) (kernel.hpp), from the two square
// roots; std::min keeps a NaN k.
double bounded(double k, double root_self_a, double root_self_b) { return std::min(k, root_self_a * root_self_b); }
// k(a,b) / sqrt(k(a,a) k(b,b)) <= 1 from log k(a,b), in log space; a NaN log k stays NaN.
double normalize(double log_k, double log_self_a, double log_self_b) {
  const double log_normalized = log_k - 0.5 * (log_self_a + log_self_b);
  return std::exp(log_normalized > 0.0 ? 0.0 : log_normalized);
}
}  // namespace

double kernel_value(KernelKind kind, double log_k, double log_self_a, double log_self_b) {
  // exp(log_self / 2) is PreparedModel's root_self_kernel(), so this is kernel() to the bit for a family
  // whose kernel() is exp(log_kernel) (Model's default).
  if (kind == KernelKind::ppk_norm) return normalize(log_k, log_self_a, log_self_b);
  return bounded(std::exp(log_k), std::exp(0.5 * log_self_a), std::exp(0.5 * log_self_b));
}

double kernel(const PreparedModel& a, const PreparedModel& b) {
  if (&a.family() == &b.family()) return bounded(a.model().kernel(b.model()), a.root_self_kernel(), b.root_self_kernel());
  return bounded(std::exp(log_kernel(a, b)), a.root_self_kernel(), b.root_self_kernel());
}

double normalized_kernel(const PreparedModel& a, const PreparedModel& b) {
  return kernel_value(KernelKind::ppk_norm, log_kernel(a, b), a.log_self_kernel(), b.log_self_kernel());
}

double evaluate(KernelKind kind, const PreparedModel& a, const PreparedModel& b) {
  return kind == KernelKind::ppk_norm ? normalized_kernel(a, b) : kernel(a, b);
}

bool log_kernels_over_lengths(const PreparedModel& a, const PreparedModel& b, const std::vector<int>& lengths,
                              double* out) {
  if (&a.family() != &b.family()) return false;
  return a.model().log_kernel_over_lengths(b.model(), lengths.data(), lengths.size(), out);
}

void evaluate_many(KernelKind kind, const PreparedModel& a, const PreparedModel* const* b, std::size_t n, double* out) {
  // Runs of b of a's family go to the family's batch kernel, in blocks of the models' addresses
  // on the stack (no allocation); other pairs go one by one.
  constexpr std::size_t kBlock = 256;
  const Model* models[kBlock];
  std::size_t begin = 0;
  while (begin < n) {
    std::size_t m = 0;
    for (; m < kBlock && begin + m < n && &b[begin + m]->family() == &a.family(); ++m) models[m] = &b[begin + m]->model();
    double* const block_out = out + begin;
    if (m == 0) {
      block_out[0] = evaluate(kind, a, *b[begin]);
      ++begin;
    } else if (kind == KernelKind::ppk_norm) {
      a.model().log_kernel_many(models, m, block_out);
      for (std::size_t k = 0; k < m; ++k)
        block_out[k] = normalize(block_out[k], a.log_self_kernel(), b[begin + k]->log_self_kernel());
      begin += m;
    } else {
      a.model().kernel_many(models, m, block_out);
      for (std::size_t k = 0; k < m; ++k)
        block_out[k] = bounded(block_out[k], a.root_self_kernel(), b[begin + k]->root_self_kernel());
      begin += m;
    }
  }
}

}  // namespace ppk
