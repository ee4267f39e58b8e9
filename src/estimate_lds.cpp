// The LDS estimator (see estimate_lds.hpp): EM with a Kalman filter and Rauch-Tung-Striebel smoother
// on one sequence. Like the HMMs, an LDS is not an exponential family: the estimator keeps the
// example's data matrix "x" and cannot pool.
#include "ppk/estimate_lds.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "estimate_detail.hpp"
#include "gaussian_em.hpp"
#include "lds_em.hpp"

namespace ppk {
namespace {

using detail::StateDynamics;
using detail::symmetrised;
using detail::trace_of_inverse;

// The parameters EM works on (an LdsModel validates on construction, once, at the end): the
// state-space model with one regime.
using Parameters = detail::SwitchingStateSpace;

Parameters parameters_of(const LdsModel& model) {
  return {model.mean0(), model.cov0(), {StateDynamics{model.transition(), model.state_noise()}}, model.observation(),
          model.observation_noise()};
}

// Every step follows the one regime.
std::vector<int> one_regime(const Eigen::MatrixXd& x) { return std::vector<int>(static_cast<std::size_t>(x.rows()), 0); }

// L = log p(X) - (r/2) (tr(cov0^-1) + tr(Q^-1) + tr(R^-1)).
double objective(const Parameters& p, double log_likelihood, double ridge) {
  if (ridge == 0.0) return log_likelihood;
  return log_likelihood - 0.5 * ridge *
                              (trace_of_inverse(p.cov0, "initial state covariance") +
                               trace_of_inverse(p.dynamics[0].noise, "state noise covariance") +
                               trace_of_inverse(p.observation_noise, "observation noise covariance"));
}

// The constrained M-step of estimate_lds.hpp from the posterior moments; `noise_floor` the floor of R.
void maximise(const Eigen::MatrixXd& x, const LdsPosterior& posterior, double ridge, const Eigen::VectorXd& noise_floor,
              Parameters& p) {
  detail::maximise_observation(x, posterior, ridge, noise_floor, p);
  p.dynamics[0] = detail::maximise_dynamics(detail::transition_sums(posterior, one_regime(x), 0), ridge, 0.0, p.dynamics[0],
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
  p.dynamics = {StateDynamics{transition, symmetrised(identity - transition * transition.transpose()) + ridge * identity}};
  p.mean0 = Eigen::VectorXd::Zero(n);
  p.cov0 = identity;
  return p;
}

// EM from `p` until converged or `iterations` M-steps; returns L after each, p is the last entry's.
std::vector<double> run_em(const Eigen::MatrixXd& x, double ridge, const Eigen::VectorXd& noise_floor,
                           const LdsFitOptions& options, Parameters& p) {
  std::vector<double> log_likelihoods;
  for (long step = 0;; ++step) {
    const LdsPosterior posterior = detail::smooth_along(p, x, one_regime(x));
    const double value = objective(p, posterior.log_likelihood, ridge);
    if (!std::isfinite(value)) throw EstimationError("the log-likelihood is not finite; give --ridge R > 0");
    const bool converged =
        !log_likelihoods.empty() && value - log_likelihoods.back() < options.tolerance * std::fabs(value);
    log_likelihoods.push_back(value);
    if (converged || step == options.iterations) break;
    maximise(x, posterior, ridge, noise_floor, p);
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
  if (options.state_dim < 1) throw EstimationError("--state-dim must be at least 1, got " + std::to_string(options.state_dim));
  if (options.ridge) detail::check_option("--ridge", *options.ridge, 0, false);
  if (options.iterations < 1) throw EstimationError("--iterations must be at least 1, got " + std::to_string(options.iterations));
  detail::check_option("--tolerance", options.tolerance, 0, false);
  if (options.restarts < 1) throw EstimationError("--restarts must be at least 1, got " + std::to_string(options.restarts));
  if (options.length && *options.length < 0)
    throw EstimationError("--length must be at least 0, got " + std::to_string(*options.length));
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
  const double ridge = options.ridge ? *options.ridge : detail::default_ridge(x);
  std::seed_seq seed{options.seed, static_cast<std::uint64_t>(x.rows()), static_cast<std::uint64_t>(x.cols()),
                     static_cast<std::uint64_t>(options.state_dim),
                     detail::fingerprint(x.data(), static_cast<std::size_t>(x.size()))};
  std::mt19937_64 rng(seed);
  const Eigen::VectorXd noise_floor = detail::observation_noise_floor(x);
  std::optional<Parameters> best;
  std::vector<double> best_log_likelihoods;
  std::optional<EstimationError> first_failure;  // a restart whose covariances became singular
  for (long restart = 0; restart < options.restarts; ++restart) {
    Parameters p = random_start(x, options.state_dim, ridge, noise_floor, rng);
    std::vector<double> log_likelihoods;
    try {
      log_likelihoods = run_em(x, ridge, noise_floor, options, p);
    } catch (const EstimationError& e) {
      if (!first_failure) first_failure = e;
      continue;
    }
    if (!best || log_likelihoods.back() > best_log_likelihoods.back()) {
      best = std::move(p);
      best_log_likelihoods = std::move(log_likelihoods);
    }
  }
  if (!best) throw *first_failure;
  LdsFit fit;
  fit.model = detail::build_model([&] {
    return std::make_unique<LdsModel>(best->mean0, best->cov0, best->dynamics[0].transition, best->dynamics[0].noise, best->observation,
                                      best->observation_noise, options.length ? *options.length : static_cast<long>(x.rows()) - 1);
  });
  fit.log_likelihoods = std::move(best_log_likelihoods);
  return fit;
}

std::unique_ptr<Estimator> lds_estimator(const LdsFitOptions& options) { return std::make_unique<LdsEstimator>(options); }

}  // namespace ppk
