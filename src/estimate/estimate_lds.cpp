// The LDS estimator (see estimate_lds.hpp): EM with a Kalman filter and Rauch-Tung-Striebel smoother
// on one sequence. Like the HMMs, an LDS is not an exponential family: the estimator keeps the
// example's data matrix "x" and cannot pool.
#include "ppk/estimate/estimate_lds.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "estimate/gaussian_em.hpp"
#include "estimate/lds_em.hpp"
#include "ppk/core/thread_pool.hpp"

namespace ppk {
namespace {

using detail::Regularisation;
using detail::StateDynamics;
using detail::symmetrised;

// The parameters EM works on (an LdsModel validates on construction, once, at the end): the
// state-space model with one regime.
using Parameters = detail::SwitchingStateSpace;

Parameters parameters_of(const LdsModel& model) {
  return {model.mean0(),
          model.cov0(),
          {StateDynamics{model.transition(), model.state_noise()}},
          model.observation(),
          model.observation_noise()};
}

// Every step follows the one regime.
std::vector<int> one_regime(const Eigen::MatrixXd& x) { return std::vector<int>(static_cast<std::size_t>(x.rows()), 0); }

// L = log p(X) + the log priors (detail::covariance_penalty).
double objective(const Parameters& p, double log_likelihood, const Regularisation& regularisation) {
  return log_likelihood + detail::covariance_penalty(p, regularisation);
}

// The constrained M-step of estimate_lds.hpp from the posterior moments; `noise_floor` the floor of R.
void maximise(const Eigen::MatrixXd& x, const LdsPosterior& posterior, const Regularisation& regularisation,
              const Eigen::VectorXd& noise_floor, Parameters& p) {
  detail::maximise_observation(x, posterior, regularisation, noise_floor, p);
  p.dynamics[0] =
      detail::maximise_dynamics(detail::transition_sums(posterior, one_regime(x), 0), regularisation, 0.0, p.dynamics[0],
                                detail::state_noise_floor(posterior), &detail::spectral_radius);
}

// The starting point of one restart (estimate_lds.hpp).
Parameters random_start(const Eigen::MatrixXd& x, long states, double ridge, const Eigen::VectorXd& noise_floor,
                        std::mt19937_64& rng) {
  const Eigen::Index n = states, d = x.cols();
  std::normal_distribution<double> normal;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> pca(x.transpose() * x / static_cast<double>(x.rows()));
  const Eigen::VectorXd eigenvalues = pca.eigenvalues().reverse();  // descending
  const Eigen::MatrixXd eigenvectors = pca.eigenvectors().rowwise().reverse();
  const double mean_eigenvalue = eigenvalues.mean() > 0.0 ? eigenvalues.mean() : 1.0;
  double noise = n < d ? eigenvalues.tail(d - n).mean() : 0.1 * mean_eigenvalue;  // sigma^2
  noise = std::max(noise, 1e-3 * mean_eigenvalue);
  Parameters p;
  p.observation = Eigen::MatrixXd::NullaryExpr(d, n, [&] { return 0.05 * std::sqrt(noise) * normal(rng); });
  for (Eigen::Index j = 0; j < std::min(n, d); ++j)
    p.observation.col(j) += eigenvectors.col(j) * std::sqrt(std::max(eigenvalues(j) - noise, 0.01 * noise));
  p.observation_noise = detail::floored_covariance((noise + ridge) * Eigen::MatrixXd::Identity(d, d), noise_floor);
  const Eigen::MatrixXd a = Eigen::MatrixXd::NullaryExpr(n, n, [&] { return normal(rng); });
  const double norm = std::uniform_real_distribution<double>(0.5, 0.95)(rng);
  const Eigen::MatrixXd transition = a * (norm / Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues()(0));
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(n, n);
  p.dynamics = {
      StateDynamics{transition, symmetrised(identity - transition * transition.transpose()) + ridge * identity}};
  p.mean0 = Eigen::VectorXd::Zero(n);
  p.cov0 = identity;
  return p;
}

// EM from `p` until converged or `iterations` M-steps; returns L after each, p is the last entry's.
std::vector<double> run_em(const Eigen::MatrixXd& x, const Regularisation& regularisation,
                           const Eigen::VectorXd& noise_floor, const LdsFitOptions& options, Parameters& p) {
  std::vector<double> log_likelihoods;
  const std::vector<int> regimes = one_regime(x);
  LdsPosterior posterior;
  for (long step = 0;; ++step) {
    detail::smooth_along(p, x, regimes, posterior);
    const double value = objective(p, posterior.log_likelihood, regularisation);
    if (!std::isfinite(value)) throw OptionError("the log-likelihood is not finite; give {ridge} R > 0");
    const bool converged =
        !log_likelihoods.empty() && value - log_likelihoods.back() < options.tolerance * std::fabs(value);
    log_likelihoods.push_back(value);
    if (converged || step == options.iterations) break;
    maximise(x, posterior, regularisation, noise_floor, p);
  }
  return log_likelihoods;
}

class LdsEstimator : public detail::DataMatrixEstimator {
 public:
  explicit LdsEstimator(const LdsFitOptions& options) : options_(options) { detail::check_lds_options(options); }
  std::string family() const override { return "lds"; }
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    return std::move(fit_lds(detail::data_of(statistics), options_).model);
  }

 private:
  LdsFitOptions options_;
};

}  // namespace

namespace detail {

void check_lds_options(const LdsFitOptions& options) {
  if (options.state_dim < 1)
    throw OptionError("{state_dim} must be at least 1, got " + std::to_string(options.state_dim));
  if (options.ridge) detail::check_option("ridge", *options.ridge, 0, false);
  detail::check_option("prior.strength", options.prior.strength, 0, false);
  detail::check_option("prior.state_noise", options.prior.state_noise, 0, true);
  detail::check_option("prior.observation_noise", options.prior.observation_noise, 0, true);
  if (options.iterations < 1)
    throw OptionError("{iterations} must be at least 1, got " + std::to_string(options.iterations));
  detail::check_option("tolerance", options.tolerance, 0, false);
  if (options.restarts < 1) throw OptionError("{restarts} must be at least 1, got " + std::to_string(options.restarts));
  if (options.length && *options.length < 0)
    throw OptionError("{length} must be at least 0, got " + std::to_string(*options.length));
}

}  // namespace detail

LdsPosterior smooth_lds(const LdsModel& model, const Eigen::MatrixXd& x) {
  if (x.rows() < 1 || x.cols() != model.observation_dim())
    throw EstimationError("the sequence must have at least 1 vector of dimension d = " +
                          std::to_string(model.observation_dim()));
  return detail::smooth_along(parameters_of(model), x, one_regime(x));
}

LdsFit fit_lds(const Eigen::MatrixXd& x, const LdsFitOptions& options) {
  detail::check_lds_options(options);
  if (x.rows() < 2)
    throw EstimationError("the sequence has " + detail::vector_count(static_cast<double>(x.rows())) +
                          "; an LDS fit needs at least 2 (one transition)");
  if (x.cols() < 1) throw EstimationError("the vectors are empty");
  if (!x.allFinite()) throw EstimationError("the vectors must have finite values");
  const Regularisation regularisation = detail::regularisation_of(x, options);
  std::seed_seq seed{options.seed, static_cast<std::uint64_t>(x.rows()), static_cast<std::uint64_t>(x.cols()),
                     static_cast<std::uint64_t>(options.state_dim),
                     detail::fingerprint(x.data(), static_cast<std::size_t>(x.size()))};
  std::mt19937_64 rng(seed);
  const Eigen::VectorXd noise_floor = detail::observation_noise_floor(x);
  std::optional<Parameters> best;
  std::vector<double> best_log_likelihoods;
  std::exception_ptr first_failure;  // a restart whose covariances became singular
  for (long restart = 0; restart < options.restarts; ++restart) {
    Parameters p = random_start(x, options.state_dim, regularisation.ridge, noise_floor, rng);
    std::vector<double> log_likelihoods;
    try {
      log_likelihoods = run_em(x, regularisation, noise_floor, options, p);
    } catch (const EstimationError&) {
      if (!first_failure) first_failure = std::current_exception();
      continue;
    }
    if (!best || log_likelihoods.back() > best_log_likelihoods.back()) {
      best = std::move(p);
      best_log_likelihoods = std::move(log_likelihoods);
    }
  }
  if (!best) std::rethrow_exception(first_failure);
  LdsFit fit;
  fit.model = detail::build_model([&] {
    return std::make_unique<LdsModel>(best->mean0, best->cov0, best->dynamics[0].transition, best->dynamics[0].noise,
                                      best->observation, best->observation_noise,
                                      options.length ? *options.length : static_cast<long>(x.rows()) - 1);
  });
  fit.log_likelihoods = std::move(best_log_likelihoods);
  return fit;
}

namespace {

// The stationary covariance of s_t = A s_{t-1} + N(0, Q) (rho(A) < 1): Sigma = sum_k A^k Q A'^k, by
// doubling (Sigma <- Sigma + M Sigma M', M <- M^2 sums 2^j terms after j rounds).
Eigen::MatrixXd stationary_covariance(const Eigen::MatrixXd& transition, const Eigen::MatrixXd& noise) {
  Eigen::MatrixXd sigma = noise, power = transition;
  for (int round = 0; round < 40; ++round) {
    sigma = symmetrised(sigma + power * sigma * power.transpose());
    power = power * power;
  }
  return sigma;
}

}  // namespace

std::vector<double> default_prior_strengths() { return {0.0, 1.0, 4.0, 16.0, 64.0, 256.0}; }

LdsPriorChoice choose_lds_prior(const std::vector<Eigen::MatrixXd>& sequences, const LdsFitOptions& options,
                                const std::vector<double>& strengths, long max_sequences, unsigned threads) {
  detail::check_lds_options(options);
  // The sequences of at least 3 vectors, evenly spaced, at most max_sequences of them and at most
  // kChoiceVectors vectors in all (at least one sequence).
  constexpr Eigen::Index kChoiceVectors = 1000;
  std::vector<const Eigen::MatrixXd*> long_enough, used;
  for (const Eigen::MatrixXd& x : sequences)
    if (x.rows() >= 3) long_enough.push_back(&x);
  const std::size_t count = std::min(long_enough.size(), static_cast<std::size_t>(std::max(1L, max_sequences)));
  Eigen::Index vectors = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Eigen::MatrixXd* x = long_enough[i * long_enough.size() / count];
    if (!used.empty() && vectors + x->rows() > kChoiceVectors) break;
    used.push_back(x);
    vectors += x->rows();
  }
  LdsPriorChoice out;
  out.strengths = strengths;
  out.sequences_used = static_cast<long>(used.size());
  if (used.empty()) return out;  // nothing to choose on: no prior (nu = 0)
  // Cheaper fits than the final ones: one restart, at most 100 iterations, tolerance at least 1e-6.
  LdsFitOptions fit_options = options;
  fit_options.prior = LdsPrior{};
  fit_options.length.reset();
  fit_options.restarts = 1;
  fit_options.iterations = std::min(options.iterations, 100L);
  fit_options.tolerance = std::max(options.tolerance, 1e-6);
  // psi and phi: geometric means over the maximum-likelihood fits (nu = 0) of the scale-free ratios
  // tr(Sigma^-1 Q) / n (Sigma the fit's stationary state covariance) and mean_j R_jj / v_j.
  std::vector<double> log_states(used.size(), std::nan("")), log_observations(used.size(), std::nan(""));
  for_each_range(used.size(), threads, 1, 0.01, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      try {
        const LdsFit fit = fit_lds(*used[i], fit_options);
        const LdsModel& m = *fit.model;
        const Eigen::MatrixXd sigma = stationary_covariance(m.transition(), m.state_noise());
        const double state = sigma.llt().solve(m.state_noise()).trace() / static_cast<double>(m.state_dim());
        const Eigen::VectorXd variances = detail::observation_noise_floor(*used[i]) / detail::kObservationNoiseFloor;
        const double observation = (m.observation_noise().diagonal().array() / variances.array()).mean();
        if (state > 0.0 && observation > 0.0 && std::isfinite(state) && std::isfinite(observation)) {
          log_states[i] = std::log(state);
          log_observations[i] = std::log(observation);
        }
      } catch (const EstimationError&) {  // a sequence EM cannot fit does not count
      }
    }
  });
  double log_state = 0, log_observation = 0, fits = 0;
  for (std::size_t i = 0; i < used.size(); ++i)
    if (!std::isnan(log_states[i])) {
      log_state += log_states[i];
      log_observation += log_observations[i];
      fits += 1;
    }
  if (fits > 0) {
    out.prior.state_noise = std::exp(log_state / fits);
    out.prior.observation_noise = std::exp(log_observation / fits);
  }
  // nu: the fit to the first N - h vectors (h = max(1, N / 3)) scores the last h as a fresh sequence,
  // started from (mean0, cov0): what a kernel between models of different sequences asks of cov0.
  std::vector<double> scores(strengths.size() * used.size());
  for_each_range(scores.size(), threads, 1, 0.01, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      LdsFitOptions held_out_options = fit_options;
      held_out_options.prior = out.prior;
      held_out_options.prior.strength = strengths[k / used.size()];
      const Eigen::MatrixXd& x = *used[k % used.size()];
      const Eigen::Index held = std::max<Eigen::Index>(1, x.rows() / 3);
      try {
        const LdsFit fit = fit_lds(x.topRows(x.rows() - held), held_out_options);
        scores[k] = smooth_lds(*fit.model, x.bottomRows(held)).log_likelihood;
      } catch (const EstimationError&) {
        scores[k] = -std::numeric_limits<double>::infinity();
      }
    }
  });
  double best = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < strengths.size(); ++j) {
    double score = 0;
    for (std::size_t i = 0; i < used.size(); ++i) score += scores[j * used.size() + i];
    out.held_out_log_likelihoods.push_back(score);
    if (score > best) {
      best = score;
      out.prior.strength = strengths[j];
    }
  }
  return out;
}

std::unique_ptr<Estimator> lds_estimator(const LdsFitOptions& options) { return std::make_unique<LdsEstimator>(options); }

}  // namespace ppk
