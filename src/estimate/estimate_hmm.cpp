// The HMM estimator (see estimate.hpp): Baum-Welch on one sequence, with discrete (one-event
// multinomial) or Gaussian emissions. Like the mixtures, an HMM is not an exponential family: the
// estimator keeps the example's sequence (the symbols, or the data matrix "x") and cannot pool.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "estimate/gaussian_em.hpp"
#include "core/model_fields.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk {

namespace detail {

ChainPosteriors forward_backward(const MarkovChain& chain, const Eigen::MatrixXd& log_emissions) {
  const Eigen::Index n = log_emissions.rows(), m = log_emissions.cols();
  const Eigen::VectorXd log_max = log_emissions.rowwise().maxCoeff();  // log m_t
  const Eigen::MatrixXd b = detail::exp_entries((log_emissions.colwise() - log_max).array()).matrix();
  Eigen::MatrixXd alpha(n, m);
  Eigen::VectorXd scale(n);  // c_t
  alpha.row(0) = chain.start.transpose().cwiseProduct(b.row(0));
  for (Eigen::Index t = 0; t < n; ++t) {
    if (t > 0) alpha.row(t) = (alpha.row(t - 1) * chain.transitions).cwiseProduct(b.row(t));
    scale(t) = alpha.row(t).sum();
    alpha.row(t) /= scale(t);
  }
  // beta_t, and (b_t .* beta_t) / c_t for t >= 1, the factor xi_{t-1} takes from step t.
  Eigen::MatrixXd beta(n, m), ahead(n, m);
  beta.row(n - 1).setOnes();
  for (Eigen::Index t = n - 1; t > 0; --t) {
    ahead.row(t) = b.row(t).cwiseProduct(beta.row(t)) / scale(t);
    beta.row(t - 1) = (chain.transitions * ahead.row(t).transpose()).transpose();
  }
  ChainPosteriors out;
  out.log_likelihood = scale.array().log().sum() + log_max.sum();
  out.states = alpha.cwiseProduct(beta);
  out.transition_counts = chain.transitions.cwiseProduct(alpha.topRows(n - 1).transpose() * ahead.bottomRows(n - 1));
  return out;
}

void normalise_rows(const Eigen::MatrixXd& counts, double a, Eigen::MatrixXd& rows) {
  for (Eigen::Index p = 0; p < counts.rows(); ++p) {
    const double total = counts.row(p).sum() + a * static_cast<double>(counts.cols());
    if (total > 0.0) rows.row(p) = (counts.row(p).array() + a).matrix() / total;
  }
}

double log_dirichlet_prior(const Eigen::MatrixXd& p, double a) { return a > 0.0 ? a * p.array().log().sum() : 0.0; }

Eigen::MatrixXd random_rows(Eigen::Index rows, Eigen::Index cols, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Eigen::MatrixXd p(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index c = 0; c < cols; ++c) p(r, c) = 0.5 + uniform(rng);
    p.row(r) /= p.row(r).sum();
  }
  return p;
}

}  // namespace detail

namespace {

using Chain = detail::MarkovChain;
using Posteriors = detail::ChainPosteriors;
using detail::log_dirichlet_prior;
using detail::normalise_rows;
using detail::random_rows;

// The emission models of the M hidden states during Baum-Welch.
class Emissions {
 public:
  virtual ~Emissions() = default;
  // log p_q(x_t), n x M.
  virtual Eigen::MatrixXd log_probabilities() const = 0;
  // The emissions' terms of the penalised objective L.
  virtual double log_prior() const = 0;
  // The M-step from gamma_t(q) (n x M).
  virtual void update(const Eigen::MatrixXd& states) = 0;
  virtual std::unique_ptr<Model> model(std::size_t q) const = 0;
};

// E_qo = P(x_t = o | s_t = q); the symbols in 0..O-1.
class DiscreteEmissions : public Emissions {
 public:
  DiscreteEmissions(const std::vector<long>& sequence, Eigen::MatrixXd probabilities, double smoothing)
      : sequence_(sequence), probabilities_(std::move(probabilities)), smoothing_(smoothing) {}
  Eigen::MatrixXd log_probabilities() const override {
    const Eigen::MatrixXd log_e = probabilities_.array().log().matrix();
    Eigen::MatrixXd out(static_cast<Eigen::Index>(sequence_.size()), log_e.rows());
    for (std::size_t t = 0; t < sequence_.size(); ++t)
      out.row(static_cast<Eigen::Index>(t)) = log_e.col(sequence_[t]).transpose();
    return out;
  }
  double log_prior() const override { return log_dirichlet_prior(probabilities_, smoothing_); }
  // E_qo ∝ sum_{t: x_t = o} gamma_t(q) + a.
  void update(const Eigen::MatrixXd& states) override {
    Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(probabilities_.rows(), probabilities_.cols());
    for (std::size_t t = 0; t < sequence_.size(); ++t)
      counts.col(sequence_[t]) += states.row(static_cast<Eigen::Index>(t)).transpose();
    normalise_rows(counts, smoothing_, probabilities_);
  }
  std::unique_ptr<Model> model(std::size_t q) const override {
    const Eigen::VectorXd row = probabilities_.row(static_cast<Eigen::Index>(q)).transpose();
    return detail::build_model([&] {
      return std::make_unique<MultinomialModel>(
          SparseProbabilities::from_dense(std::vector<double>(row.data(), row.data() + row.size())), Trials{});
    });
  }

 private:
  const std::vector<long>& sequence_;
  Eigen::MatrixXd probabilities_;  // M x O
  double smoothing_;
};

// N(mu_q, Sigma_q) updated as the mixture's components, with responsibilities gamma_t(q).
class GaussianEmissions : public Emissions {
 public:
  GaussianEmissions(const Eigen::MatrixXd& x, detail::GaussianComponents gaussians, double ridge,
                    const CovariancePrior* prior)
      : x_(x), gaussians_(std::move(gaussians)), ridge_(ridge), prior_(prior) {}
  Eigen::MatrixXd log_probabilities() const override { return detail::log_densities(x_, gaussians_); }
  double log_prior() const override {
    return detail::covariance_log_prior(gaussians_, prior_) - detail::ridge_penalty(gaussians_, ridge_);
  }
  void update(const Eigen::MatrixXd& states) override {
    detail::update_gaussians(x_, states, ridge_, prior_, gaussians_);
  }
  std::unique_ptr<Model> model(std::size_t q) const override { return detail::gaussian_model(gaussians_, q); }

 private:
  const Eigen::MatrixXd& x_;
  detail::GaussianComponents gaussians_;
  double ridge_;
  const CovariancePrior* prior_;  // null: none
};

// Baum-Welch from the given start; returns L after 0, 1, 2, ... M-steps (the last for the final
// parameters).
std::vector<double> run_baum_welch(Chain& chain, Emissions& emissions, const HmmFitOptions& options) {
  const double a = options.smoothing;
  std::vector<double> log_likelihoods;
  for (long step = 0;; ++step) {
    const Posteriors posteriors = detail::forward_backward(chain, emissions.log_probabilities());
    const double objective = posteriors.log_likelihood + log_dirichlet_prior(chain.start, a) +
                             log_dirichlet_prior(chain.transitions, a) + emissions.log_prior();
    const bool converged =
        !log_likelihoods.empty() && objective - log_likelihoods.back() < options.tolerance * std::fabs(objective);
    log_likelihoods.push_back(objective);
    if (converged || step == options.iterations) break;
    // M-step: pi_q ∝ gamma_0(q) + a, A_pq ∝ sum_t xi_t(p, q) + a, then the emissions.
    Eigen::MatrixXd start = chain.start.transpose();
    normalise_rows(posteriors.states.row(0), a, start);
    chain.start = start.transpose();
    normalise_rows(posteriors.transition_counts, a, chain.transitions);
    emissions.update(posteriors.states);
  }
  return log_likelihoods;
}

Chain random_chain(long states, std::mt19937_64& rng) {
  Chain chain;
  chain.start = random_rows(1, states, rng).transpose();
  chain.transitions = random_rows(states, states, rng);
  return chain;
}

void check_options(const HmmFitOptions& options) {
  if (options.states && *options.states < 1)
    throw OptionError("{states} must be at least 1 (or auto), got " + std::to_string(*options.states));
  detail::check_option("param_ratio", options.param_ratio, 0, true);
  detail::check_sequence_em_options(options);
  if (options.prior && options.emissions != HmmEmissions::gaussian)
    throw OptionError("{prior} is a prior on Gaussian emissions' covariances: it needs {emissions} gaussian");
}

// The number of emission parameters per state, the O of the state rule for Gaussian emissions.
long gaussian_parameters(long dim, CovarianceForm form) {
  switch (form) {
    case CovarianceForm::isotropic: return dim + 1;
    case CovarianceForm::diagonal: return 2 * dim;
    case CovarianceForm::full: break;
  }
  return dim + dim * (dim + 1) / 2;
}

// The restarts from `seed_stream`: each makes a chain and emissions from the generator, runs
// Baum-Welch, and the largest final L is kept; then the HMM of n observations.
template <class MakeEmissions>
HmmFit best_of_restarts(long states, Eigen::Index n, std::seed_seq& seed_stream, const HmmFitOptions& options,
                        MakeEmissions make_emissions) {
  std::mt19937_64 rng(seed_stream);
  std::optional<Chain> best_chain;
  std::unique_ptr<Emissions> best_emissions;
  std::vector<double> best_log_likelihoods;
  for (long restart = 0; restart < options.restarts; ++restart) {
    Chain chain = random_chain(states, rng);
    std::unique_ptr<Emissions> emissions = make_emissions(rng);
    std::vector<double> log_likelihoods = run_baum_welch(chain, *emissions, options);
    if (!best_chain || log_likelihoods.back() > best_log_likelihoods.back()) {
      best_chain = std::move(chain);
      best_emissions = std::move(emissions);
      best_log_likelihoods = std::move(log_likelihoods);
    }
  }
  std::vector<std::unique_ptr<Model>> models;
  for (long q = 0; q < states; ++q) models.push_back(best_emissions->model(static_cast<std::size_t>(q)));
  HmmFit fit;
  fit.model = detail::build_model([&] {
    return std::make_unique<HmmModel>(best_chain->start, best_chain->transitions, std::move(models),
                                      options.length ? *options.length : static_cast<long>(n) - 1);
  });
  fit.log_likelihoods = std::move(best_log_likelihoods);
  return fit;
}

// The statistic "symbols" (n x 1) as the sequence.
std::vector<long> symbols_of(const Statistics& statistics) {
  const Eigen::MatrixXd& symbols = detail::sum_of(statistics, "symbols");
  return std::vector<long>(symbols.data(), symbols.data() + symbols.size());
}

class HmmEstimator : public Estimator {
 public:
  explicit HmmEstimator(const HmmFitOptions& options) : options_(options) { check_options(options); }
  std::string family() const override { return "hmm"; }
  // Discrete: the symbols, each vector one-hot; Gaussian: the data matrix "x".
  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    if (options_.emissions == HmmEmissions::gaussian) {
      statistics.sums["x"] = detail::data_matrix(vectors, dim);
      return statistics;
    }
    Eigen::MatrixXd symbols(static_cast<Eigen::Index>(vectors.size()), 1);
    for (std::size_t t = 0; t < vectors.size(); ++t) {
      if (vectors[t].size() != 1 || vectors[t][0].value != 1.0)
        throw OptionError("observation " + std::to_string(t + 1) +
                          " is not one symbol: discrete emissions take each vector as a single "
                          "index:1 entry, the symbol's index (use {emissions} gaussian for real vectors)");
      symbols(static_cast<Eigen::Index>(t), 0) = static_cast<double>(vectors[t][0].coord);
    }
    statistics.sums["symbols"] = std::move(symbols);
    return statistics;
  }
  Statistics pool(const Statistics&, const Statistics&, double) const override { detail::reject_pooling(family()); }
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    if (options_.emissions == HmmEmissions::gaussian)
      return std::move(fit_gaussian_hmm(detail::data_of(statistics), options_).model);
    return std::move(fit_discrete_hmm(symbols_of(statistics), statistics.dim, options_).model);
  }

 private:
  HmmFitOptions options_;
};

}  // namespace

long hmm_auto_states(long symbols, long length, double param_ratio) {
  const double o = static_cast<double>(symbols), t = static_cast<double>(length);
  return static_cast<long>(std::floor(0.5 * std::sqrt(o * o + 4.0 * (t * param_ratio + o + 1.0)) - 0.5 * o)) + 1;
}

HmmFit fit_discrete_hmm(const std::vector<long>& sequence, long alphabet, const HmmFitOptions& options) {
  check_options(options);
  if (sequence.empty()) throw EstimationError("the sequence is empty");
  if (alphabet < 1) throw EstimationError("the alphabet must have at least 1 symbol");
  for (std::size_t t = 0; t < sequence.size(); ++t)
    if (sequence[t] < 0 || sequence[t] >= alphabet)
      throw EstimationError("symbol " + std::to_string(sequence[t]) + " at position " + std::to_string(t + 1) +
                            " is outside the alphabet 0.." + std::to_string(alphabet - 1));
  const long n = static_cast<long>(sequence.size());
  const long states = options.states ? *options.states : hmm_auto_states(alphabet, n, options.param_ratio);
  std::seed_seq seed{options.seed, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(alphabet),
                     detail::fingerprint(sequence.data(), sequence.size())};
  return best_of_restarts(states, n, seed, options, [&](std::mt19937_64& rng) -> std::unique_ptr<Emissions> {
    return std::make_unique<DiscreteEmissions>(sequence, random_rows(states, alphabet, rng), options.smoothing);
  });
}

HmmFit fit_gaussian_hmm(const Eigen::MatrixXd& x, const HmmFitOptions& options) {
  check_options(options);
  if (x.rows() < 1 || x.cols() < 1) throw EstimationError("the sequence is empty");
  if (!x.allFinite()) throw EstimationError("the vectors must have finite values");
  const long n = static_cast<long>(x.rows()), dim = static_cast<long>(x.cols());
  const long states = options.states
                          ? *options.states
                          : hmm_auto_states(gaussian_parameters(dim, options.covariance), n, options.param_ratio);
  const double ridge = options.ridge ? *options.ridge : detail::default_ridge(x);
  if (options.prior) check_covariance_prior(*options.prior, options.covariance, dim);
  const CovariancePrior* prior = options.prior ? &*options.prior : nullptr;
  std::seed_seq seed{options.seed, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(dim),
                     detail::fingerprint(x.data(), static_cast<std::size_t>(x.size()))};
  return best_of_restarts(states, n, seed, options, [&](std::mt19937_64& rng) -> std::unique_ptr<Emissions> {
    return std::make_unique<GaussianEmissions>(x, detail::seed_gaussians(x, states, options.covariance, ridge, rng),
                                               ridge, prior);
  });
}

std::unique_ptr<Estimator> hmm_estimator(const HmmFitOptions& options) { return std::make_unique<HmmEstimator>(options); }

}  // namespace ppk
