// The kernel dispatcher (see kernel.hpp).
//
// Two models of one family go to the family's own closed form. Pairs of different families
// are defined only where their sample spaces agree and someone has written the cross-family
// kernel: a mixture against any plain model of its sample space (the mixture's own kernel), and
// the pairs in the table kCrossFamilyKernels below (an exponential against a gamma model, an HMM
// against a Bayesian network, a linear Gaussian DAG against a Gaussian, ...),
// which is where further kernels are added.
#include "ppk/core/kernel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/model_fields.hpp"
#include "ppk/families/bayesnet.hpp"
#include "ppk/families/exponential.hpp"
#include "ppk/core/family.hpp"
#include "ppk/families/fhmm.hpp"
#include "ppk/families/gamma.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/families/linear_gaussian.hpp"
#include "ppk/families/markov.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/families/montecarlo.hpp"
#include "ppk/families/slds.hpp"

namespace ppk {

namespace {

using CrossFamilyLogKernel = double (*)(const Model& a, const Model& b);

// An exponential model of scales b is the gamma model of shapes 1 and scales b (JMLR 2004 section 3),
// and GammaModel::log_kernel takes it as its other model (gamma.hpp). k is symmetric: one function
// serves both orders.
double log_kernel_gamma_exponential(const Model& gamma, const Model& exponential) {
  return gamma.log_kernel(exponential);
}
double log_kernel_exponential_gamma(const Model& exponential, const Model& gamma) {
  return gamma.log_kernel(exponential);
}

// An HMM is the network s_0 -> .. -> s_T with emission leaves s_t -> x_t (bayesnet.hpp), and
// BayesNetModel::log_kernel takes it as its other model.
double log_kernel_bayesnet_hmm(const Model& network, const Model& hmm) { return network.log_kernel(hmm); }
double log_kernel_hmm_bayesnet(const Model& hmm, const Model& network) { return network.log_kernel(hmm); }

// A linear Gaussian DAG's distribution is the Gaussian of its observed nodes (linear_gaussian.hpp), and
// LinearGaussianModel::log_kernel takes a Gaussian as its other model.
double log_kernel_dag_gaussian(const Model& dag, const Model& gaussian) { return dag.log_kernel(gaussian); }
double log_kernel_gaussian_dag(const Model& gaussian, const Model& dag) { return dag.log_kernel(gaussian); }

struct CrossFamilyKernel {
  const FamilyInfo& (*family_a)();
  const FamilyInfo& (*family_b)();
  CrossFamilyLogKernel log_kernel;  // log k_rho(a, b) for a of family_a and b of family_b
};
const CrossFamilyKernel kCrossFamilyKernels[] = {
    {&gamma_family, &exponential_family, &log_kernel_gamma_exponential},
    {&exponential_family, &gamma_family, &log_kernel_exponential_gamma},
    {&bayesnet_family, &hmm_family, &log_kernel_bayesnet_hmm},
    {&hmm_family, &bayesnet_family, &log_kernel_hmm_bayesnet},
    {&linear_gaussian_family, &gaussian_family, &log_kernel_dag_gaussian},
    {&gaussian_family, &linear_gaussian_family, &log_kernel_gaussian_dag},
};

// A mixture against a plain model of its sample space: the plain model is the one-component
// mixture (mixture.hpp), and MixtureModel::log_kernel takes it as its other model. A montecarlo
// row is not a plain model: its estimate needs draws from both sides (montecarlo.hpp).
double log_kernel_mixture_plain(const Model& mixture, const Model& plain) { return mixture.log_kernel(plain); }
double log_kernel_plain_mixture(const Model& plain, const Model& mixture) { return mixture.log_kernel(plain); }

// log k_rho between models of two different families with the same sample space, or nullptr
// when that pair has no kernel: a mixture against any plain model, or an entry of the table above.
CrossFamilyLogKernel find_cross_family_kernel(const FamilyInfo& a, const FamilyInfo& b) {
  if (&a == &montecarlo_family() || &b == &montecarlo_family()) return nullptr;
  if (&a == &mixture_family()) return &log_kernel_mixture_plain;
  if (&b == &mixture_family()) return &log_kernel_plain_mixture;
  for (const CrossFamilyKernel& entry : kCrossFamilyKernels)
    if (&entry.family_a() == &a && &entry.family_b() == &b) return entry.log_kernel;
  return nullptr;
}

std::string describe(const Model& model) { return model.family().name + " over " + model.sample_space().describe(); }

// The model whose kernel a montecarlo row estimates, else the model itself.
const Model& estimated_model(const Model& model) {
  const auto* montecarlo = dynamic_cast<const MonteCarloModel*>(&model);
  return montecarlo != nullptr ? montecarlo->inner() : model;
}

// The T's of a and b (or of the models of two montecarlo rows) when they are sequence models of
// one family whose sample spaces differ only in T: the same observation space (an HMM's emissions),
// so that one -d T gives them a kernel; else nothing.
std::optional<std::pair<long, long>> lengths_apart(const Model& row_a, const Model& row_b) {
  if (&row_a.family() != &row_b.family()) return std::nullopt;
  const Model& a = estimated_model(row_a);
  const Model& b = estimated_model(row_b);
  const std::optional<long> steps_a = sequence_steps(a), steps_b = sequence_steps(b);
  if (!steps_a || !steps_b || *steps_a == *steps_b || &a.family() != &b.family() ||
      a.sample_space().dim != b.sample_space().dim)
    return std::nullopt;
  const auto* hmm_a = dynamic_cast<const HmmModel*>(&a);
  const auto* hmm_b = dynamic_cast<const HmmModel*>(&b);
  if (hmm_a != nullptr && hmm_a->emission(0).sample_space() != hmm_b->emission(0).sample_space()) return std::nullopt;
  return std::make_pair(*steps_a, *steps_b);
}

}  // namespace

std::optional<long> sequence_steps(const Model& model) {
  if (const auto* hmm = dynamic_cast<const HmmModel*>(&model)) return hmm->steps();
  if (const auto* lds = dynamic_cast<const LdsModel*>(&model)) return lds->steps();
  if (const auto* slds = dynamic_cast<const SldsModel*>(&model)) return slds->steps();
  if (const auto* fhmm = dynamic_cast<const FhmmModel*>(&model)) return fhmm->steps();
  // An aligned chain's positions are fixed (-d does not change them), as a network's variables are.
  if (const auto* markov = dynamic_cast<const MarkovModel*>(&model); markov != nullptr && !markov->aligned())
    return markov->steps();
  return std::nullopt;
}

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
  if (&a.family() != &b.family() && find_cross_family_kernel(a.family(), b.family()) == nullptr)
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
  if (const auto cross = find_cross_family_kernel(a.family(), b.family())) return cross(a, b);
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
