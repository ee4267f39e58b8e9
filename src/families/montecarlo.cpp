// The Monte Carlo kernel around a samplable model (see montecarlo.hpp; JMLR 2004 section 5).
//
// With log terms a_i = log Z + rho log p'(x_i) over this row's draws and b_j = log Z' + rho log p(x'_j)
// over the other row's, S = logsumexp_i a_i and S' = logsumexp_j b_j:
//     pooled: log k = logaddexp(S, S') - log(N + N')
//     equal:  log k = logaddexp(S - log N, S' - log N') - log 2,
// logaddexp(u, v) = max + log1p(exp(min - max)): symmetric in its arguments bit for bit.
#include "ppk/families/montecarlo.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/core/row.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

namespace {

const char* const kFamily = "montecarlo";

// FNV-1a, 64 bits, over the bytes of `word` from the least significant up (the same on every platform).
void hash_word(std::uint64_t& hash, std::uint64_t word) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  for (int byte = 0; byte < 8; ++byte) {
    hash ^= (word >> (8 * byte)) & 0xffU;
    hash *= kPrime;
  }
}

std::uint64_t row_seed(const Model& inner, long samples) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // the FNV-1a offset basis
  hash_word(hash, static_cast<std::uint64_t>(samples));
  for (const RowEntry& entry : encode_row(inner)) {
    std::uint64_t bits;
    std::memcpy(&bits, &entry.value, sizeof bits);
    hash_word(hash, static_cast<std::uint64_t>(entry.index));
    hash_word(hash, bits);
  }
  return hash;
}

// log(exp(u) + exp(v)), the same bits for (u, v) and (v, u).
double log_add_exp(double u, double v) {
  const double larger = std::max(u, v), smaller = std::min(u, v);
  if (larger == -std::numeric_limits<double>::infinity()) return larger;
  return larger + std::log1p(std::exp(smaller - larger));
}

std::string describe_inner(const Model& model) {
  return "a " + model.family().name + " model over " + model.sample_space().describe();
}

}  // namespace

template <class Archive>
void MonteCarloParameters::fields(Archive& archive) {
  archive.whole_number("samples", samples, 1, kMaxMonteCarloSamples);
  long rule = static_cast<long>(beta);
  archive.choice("beta", rule, {"pooled", "equal"});
  beta = static_cast<BetaRule>(rule);
  archive.model("model", model);
}

struct MonteCarloModel::Impl : MonteCarloParameters {
  const SamplableModel* samplable = nullptr;  // the inner model's sampling interface
  std::uint64_t seed = 0;
  // Set by prepare():
  double rho = 0.0;
  double log_normalizer = 0.0;  // log Z(rho)
  double kernel_work = 0.0;     // kernel_work()
  Eigen::MatrixXd draws;        // N columns from p^rho / Z

  // logsumexp_i [log Z + rho log p'(x_i)] over this row's draws x_i, p' = `density`.
  double log_sum_over_draws(const SamplableModel& density) const {
    std::vector<double> terms(static_cast<std::size_t>(draws.cols()));
    for (Eigen::Index i = 0; i < draws.cols(); ++i)
      terms[static_cast<std::size_t>(i)] = log_normalizer + rho * density.log_probability(draws.col(i));
    return detail::log_sum_exp(terms);
  }
};

MonteCarloModel::MonteCarloModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  const std::unique_ptr<Model>& model = parameters.model;
  const long samples = parameters.samples;
  if (!model) throw detail::field_error(kFamily, "model", "a model", "nothing");
  if (samples < 1 || samples > kMaxMonteCarloSamples)
    throw detail::field_error(kFamily, "samples", detail::whole_numbers(1, kMaxMonteCarloSamples),
                              std::to_string(samples));
  const SamplableModel* samplable = as_samplable(*model);
  if (samplable == nullptr)
    throw detail::field_error(
        kFamily, "model",
        "a model that can be sampled (gaussian, bernoulli, multinomial over one event or s "
        "trials, exponential, gamma, dirichlet, poisson, lds, linear_gaussian, slds, fhmm, markov, or "
        "a mixture, hmm or bayesnet of those)",
        describe_inner(*model));
  impl_->seed = row_seed(*model, samples);
  static_cast<MonteCarloParameters&>(*impl_) = std::move(parameters);
  impl_->samplable = samplable;
}

MonteCarloModel::~MonteCarloModel() = default;

const Model& MonteCarloModel::inner() const { return *impl_->model; }
const MonteCarloParameters& MonteCarloModel::parameters() const { return *impl_; }
long MonteCarloModel::samples() const { return impl_->samples; }
BetaRule MonteCarloModel::beta() const { return impl_->beta; }
std::uint64_t MonteCarloModel::seed() const { return impl_->seed; }
const Eigen::MatrixXd& MonteCarloModel::draws() const { return impl_->draws; }
double MonteCarloModel::log_tilted_normalizer() const { return impl_->log_normalizer; }
double MonteCarloModel::kernel_work() const { return impl_->kernel_work; }
const Model& MonteCarloModel::estimated_model() const { return inner(); }

const FamilyInfo& MonteCarloModel::family() const { return montecarlo_family(); }

SampleSpace MonteCarloModel::sample_space() const { return impl_->model->sample_space(); }

void MonteCarloModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.model->prepare(params);
  try {
    m.log_normalizer = m.samplable->log_tilted_normalizer(params.rho);
  } catch (const KernelDomainError& error) {
    throw KernelDomainError(std::string(kFamily) + " row: " + error.what());
  }
  m.rho = params.rho;
  SampleGenerator generator(m.seed);
  detail::check_kernel_storage(kFamily,
                               "field \"samples\" (" + std::to_string(m.samples) + ") x the sample size (" +
                                   std::to_string(m.samplable->sample_size()) + " values per draw)",
                               static_cast<double>(m.samples) * static_cast<double>(m.samplable->sample_size()));
  // The other row's draws, at most kMaxMonteCarloSamples, each cost c here (montecarlo.hpp).
  const double density_work = m.samplable->log_probability_work();
  m.kernel_work = detail::check_kernel_work(
      kFamily,
      "the most samples of a row (" + std::to_string(kMaxMonteCarloSamples) + ") x c (" +
          detail::format_number(density_work) + " multiply-adds of the inner model's log p(x))",
      static_cast<double>(kMaxMonteCarloSamples) * density_work, "give a smaller inner model or a smaller -d T");
  m.draws.resize(m.samplable->sample_size(), m.samples);
  m.samplable->sample_tilted(m.rho, generator, m.draws);
}

double MonteCarloModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const MonteCarloModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.draws.rows() != b.draws.rows()) detail::throw_unprepared_pair(kFamily);
  const double sum_a = a.log_sum_over_draws(*b.samplable), sum_b = b.log_sum_over_draws(*a.samplable);
  const double n_a = static_cast<double>(a.samples), n_b = static_cast<double>(b.samples);
  if (a.beta == BetaRule::equal || b.beta == BetaRule::equal)
    return log_add_exp(sum_a - std::log(n_a), sum_b - std::log(n_b)) - std::log(2.0);
  return log_add_exp(sum_a, sum_b) - std::log(n_a + n_b);
}

const FamilyInfo& montecarlo_family() {
  static const FamilyInfo info = [] {
    FamilyInfo family = make_family<MonteCarloModel>(kFamily, 14, "Monte Carlo estimates of k (JMLR 2004 section 5)");
    // Not a plain model, even for a mixture: the estimate needs draws from both sides.
    family.pairs_only_with_itself = true;
    return family;
  }();
  return info;
}

}  // namespace ppk
