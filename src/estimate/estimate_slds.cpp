// The SLDS estimator (see estimate_slds.hpp): hard-assignment EM started from the LDS fit, reusing
// the LDS fit's smoother and M-step (lds_em.hpp). Like the LDS, it keeps the example's data matrix
// "x" and cannot pool.
#include "ppk/estimate/estimate_slds.hpp"

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
#include "core/model_fields.hpp"
#include "ppk/estimate/estimate_lds.hpp"

namespace ppk {
namespace {

using detail::StateDynamics;
using Path = std::vector<int>;

const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);

// The parameters hard EM works on (an SldsModel validates on construction, once, at the end).
struct Parameters {
  detail::SwitchingStateSpace space;  // regime k: (A_k, Q_k)
  Eigen::VectorXd log_start;          // log pi
  Eigen::MatrixXd log_transitions;    // log trans, row j: from regime j
};

// E_q log N(s_t; A s_{t-1}, Q) for every step t >= 1 (row t - 1) and regime (column), q the posterior.
Eigen::MatrixXd expected_transition_log_densities(const Parameters& p, const LdsPosterior& q) {
  const std::size_t steps = q.means.size() - 1, regimes = p.space.dynamics.size();
  const double n = static_cast<double>(p.space.mean0.size());
  Eigen::MatrixXd out(steps, regimes);
  for (std::size_t k = 0; k < regimes; ++k) {
    const StateDynamics& dynamics = p.space.dynamics[k];
    const Eigen::LLT<Eigen::MatrixXd> noise(dynamics.noise);
    if (noise.info() != Eigen::Success)
      throw OptionError("a state noise covariance is not positive definite; give {ridge} R > 0");
    const double log_det = 2.0 * noise.matrixLLT().diagonal().array().log().sum();
    for (std::size_t t = 1; t <= steps; ++t) {
      const Eigen::MatrixXd lag = q.lag_covariances[t - 1] + q.means[t] * q.means[t - 1].transpose();  // E s_t s_t-1'
      const Eigen::MatrixXd cross = dynamics.transition * lag.transpose();                             // A E s_t-1 s_t'
      const Eigen::MatrixXd residual = detail::second_moment(q, static_cast<Eigen::Index>(t)) - cross -
                                       cross.transpose() +
                                       dynamics.transition * detail::second_moment(q, static_cast<Eigen::Index>(t - 1)) *
                                           dynamics.transition.transpose();  // E[e e']
      out(static_cast<Eigen::Index>(t - 1), static_cast<Eigen::Index>(k)) =
          -0.5 * (n * kLog2Pi + log_det + noise.solve(residual).trace());
    }
  }
  return out;
}

// Step (2): the Viterbi path r_0..r_T under the chain of p and the scores of the steps t >= 1.
Path best_path(const Parameters& p, const Eigen::MatrixXd& scores) {
  const Eigen::Index steps = scores.rows(), regimes = scores.cols();
  Eigen::VectorXd best = p.log_start;  // max over r_0..r_{t-1} of the objective ending in r_t = k
  std::vector<Path> from(static_cast<std::size_t>(steps), Path(static_cast<std::size_t>(regimes)));
  for (Eigen::Index t = 1; t <= steps; ++t) {
    Eigen::VectorXd next(regimes);
    for (Eigen::Index k = 0; k < regimes; ++k) {
      Eigen::Index argmax = 0;
      double value = -std::numeric_limits<double>::infinity();
      for (Eigen::Index j = 0; j < regimes; ++j) {
        const double candidate = best(j) + p.log_transitions(j, k);
        if (candidate > value) {
          value = candidate;
          argmax = j;
        }
      }
      next(k) = value + scores(t - 1, k);
      from[static_cast<std::size_t>(t - 1)][static_cast<std::size_t>(k)] = static_cast<int>(argmax);
    }
    best = std::move(next);
  }
  Path path(static_cast<std::size_t>(steps + 1));
  Eigen::Index last = 0;
  best.maxCoeff(&last);
  path.back() = static_cast<int>(last);
  for (Eigen::Index t = steps; t >= 1; --t)
    path[static_cast<std::size_t>(t - 1)] =
        from[static_cast<std::size_t>(t - 1)][static_cast<std::size_t>(path[static_cast<std::size_t>(t)])];
  return path;
}

// log of (counts + a) normalised per row; a row with no count and a = 0 is uniform.
Eigen::MatrixXd log_normalised_rows(Eigen::MatrixXd counts, double smoothing) {
  counts.array() += smoothing;
  for (Eigen::Index j = 0; j < counts.rows(); ++j) {
    const double total = counts.row(j).sum();
    if (total > 0.0)
      counts.row(j) /= total;
    else
      counts.row(j).setConstant(1.0 / static_cast<double>(counts.cols()));
  }
  return counts.array().log().matrix();
}

// Step (3): the M-step given the posterior q along the path.
void maximise(const Eigen::MatrixXd& x, const LdsPosterior& q, const Path& path,
              const detail::Regularisation& regularisation, double smoothing, const Eigen::VectorXd& noise_floor,
              Parameters& p) {
  const auto regimes = static_cast<Eigen::Index>(p.space.dynamics.size());
  detail::maximise_observation(x, q, regularisation, noise_floor, p.space);
  const double state_noise_floor = detail::state_noise_floor(q);
  for (Eigen::Index k = 0; k < regimes; ++k) {
    const detail::TransitionSums sums = detail::transition_sums(q, path, static_cast<int>(k));
    StateDynamics& dynamics = p.space.dynamics[static_cast<std::size_t>(k)];
    if (sums.steps > 0)
      dynamics = detail::maximise_dynamics(sums, regularisation, regularisation.ridge, dynamics, state_noise_floor,
                                           &detail::spectral_norm);
  }
  Eigen::MatrixXd start = Eigen::MatrixXd::Zero(1, regimes), transitions = Eigen::MatrixXd::Zero(regimes, regimes);
  start(0, path[0]) = 1.0;
  for (std::size_t t = 1; t < path.size(); ++t) transitions(path[t - 1], path[t]) += 1.0;
  p.log_start = log_normalised_rows(start, smoothing).row(0).transpose();
  p.log_transitions = log_normalised_rows(transitions, smoothing);
}

// J of estimate_slds.hpp, given log p(X | r, theta) from the smoother.
double objective(const Parameters& p, const Path& path, double log_likelihood,
                 const detail::Regularisation& regularisation, double smoothing) {
  double value = log_likelihood + p.log_start(path[0]);
  for (std::size_t t = 1; t < path.size(); ++t) value += p.log_transitions(path[t - 1], path[t]);
  if (smoothing > 0.0) value += smoothing * (p.log_start.sum() + p.log_transitions.sum());
  value += detail::covariance_penalty(p.space, regularisation);
  // The matrix-normal prior on each A_k: -(r/2) tr(Q_k^-1 A_k A_k').
  if (regularisation.ridge > 0.0)
    for (const StateDynamics& dynamics : p.space.dynamics)
      value -= 0.5 * regularisation.ridge *
               (dynamics.noise.llt().solve(dynamics.transition * dynamics.transition.transpose())).trace();
  return value;
}

void check_options(const SldsFitOptions& options) {
  if (options.states < 1) throw OptionError("{states} must be at least 1, got " + std::to_string(options.states));
  if (options.paths < 1) throw OptionError("{paths} must be at least 1, got " + std::to_string(options.paths));
  detail::check_option("smoothing", options.smoothing, 0, false);
  detail::check_lds_options(options);
}

// The local linear dynamics of the start (estimate_slds.hpp): for each step t = 1..T, the least-squares
// B_t of x_u ~ B x_{u-1} over the steps u of its window, |u - t| <= h clipped to 1..T,
// B_t = L_t (P_t + e I)^-1, L_t = sum x_u x_{u-1}', P_t = sum x_{u-1} x_{u-1}' (differences of running
// sums), e = 1e-6 times the mean square of the entries x_{u-1},j plus 1e-12, so that a window of
// zeros or of collinear vectors is solved too; row t - 1 of the result is vec(B_t).
Eigen::MatrixXd local_dynamics(const Eigen::MatrixXd& x, Eigen::Index half_width) {
  const Eigen::Index steps = x.rows() - 1, d = x.cols();
  std::vector<Eigen::MatrixXd> lag(static_cast<std::size_t>(steps + 1), Eigen::MatrixXd::Zero(d, d)),
      previous = lag;  // running sums over u = 1..t at index t
  for (Eigen::Index u = 1; u <= steps; ++u) {
    const auto t = static_cast<std::size_t>(u);
    lag[t] = lag[t - 1] + x.row(u).transpose() * x.row(u - 1);
    previous[t] = previous[t - 1] + x.row(u - 1).transpose() * x.row(u - 1);
  }
  const double ridge = 1e-6 * (previous.back().trace() / static_cast<double>(steps * d)) + 1e-12;
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(d, d);
  Eigen::MatrixXd out(steps, d * d);
  for (Eigen::Index t = 1; t <= steps; ++t) {
    const auto last = static_cast<std::size_t>(std::min(steps, t + half_width)),
               before = static_cast<std::size_t>(std::max<Eigen::Index>(1, t - half_width) - 1);
    const Eigen::MatrixXd window_previous = previous[last] - previous[before] + ridge * identity;
    const Eigen::MatrixXd b = window_previous.llt().solve((lag[last] - lag[before]).transpose()).transpose();
    out.row(t - 1) = Eigen::Map<const Eigen::RowVectorXd>(b.data(), d * d);
  }
  return out;
}

// Lloyd's k-means on the rows of `points` from k-means++ means (detail::seed_gaussians): the label of
// each row, its nearest mean (ties: the lowest label), once the labels no longer change.
Path k_means(const Eigen::MatrixXd& points, Eigen::Index clusters, std::mt19937_64& rng) {
  std::vector<Eigen::VectorXd> means =
      detail::seed_gaussians(points, static_cast<long>(clusters), CovarianceForm::isotropic, 0.0, rng).means;
  Path labels(static_cast<std::size_t>(points.rows()), -1);
  for (bool changed = true; changed;) {
    changed = false;
    for (Eigen::Index i = 0; i < points.rows(); ++i) {
      Eigen::Index nearest = 0;
      double distance = std::numeric_limits<double>::infinity();
      for (Eigen::Index k = 0; k < clusters; ++k) {
        const double candidate = (points.row(i).transpose() - means[static_cast<std::size_t>(k)]).squaredNorm();
        if (candidate < distance) {
          distance = candidate;
          nearest = k;
        }
      }
      changed |= labels[static_cast<std::size_t>(i)] != static_cast<int>(nearest);
      labels[static_cast<std::size_t>(i)] = static_cast<int>(nearest);
    }
    for (Eigen::Index k = 0; k < clusters; ++k) {
      Eigen::VectorXd sum = Eigen::VectorXd::Zero(points.cols());
      double count = 0;
      for (Eigen::Index i = 0; i < points.rows(); ++i)
        if (labels[static_cast<std::size_t>(i)] == k) {
          sum += points.row(i).transpose();
          ++count;
        }
      if (count > 0) means[static_cast<std::size_t>(k)] = sum / count;  // an empty cluster keeps its mean
    }
  }
  return labels;
}

// The first regime path of a restart (estimate_slds.hpp): the local dynamics clustered, r_0 = r_1.
Path clustered_path(const Eigen::MatrixXd& x, Eigen::Index regimes, Eigen::Index half_width, std::mt19937_64& rng) {
  const Path labels = k_means(local_dynamics(x, half_width), regimes, rng);
  Path path(labels.size() + 1);
  std::copy(labels.begin(), labels.end(), path.begin() + 1);
  path[0] = path[1];
  return path;
}

struct Restart {
  Parameters parameters;
  Path path;
  std::vector<double> objectives;
};

// Hard EM from `p` and the first path (estimate_slds.hpp).
Restart run_hard_em(const Eigen::MatrixXd& x, const detail::Regularisation& regularisation,
                    const Eigen::VectorXd& noise_floor, const SldsFitOptions& options, long rounds, Parameters p,
                    Path path) {
  Restart out;
  out.path = std::move(path);
  LdsPosterior q = detail::smooth_along(p.space, x, out.path);
  out.objectives.push_back(objective(p, out.path, q.log_likelihood, regularisation, options.smoothing));
  for (long round = 0; round < rounds; ++round) {
    maximise(x, q, out.path, regularisation, options.smoothing, noise_floor, p);
    detail::smooth_along(p.space, x, out.path, q);
    Path path = best_path(p, expected_transition_log_densities(p, q));
    if (path != out.path) {
      out.path = std::move(path);
      detail::smooth_along(p.space, x, out.path, q);
    }
    const double value = objective(p, out.path, q.log_likelihood, regularisation, options.smoothing);
    if (!std::isfinite(value)) throw OptionError("the objective is not finite; give {ridge} R > 0");
    const bool converged = value - out.objectives.back() < options.tolerance * std::fabs(value);
    out.objectives.push_back(value);
    if (converged) break;
  }
  out.parameters = std::move(p);
  return out;
}

// The start itself, its J along the one-regime path.
Restart unchanged(const Eigen::MatrixXd& x, const detail::Regularisation& regularisation, const SldsFitOptions& options,
                  Parameters p) {
  Restart out;
  out.path = Path(static_cast<std::size_t>(x.rows()), 0);
  const LdsPosterior q = detail::smooth_along(p.space, x, out.path);
  out.objectives.push_back(objective(p, out.path, q.log_likelihood, regularisation, options.smoothing));
  out.parameters = std::move(p);
  return out;
}

// One restart from the LDS fit `p` and a clustered first path (estimate_slds.hpp): R is the LDS fit's
// scaled by the factor among 1, 0.1, 0.01, 0.001 after whose first round J is largest (ties: the
// larger; a factor whose round fails is skipped), at least its floor (floored_covariance, so that the
// start meets the constraints the M-step keeps), then hard EM.
Restart run_restart(const Eigen::MatrixXd& x, const detail::Regularisation& regularisation,
                    const Eigen::VectorXd& noise_floor, const SldsFitOptions& options, Parameters p, const Path& path) {
  const Eigen::MatrixXd lds_noise = p.space.observation_noise;
  double best_scale = 1.0, best_value = -std::numeric_limits<double>::infinity();
  std::exception_ptr first_failure;
  for (const double scale : {1.0, 0.1, 0.01, 0.001}) {
    p.space.observation_noise = detail::floored_covariance(scale * lds_noise, noise_floor);
    double value = 0;
    try {
      value = run_hard_em(x, regularisation, noise_floor, options, 1, p, path).objectives.back();
    } catch (const EstimationError&) {
      if (!first_failure) first_failure = std::current_exception();
      continue;
    }
    if (value > best_value) {
      best_value = value;
      best_scale = scale;
    }
  }
  if (first_failure && !std::isfinite(best_value)) std::rethrow_exception(first_failure);
  p.space.observation_noise = detail::floored_covariance(best_scale * lds_noise, noise_floor);
  return run_hard_em(x, regularisation, noise_floor, options, options.iterations, std::move(p), path);
}

class SldsEstimator : public detail::DataMatrixEstimator {
 public:
  explicit SldsEstimator(const SldsFitOptions& options) : options_(options) { check_options(options); }
  std::string family() const override { return "slds"; }
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    return std::move(fit_slds(detail::data_of(statistics), options_).model);
  }

 private:
  SldsFitOptions options_;
};

}  // namespace

SldsFit fit_slds(const Eigen::MatrixXd& x, const SldsFitOptions& options) {
  check_options(options);
  const LdsFit lds = fit_lds(x, options);  // checks the sequence
  const detail::Regularisation regularisation = detail::regularisation_of(x, options);
  const LdsModel& start = *lds.model;
  const Eigen::Index regimes = options.states, n = options.state_dim;
  std::seed_seq seed{options.seed,
                     static_cast<std::uint64_t>(x.rows()),
                     static_cast<std::uint64_t>(x.cols()),
                     static_cast<std::uint64_t>(n),
                     static_cast<std::uint64_t>(regimes),
                     detail::fingerprint(x.data(), static_cast<std::size_t>(x.size()))};
  std::mt19937_64 rng(seed);
  const Eigen::VectorXd noise_floor = detail::observation_noise_floor(x);
  const Eigen::Index half_width = std::max<Eigen::Index>(5, x.cols());
  Parameters p;  // the LDS fit for every regime, a uniform chain
  p.space = {start.mean0(), start.cov0(), {}, start.observation(), start.observation_noise()};
  // With K >= 2 the start's A is scaled to meet the SLDS's bound on its spectral norm (lds_em.hpp).
  const double growth = detail::spectral_norm(start.transition());
  const Eigen::MatrixXd transition = regimes > 1 && growth > detail::kStabilityBound
                                         ? Eigen::MatrixXd(start.transition() * (detail::kStabilityBound / growth))
                                         : start.transition();
  p.space.dynamics.assign(static_cast<std::size_t>(regimes), StateDynamics{transition, start.state_noise()});
  const double log_uniform = -std::log(static_cast<double>(regimes));
  p.log_start = Eigen::VectorXd::Constant(regimes, log_uniform);
  p.log_transitions = Eigen::MatrixXd::Constant(regimes, regimes, log_uniform);
  std::optional<Restart> best;
  std::exception_ptr first_failure;
  // K = 1: the path is certain and the LDS fit is exact EM; it is kept as it is.
  if (regimes == 1) best = unchanged(x, regularisation, options, p);
  std::vector<Path> first_paths;  // of the restarts so far: the same first path gives the same fit
  for (long restart = 0; regimes > 1 && restart < options.restarts; ++restart) {
    Path path = clustered_path(x, regimes, half_width, rng);
    if (std::find(first_paths.begin(), first_paths.end(), path) != first_paths.end()) continue;
    first_paths.push_back(path);
    try {
      Restart fitted = run_restart(x, regularisation, noise_floor, options, p, path);
      if (!best || fitted.objectives.back() > best->objectives.back()) best = std::move(fitted);
    } catch (const EstimationError&) {
      if (!first_failure) first_failure = std::current_exception();
    }
  }
  if (!best) std::rethrow_exception(first_failure);
  SldsFit fit;
  fit.model = detail::build_model([&] {
    SldsParameters parameters;
    parameters.start = detail::exp_entries(best->parameters.log_start.array()).matrix();
    parameters.transitions = detail::exp_entries(best->parameters.log_transitions.array()).matrix();
    for (const StateDynamics& dynamics : best->parameters.space.dynamics) {
      parameters.state_transitions.push_back(dynamics.transition);
      parameters.state_noises.push_back(dynamics.noise);
    }
    parameters.mean0 = best->parameters.space.mean0;
    parameters.cov0 = best->parameters.space.cov0;
    parameters.observation = best->parameters.space.observation;
    parameters.observation_noise = best->parameters.space.observation_noise;
    parameters.length = options.length ? *options.length : static_cast<long>(x.rows()) - 1;
    parameters.paths = options.paths;
    return std::make_unique<SldsModel>(std::move(parameters));
  });
  fit.path = std::move(best->path);
  fit.objectives = std::move(best->objectives);
  return fit;
}

std::unique_ptr<Estimator> slds_estimator(const SldsFitOptions& options) {
  return std::make_unique<SldsEstimator>(options);
}

}  // namespace ppk
