// The SLDS estimator (see estimate_slds.hpp): hard-assignment EM started from the LDS fit, reusing
// the LDS fit's smoother and M-step (lds_em.hpp), on one sequence or on many at once for the pooled
// SLDS, and the MAP adaptation of a pooled SLDS (estimate_slds.hpp). Like the LDS, it keeps the
// example's data matrix "x" and cannot pool statistics.
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
#include "ppk/core/model_fields.hpp"
#include "ppk/core/thread_pool.hpp"
#include "ppk/estimate/adaptation.hpp"
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

// The MAP adaptation's priors (estimate_slds.hpp): tau pseudo-observations of the pooled model
// theta0, as sums to add to the E-step's, and what the log prior needs.
struct PooledPrior {
  Parameters pooled;                             // theta0
  Eigen::VectorXd start;                         // pi0
  Eigen::MatrixXd transitions;                   // trans0
  double relevance = 0;                          // tau
  AdaptedParameters adapt;                       // start (pi, mean0, cov0), transitions (trans, A_k, Q_k),
                                                 // emissions (C, R)
  Eigen::MatrixXd second_moment;                 // M0
  detail::ObservationSums observations;          // of (C0, R0) and (mean0_0, cov0_0), lds_em.hpp
  std::vector<detail::TransitionSums> dynamics;  // of (A0_k, Q0_k), per regime
  std::vector<double> state_noise_caps;          // lambda_min(Q0_k): regime k's Q floor is at most this
};

// What one hard-EM run fits: the sequences, the regularisation, the floor of R, the chain's
// smoothing a, the ridge r of the matrix-normal prior -(r/2) tr(Q_k^-1 A_k A_k') (0 when adapting),
// the measure of the stability bound and, for the MAP adaptation, the pooled model's priors (null:
// the fit of estimate_slds.hpp). The sequences' E-steps run on up to `threads` threads.
struct HardEmProblem {
  std::vector<const Eigen::MatrixXd*> sequences;
  detail::Regularisation regularisation;
  Eigen::VectorXd noise_floor;
  double smoothing = 0;
  double transition_ridge = 0;
  detail::Stability stability = &detail::spectral_norm;
  const PooledPrior* prior = nullptr;
  unsigned threads = 1;
};

// Step (3): the M-step given the posteriors q along the paths, the sums over the sequences; with the
// pooled prior, its pseudo-observations added to the sums of the parameters that adapt (the others
// keep their pooled values) and regime k's Q floor at most lambda_min(Q0_k).
void maximise(const HardEmProblem& problem, const std::vector<LdsPosterior>& posteriors, const std::vector<Path>& paths,
              Parameters& p) {
  const auto regimes = static_cast<Eigen::Index>(p.space.dynamics.size());
  const PooledPrior* prior = problem.prior;
  const AdaptedParameters everything;
  const AdaptedParameters& adapt = prior ? prior->adapt : everything;
  detail::ObservationSums observations;
  for (std::size_t i = 0; i < posteriors.size(); ++i)
    detail::add_observation_sums(*problem.sequences[i], posteriors[i], observations);
  if (prior) detail::add_observation_sums(prior->observations, observations);
  if (adapt.emissions) detail::maximise_emission(observations, problem.regularisation, problem.noise_floor, p.space);
  if (adapt.start) detail::maximise_start(observations, problem.regularisation, p.space);
  const double state_noise_floor = detail::state_noise_floor(posteriors);
  for (Eigen::Index k = 0; adapt.transitions && k < regimes; ++k) {
    detail::TransitionSums sums = detail::transition_sums(posteriors[0], paths[0], static_cast<int>(k));
    for (std::size_t i = 1; i < posteriors.size(); ++i)
      detail::add_transition_sums(detail::transition_sums(posteriors[i], paths[i], static_cast<int>(k)), sums);
    double floor = state_noise_floor;
    if (prior) {
      detail::add_transition_sums(prior->dynamics[static_cast<std::size_t>(k)], sums);
      floor = std::min(floor, prior->state_noise_caps[static_cast<std::size_t>(k)]);
    }
    StateDynamics& dynamics = p.space.dynamics[static_cast<std::size_t>(k)];
    if (sums.steps > 0)
      dynamics = detail::maximise_dynamics(sums, problem.regularisation, problem.transition_ridge, dynamics, floor,
                                           problem.stability);
  }
  // The chain: pi_k ~ #{i: r_0^(i) = k} + a (+ tau pi0_k), trans_jk ~ #{i, t: r_{t-1}^(i) = j, r_t^(i) = k} + a
  // (+ tau trans0_jk).
  Eigen::MatrixXd start = Eigen::MatrixXd::Zero(1, regimes), transitions = Eigen::MatrixXd::Zero(regimes, regimes);
  for (const Path& path : paths) {
    start(0, path[0]) += 1.0;
    for (std::size_t t = 1; t < path.size(); ++t) transitions(path[t - 1], path[t]) += 1.0;
  }
  if (prior) {
    start += prior->relevance * prior->start.transpose();
    transitions += prior->relevance * prior->transitions;
  }
  if (adapt.start) p.log_start = log_normalised_rows(start, problem.smoothing).row(0).transpose();
  if (adapt.transitions) p.log_transitions = log_normalised_rows(transitions, problem.smoothing);
}

// The log prior of the adapted parameters (estimate_slds.hpp): the LDS's on (mean0, cov0), each
// (A_k, Q_k) and (C, R) (lds_em.hpp), and tau sum_k pi0_k log pi_k, tau sum_jk trans0_jk log trans_jk.
double adaptation_log_prior(const Parameters& p, const PooledPrior& prior) {
  const Parameters& p0 = prior.pooled;
  const double tau = prior.relevance;
  double out = 0;
  // tau sum p0 log p over the entries with p0 > 0 (an entry the pooled model never visits adds nothing).
  const auto chain_term = [tau](const Eigen::ArrayXXd& pooled, const Eigen::ArrayXXd& log_p) {
    return tau * (pooled > 0.0).select(pooled * log_p, 0.0).sum();
  };
  if (prior.adapt.start)
    out += detail::start_log_prior(p.space, p0.space, tau) + chain_term(prior.start.array(), p.log_start.array());
  if (prior.adapt.transitions) {
    for (std::size_t k = 0; k < p.space.dynamics.size(); ++k)
      out += detail::dynamics_log_prior(p.space.dynamics[k], p0.space.dynamics[k], prior.second_moment, tau);
    out += chain_term(prior.transitions.array(), p.log_transitions.array());
  }
  if (prior.adapt.emissions) out += detail::emission_log_prior(p.space, p0.space, prior.second_moment, tau);
  return out;
}

// J of estimate_slds.hpp summed over the sequences, given log p(X_i | r_i, theta) from the smoother
// (with the pooled prior: plus its log prior).
double objective(const HardEmProblem& problem, const Parameters& p, const std::vector<Path>& paths,
                 const std::vector<LdsPosterior>& posteriors) {
  double value = 0;
  for (const LdsPosterior& q : posteriors) value += q.log_likelihood;
  for (const Path& path : paths) {
    value += p.log_start(path[0]);
    for (std::size_t t = 1; t < path.size(); ++t) value += p.log_transitions(path[t - 1], path[t]);
  }
  if (problem.smoothing > 0.0) value += problem.smoothing * (p.log_start.sum() + p.log_transitions.sum());
  value += detail::covariance_penalty(p.space, problem.regularisation);
  // The matrix-normal prior on each A_k: -(r/2) tr(Q_k^-1 A_k A_k').
  if (problem.transition_ridge > 0.0)
    for (const StateDynamics& dynamics : p.space.dynamics)
      value -= 0.5 * problem.transition_ridge *
               (dynamics.noise.llt().solve(dynamics.transition * dynamics.transition.transpose())).trace();
  if (problem.prior) value += adaptation_log_prior(p, *problem.prior);
  return value;
}

void check_paths(long paths) {
  if (paths < 1 || paths > kMaxSldsPaths)
    throw OptionError("{paths} must be in [1, " + std::to_string(kMaxSldsPaths) + "], got " + std::to_string(paths));
}

void check_options(const SldsFitOptions& options) {
  if (options.states < 1 || options.states > kMaxSldsStates)
    throw OptionError("{states} must be in [1, " + std::to_string(kMaxSldsStates) + "], got " +
                      std::to_string(options.states));
  check_paths(options.paths);
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

// The first regime paths of a restart (estimate_slds.hpp): the local dynamics of every sequence's
// steps clustered together, r_0 = r_1 in each sequence.
std::vector<Path> clustered_paths(const HardEmProblem& problem, Eigen::Index regimes, Eigen::Index half_width,
                                  std::mt19937_64& rng) {
  std::vector<Eigen::MatrixXd> dynamics;
  for (const Eigen::MatrixXd* x : problem.sequences) dynamics.push_back(local_dynamics(*x, half_width));
  const detail::StackedRows stacked = detail::stack_rows(dynamics, "sequence");
  const Path labels = k_means(stacked.x, regimes, rng);
  std::vector<Path> paths;
  for (std::size_t i = 0; i < dynamics.size(); ++i) {
    Path path(static_cast<std::size_t>(dynamics[i].rows() + 1));
    std::copy(labels.begin() + stacked.bounds[i], labels.begin() + stacked.bounds[i + 1], path.begin() + 1);
    path[0] = path[1];
    paths.push_back(std::move(path));
  }
  return paths;
}

struct Restart {
  Parameters parameters;
  std::vector<Path> paths;
  std::vector<double> objectives;
};

// Step (1) on the sequences i with update[i]: the smoother along their paths, in parallel.
void smooth(const HardEmProblem& problem, const Parameters& p, const std::vector<Path>& paths,
            const std::vector<char>& update, std::vector<LdsPosterior>& posteriors) {
  for_each_range(paths.size(), problem.threads, 4, 0.02, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      if (update[i]) detail::smooth_along(p.space, *problem.sequences[i], paths[i], posteriors[i]);
  });
}

// Step (2): every sequence's Viterbi path, in parallel.
std::vector<Path> best_paths(const HardEmProblem& problem, const Parameters& p,
                             const std::vector<LdsPosterior>& posteriors) {
  std::vector<Path> out(posteriors.size());
  for_each_range(out.size(), problem.threads, 4, 0.02, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) out[i] = best_path(p, expected_transition_log_densities(p, posteriors[i]));
  });
  return out;
}

// Hard EM from `p` and the first paths (estimate_slds.hpp).
Restart run_hard_em(const HardEmProblem& problem, long rounds, double tolerance, Parameters p, std::vector<Path> paths) {
  Restart out;
  out.paths = std::move(paths);
  const std::size_t count = out.paths.size();
  const std::vector<char> every(count, 1);
  std::vector<LdsPosterior> q(count);
  smooth(problem, p, out.paths, every, q);
  out.objectives.push_back(objective(problem, p, out.paths, q));
  for (long round = 0; round < rounds; ++round) {
    maximise(problem, q, out.paths, p);
    smooth(problem, p, out.paths, every, q);
    std::vector<Path> next = best_paths(problem, p, q);
    std::vector<char> changed(count, 0);
    bool any = false;
    for (std::size_t i = 0; i < count; ++i) any |= (changed[i] = next[i] != out.paths[i]) != 0;
    out.paths = std::move(next);
    if (any) smooth(problem, p, out.paths, changed, q);
    const double value = objective(problem, p, out.paths, q);
    if (!std::isfinite(value)) throw OptionError("the objective is not finite; give {ridge} R > 0");
    const bool converged = value - out.objectives.back() < tolerance * std::fabs(value);
    out.objectives.push_back(value);
    if (converged) break;
  }
  out.parameters = std::move(p);
  return out;
}

// The start itself, its J along the one-regime paths.
Restart unchanged(const HardEmProblem& problem, Parameters p) {
  Restart out;
  for (const Eigen::MatrixXd* x : problem.sequences) out.paths.emplace_back(static_cast<std::size_t>(x->rows()), 0);
  std::vector<LdsPosterior> q(out.paths.size());
  smooth(problem, p, out.paths, std::vector<char>(out.paths.size(), 1), q);
  out.objectives.push_back(objective(problem, p, out.paths, q));
  out.parameters = std::move(p);
  return out;
}

// One restart from the LDS fit `p` and clustered first paths (estimate_slds.hpp): R is the LDS fit's
// scaled by the factor among 1, 0.1, 0.01, 0.001 after whose first round J is largest (ties: the
// larger; a factor whose round fails is skipped), at least its floor (floored_covariance, so that the
// start meets the constraints the M-step keeps), then hard EM.
Restart run_restart(const HardEmProblem& problem, const SldsFitOptions& options, Parameters p,
                    const std::vector<Path>& paths) {
  const Eigen::MatrixXd lds_noise = p.space.observation_noise;
  double best_scale = 1.0, best_value = -std::numeric_limits<double>::infinity();
  std::exception_ptr first_failure;
  for (const double scale : {1.0, 0.1, 0.01, 0.001}) {
    p.space.observation_noise = detail::floored_covariance(scale * lds_noise, problem.noise_floor);
    double value = 0;
    try {
      value = run_hard_em(problem, 1, options.tolerance, p, paths).objectives.back();
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
  p.space.observation_noise = detail::floored_covariance(best_scale * lds_noise, problem.noise_floor);
  return run_hard_em(problem, options.iterations, options.tolerance, std::move(p), paths);
}

// The model of the hard-EM parameters, storing T = `length` and S = `paths`.
std::unique_ptr<SldsModel> slds_model_of(const Parameters& p, long length, long paths) {
  return detail::build_model([&] {
    SldsParameters parameters;
    parameters.start = detail::exp_entries(p.log_start.array()).matrix();
    parameters.transitions = detail::exp_entries(p.log_transitions.array()).matrix();
    for (const StateDynamics& dynamics : p.space.dynamics) {
      parameters.state_transitions.push_back(dynamics.transition);
      parameters.state_noises.push_back(dynamics.noise);
    }
    parameters.mean0 = p.space.mean0;
    parameters.cov0 = p.space.cov0;
    parameters.observation = p.space.observation;
    parameters.observation_noise = p.space.observation_noise;
    parameters.length = length;
    parameters.paths = paths;
    return std::make_unique<SldsModel>(std::move(parameters));
  });
}

// The fit of estimate_slds.hpp to the sequences of `problem` (stacked: their rows, for the seed) from
// the LDS fit `start`: every restart's first paths drawn in turn from one stream seeded by (seed, N,
// d, n, K, the data), a restart whose first paths an earlier one had skipped, hard EM from each (in
// parallel on up to problem.threads threads), the largest final J kept.
SldsFit fit_from_lds(const HardEmProblem& problem, const Eigen::MatrixXd& stacked, const LdsModel& start,
                     const SldsFitOptions& options, long length) {
  const Eigen::Index regimes = options.states, n = options.state_dim;
  std::seed_seq seed{options.seed,
                     static_cast<std::uint64_t>(stacked.rows()),
                     static_cast<std::uint64_t>(stacked.cols()),
                     static_cast<std::uint64_t>(n),
                     static_cast<std::uint64_t>(regimes),
                     detail::fingerprint(stacked.data(), static_cast<std::size_t>(stacked.size()))};
  std::mt19937_64 rng(seed);
  const Eigen::Index half_width = std::max<Eigen::Index>(5, stacked.cols());
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
  // K = 1: the path is certain and the LDS fit is exact EM; it is kept as it is.
  if (regimes == 1) best = unchanged(problem, p);
  std::vector<std::vector<Path>> first_paths;  // the same first paths give the same fit
  for (long restart = 0; regimes > 1 && restart < options.restarts; ++restart) {
    std::vector<Path> paths = clustered_paths(problem, regimes, half_width, rng);
    if (std::find(first_paths.begin(), first_paths.end(), paths) == first_paths.end())
      first_paths.push_back(std::move(paths));
  }
  std::vector<std::optional<Restart>> fitted(first_paths.size());
  std::vector<std::exception_ptr> failures(first_paths.size());
  for_each_range(first_paths.size(), problem.threads, 1, 0.01, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      try {
        fitted[r] = run_restart(problem, options, p, first_paths[r]);
      } catch (const EstimationError&) {
        failures[r] = std::current_exception();
      }
    }
  });
  std::exception_ptr first_failure;
  for (std::size_t r = 0; r < fitted.size(); ++r) {
    if (!fitted[r]) {
      if (!first_failure) first_failure = failures[r];
    } else if (!best || fitted[r]->objectives.back() > best->objectives.back()) {
      best = std::move(fitted[r]);
    }
  }
  if (!best) std::rethrow_exception(first_failure);
  SldsFit fit;
  fit.model = slds_model_of(best->parameters, length, options.paths);
  fit.paths = std::move(best->paths);
  fit.objectives = std::move(best->objectives);
  return fit;
}

class SldsEstimator : public detail::DataMatrixEstimator {
 public:
  explicit SldsEstimator(const SldsFitOptions& options) : options_(options) { check_options(options); }
  std::string family() const override { return "slds"; }
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    return std::move(fit_slds(detail::data_of(statistics), options_).model);
  }
  std::unique_ptr<Model> fit_pooled(const std::vector<Statistics>& examples, unsigned threads) const override {
    std::vector<Eigen::MatrixXd> sequences;
    for (const Statistics& example : examples) sequences.push_back(detail::data_of(example));
    return std::move(fit_pooled_slds(sequences, options_, threads).model);
  }
  std::unique_ptr<Model> adapt(const Model& pooled, const Statistics& example,
                               const AdaptationOptions& options) const override {
    AdaptationOptions adaptation = options;
    if (!adaptation.length) adaptation.length = options_.length;
    return std::move(adapt_slds(detail::pooled_model_as<SldsModel>(pooled, family()), detail::data_of(example),
                                adaptation, options_.paths)
                         .model);
  }

 private:
  SldsFitOptions options_;
};

// The pooled model's priors of strength tau (estimate_slds.hpp) as pseudo-observations.
PooledPrior pooled_prior(const SldsModel& pooled, const AdaptationOptions& options) {
  const SldsParameters& p0 = pooled.parameters();
  PooledPrior prior;
  prior.pooled.space = {p0.mean0, p0.cov0, {}, p0.observation, p0.observation_noise};
  for (std::size_t k = 0; k < p0.state_transitions.size(); ++k)
    prior.pooled.space.dynamics.push_back(StateDynamics{p0.state_transitions[k], p0.state_noises[k]});
  prior.pooled.log_start = p0.start.array().log().matrix();
  prior.pooled.log_transitions = p0.transitions.array().log().matrix();
  prior.start = p0.start;
  prior.transitions = p0.transitions;
  prior.relevance = options.relevance;
  prior.adapt = options.adapt;
  const Eigen::MatrixXd& m0 = prior.second_moment =
      detail::expected_state_second_moment(prior.pooled.space, p0.start, p0.transitions, p0.length);
  prior.observations = detail::pseudo_observation_sums(prior.pooled.space, m0, options.relevance);
  for (const StateDynamics& dynamics : prior.pooled.space.dynamics) {
    prior.dynamics.push_back(detail::pseudo_transition_sums(dynamics, m0, options.relevance));
    prior.state_noise_caps.push_back(detail::least_eigenvalue(dynamics.noise));
  }
  return prior;
}

// The adaptation's first path (estimate_slds.hpp): the pooled chain's most probable path, then
// steps (1) and (2) under theta0 in turn until the path repeats (at most 100 times); neither step
// decreases J.
Path pooled_path(const Parameters& p, const Eigen::MatrixXd& x) {
  Path path = best_path(p, Eigen::MatrixXd::Zero(x.rows() - 1, p.log_start.size()));
  LdsPosterior q;
  for (int round = 0; round < 100; ++round) {
    detail::smooth_along(p.space, x, path, q);
    Path next = best_path(p, expected_transition_log_densities(p, q));
    if (next == path) break;
    path = std::move(next);
  }
  return path;
}

}  // namespace

SldsFit fit_slds(const Eigen::MatrixXd& x, const SldsFitOptions& options) {
  check_options(options);
  const LdsFit lds = fit_lds(x, options);  // checks the sequence
  HardEmProblem problem{{&x}, detail::regularisation_of(x, options), detail::observation_noise_floor(x)};
  problem.smoothing = options.smoothing;
  problem.transition_ridge = problem.regularisation.ridge;
  return fit_from_lds(problem, x, *lds.model, options,
                      options.length ? *options.length : static_cast<long>(x.rows()) - 1);
}

SldsFit fit_pooled_slds(const std::vector<Eigen::MatrixXd>& sequences, const SldsFitOptions& options, unsigned threads) {
  check_options(options);
  const detail::StackedRows stacked = detail::checked_sequences(sequences, "an SLDS fit");
  const LdsFit lds = fit_pooled_lds(sequences, options, threads);
  HardEmProblem problem{{}, detail::regularisation_of(stacked.x, options), detail::observation_noise_floor(stacked.x)};
  for (const Eigen::MatrixXd& x : sequences) problem.sequences.push_back(&x);
  problem.smoothing = options.smoothing;
  problem.transition_ridge = problem.regularisation.ridge;
  problem.threads = threads;
  return fit_from_lds(problem, stacked.x, *lds.model, options,
                      options.length ? *options.length : static_cast<long>(sequences[0].rows()) - 1);
}

SldsFit adapt_slds(const SldsModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options,
                   std::optional<long> paths) {
  check_adaptation_options(options);
  check_adapted_parameters(options.adapt, "slds", {"start", "transitions", "emissions"});
  if (paths) check_paths(*paths);
  detail::checked_sequences({x}, "an SLDS fit");
  if (x.cols() != pooled.observation_dim())
    throw EstimationError("the vectors have " + std::to_string(x.cols()) + " coordinates, the pooled SLDS " +
                          std::to_string(pooled.observation_dim()));
  const PooledPrior prior = pooled_prior(pooled, options);
  HardEmProblem problem{{&x}, {}, {}};
  problem.regularisation.ridge = options.ridge ? *options.ridge : 0.0;
  problem.regularisation.observation_centre = Eigen::VectorXd::Zero(x.cols());
  // The R floor of the fit, at most lambda_min(R0) so that the pooled R0 meets it.
  problem.noise_floor =
      detail::observation_noise_floor(x).cwiseMin(detail::least_eigenvalue(pooled.parameters().observation_noise));
  problem.stability = pooled.discrete_states() > 1 ? &detail::spectral_norm : &detail::spectral_radius;
  problem.prior = &prior;
  Restart adapted =
      run_hard_em(problem, options.iterations, options.tolerance, prior.pooled, {pooled_path(prior.pooled, x)});
  SldsFit fit;
  fit.model = slds_model_of(adapted.parameters, options.length ? *options.length : static_cast<long>(x.rows()) - 1,
                            paths ? *paths : pooled.parameters().paths);
  fit.paths = std::move(adapted.paths);
  fit.objectives = std::move(adapted.objectives);
  return fit;
}

std::unique_ptr<Estimator> slds_estimator(const SldsFitOptions& options) {
  return std::make_unique<SldsEstimator>(options);
}

}  // namespace ppk
