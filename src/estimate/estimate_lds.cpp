// The LDS estimator (see estimate_lds.hpp): EM with a Kalman filter and Rauch-Tung-Striebel smoother
// on one sequence, or on many at once for the pooled LDS, and the MAP adaptation of a pooled LDS.
// Like the HMMs, an LDS is not an exponential family: the estimator keeps the example's data matrix
// "x" and cannot pool statistics.
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/fisher.hpp"

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

// The MAP adaptation's priors (estimate_lds.hpp): tau pseudo-observations of the pooled model theta0,
// as sums to add to the E-step's, and what the log prior needs.
struct PooledPrior {
  Parameters pooled;                     // theta0
  double relevance = 0;                  // tau
  AdaptedParameters adapt;               // start (mean0, cov0), transitions (A, Q), emissions (C, R)
  Eigen::MatrixXd second_moment;         // M0, the pooled model's expected state second moment per step
  detail::TransitionSums transitions;    // tau M0, tau (A0 M0 A0' + Q0), tau A0 M0, tau steps
  detail::ObservationSums observations;  // tau M0, tau C0 M0, tau (C0 M0 C0' + R0), tau vectors; the
                                         // first state (weight tau, mean0_0, cov0_0)
  double state_noise_cap = 0;            // lambda_min(Q0): the Q floor is at most this
};

// What one EM run fits: the sequences, the regularisation, the floor of R and, for the MAP
// adaptation, the pooled model's priors (null: the fit of estimate_lds.hpp).
struct EmProblem {
  std::vector<const Eigen::MatrixXd*> sequences;
  Regularisation regularisation;
  Eigen::VectorXd noise_floor;
  const PooledPrior* prior = nullptr;
};

// The log prior of the adapted parameters (estimate_lds.hpp; lds_em.hpp).
double adaptation_log_prior(const Parameters& p, const PooledPrior& prior) {
  const Parameters& p0 = prior.pooled;
  const double tau = prior.relevance;
  double out = 0;
  if (prior.adapt.start) out += detail::start_log_prior(p, p0, tau);
  if (prior.adapt.transitions) out += detail::dynamics_log_prior(p.dynamics[0], p0.dynamics[0], prior.second_moment, tau);
  if (prior.adapt.emissions) out += detail::emission_log_prior(p, p0, prior.second_moment, tau);
  return out;
}

// The constrained M-step of estimate_lds.hpp from the sequences' posterior moments, their sums over
// the sequences; with the pooled prior, its pseudo-observations added to the sums of the parameters
// that adapt (the others keep their pooled values) and the floors of R and Q at most R0's and Q0's.
void maximise(const EmProblem& problem, const std::vector<LdsPosterior>& posteriors, Parameters& p) {
  const Eigen::Index n = p.mean0.size();
  detail::ObservationSums observations;
  detail::TransitionSums transitions{Eigen::MatrixXd::Zero(n, n), Eigen::MatrixXd::Zero(n, n),
                                     Eigen::MatrixXd::Zero(n, n), 0.0};
  for (std::size_t i = 0; i < posteriors.size(); ++i) {
    const Eigen::MatrixXd& x = *problem.sequences[i];
    detail::add_observation_sums(x, posteriors[i], observations);
    detail::add_transition_sums(detail::transition_sums(posteriors[i], one_regime(x), 0), transitions);
  }
  double state_noise_floor = detail::state_noise_floor(posteriors);
  const PooledPrior* prior = problem.prior;
  const AdaptedParameters everything;
  const AdaptedParameters& adapt = prior ? prior->adapt : everything;
  if (prior) {
    detail::add_observation_sums(prior->observations, observations);
    detail::add_transition_sums(prior->transitions, transitions);
    state_noise_floor = std::min(state_noise_floor, prior->state_noise_cap);
  }
  if (adapt.emissions) detail::maximise_emission(observations, problem.regularisation, problem.noise_floor, p);
  if (adapt.start) detail::maximise_start(observations, problem.regularisation, p);
  if (adapt.transitions)
    p.dynamics[0] = detail::maximise_dynamics(transitions, problem.regularisation, 0.0, p.dynamics[0], state_noise_floor,
                                              &detail::spectral_radius);
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

// L = sum_i log p(X_i) + the log priors (detail::covariance_penalty; with the pooled prior, its log prior).
double objective(const EmProblem& problem, const Parameters& p, double log_likelihood) {
  const double value = log_likelihood + detail::covariance_penalty(p, problem.regularisation);
  return problem.prior ? value + adaptation_log_prior(p, *problem.prior) : value;
}

// EM from `p` until converged or `iterations` M-steps; returns L after each, p is the last entry's.
// The sequences' E-steps run on up to `threads` threads (when they take long enough).
std::vector<double> run_em(const EmProblem& problem, long iterations, double tolerance, unsigned threads, Parameters& p) {
  std::vector<double> log_likelihoods;
  std::vector<LdsPosterior> posteriors(problem.sequences.size());
  for (long step = 0;; ++step) {
    for_each_range(posteriors.size(), threads, 4, 0.02, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const Eigen::MatrixXd& x = *problem.sequences[i];
        detail::smooth_along(p, x, one_regime(x), posteriors[i]);
      }
    });
    double log_likelihood = 0;
    for (const LdsPosterior& posterior : posteriors) log_likelihood += posterior.log_likelihood;
    const double value = objective(problem, p, log_likelihood);
    if (!std::isfinite(value)) throw OptionError("the log-likelihood is not finite; give {ridge} R > 0");
    const bool converged = !log_likelihoods.empty() && value - log_likelihoods.back() < tolerance * std::fabs(value);
    log_likelihoods.push_back(value);
    if (converged || step == iterations) break;
    maximise(problem, posteriors, p);
  }
  return log_likelihoods;
}

// The model of the EM parameters, storing T = `length`.
std::unique_ptr<LdsModel> lds_model_of(const Parameters& p, long length) {
  return detail::build_model([&] {
    return std::make_unique<LdsModel>(p.mean0, p.cov0, p.dynamics[0].transition, p.dynamics[0].noise, p.observation,
                                      p.observation_noise, length);
  });
}

// The fit of estimate_lds.hpp to the rows `x` of all the sequences (x stacks them; each is checked):
// every restart's start drawn in turn from one stream seeded by (seed, N, d, n, the data), then
// EM from each (in parallel on up to `threads` threads), the largest final L kept.
LdsFit fit_sequences(const EmProblem& problem, const Eigen::MatrixXd& x, const LdsFitOptions& options, long length,
                     unsigned threads) {
  std::seed_seq seed{options.seed, static_cast<std::uint64_t>(x.rows()), static_cast<std::uint64_t>(x.cols()),
                     static_cast<std::uint64_t>(options.state_dim),
                     detail::fingerprint(x.data(), static_cast<std::size_t>(x.size()))};
  std::mt19937_64 rng(seed);
  std::vector<Parameters> starts;
  for (long restart = 0; restart < options.restarts; ++restart)
    starts.push_back(random_start(x, options.state_dim, problem.regularisation.ridge, problem.noise_floor, rng));
  std::vector<std::vector<double>> log_likelihoods(starts.size());
  std::vector<std::exception_ptr> failures(starts.size());  // a restart whose covariances became singular
  for_each_range(starts.size(), threads, 1, 0.01, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      try {
        log_likelihoods[r] = run_em(problem, options.iterations, options.tolerance, threads, starts[r]);
      } catch (const EstimationError&) {
        failures[r] = std::current_exception();
      }
    }
  });
  std::optional<std::size_t> best;
  for (std::size_t r = 0; r < starts.size(); ++r)
    if (!failures[r] && (!best || log_likelihoods[r].back() > log_likelihoods[*best].back())) best = r;
  if (!best) std::rethrow_exception(failures[0]);
  LdsFit fit;
  fit.model = lds_model_of(starts[*best], length);
  fit.log_likelihoods = std::move(log_likelihoods[*best]);
  return fit;
}

class LdsEstimator : public detail::DataMatrixEstimator {
 public:
  explicit LdsEstimator(const LdsFitOptions& options) : options_(options) { detail::check_lds_options(options); }
  std::string family() const override { return "lds"; }
  std::unique_ptr<FisherScores> fisher_scores(const Model& pooled, const AdaptedParameters& parameters) const override {
    return lds_fisher_scores(detail::pooled_model_as<LdsModel>(pooled, family()), parameters);
  }
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    return std::move(fit_lds(detail::data_of(statistics), options_).model);
  }
  std::unique_ptr<Model> fit_pooled(const std::vector<Statistics>& examples, unsigned threads) const override {
    std::vector<Eigen::MatrixXd> sequences;
    for (const Statistics& example : examples) sequences.push_back(detail::data_of(example));
    return std::move(fit_pooled_lds(sequences, options_, threads).model);
  }
  std::unique_ptr<Model> adapt(const Model& pooled, const Statistics& example,
                               const AdaptationOptions& options) const override {
    AdaptationOptions adaptation = options;
    if (!adaptation.length) adaptation.length = options_.length;
    return std::move(
        adapt_lds(detail::pooled_model_as<LdsModel>(pooled, family()), detail::data_of(example), adaptation).model);
  }

 private:
  LdsFitOptions options_;
};

}  // namespace

namespace detail {

void check_lds_options(const LdsFitOptions& options) {
  if (options.state_dim < 1 || options.state_dim > kMaxStateSpaceDim)
    throw OptionError("{state_dim} must be in [1, " + std::to_string(kMaxStateSpaceDim) + "], got " +
                      std::to_string(options.state_dim));
  if (options.ridge) detail::check_option("ridge", *options.ridge, 0, false);
  detail::check_option("prior.strength", options.prior.strength, 0, false);
  detail::check_option("prior.state_noise", options.prior.state_noise, 0, true);
  detail::check_option("prior.observation_noise", options.prior.observation_noise, 0, true);
  if (options.iterations < 1)
    throw OptionError("{iterations} must be at least 1, got " + std::to_string(options.iterations));
  detail::check_option("tolerance", options.tolerance, 0, false);
  if (options.restarts < 1) throw OptionError("{restarts} must be at least 1, got " + std::to_string(options.restarts));
  if (options.length && (*options.length < 0 || *options.length > kMaxSequenceLength))
    throw OptionError("{length} must be in [0, " + std::to_string(kMaxSequenceLength) + "], got " +
                      std::to_string(*options.length));
}

StackedRows checked_sequences(const std::vector<Eigen::MatrixXd>& sequences, const char* fit) {
  StackedRows stacked = stack_rows(sequences, "sequence");
  for (std::size_t i = 0; i < sequences.size(); ++i)
    if (sequences[i].rows() < 2)
      throw EstimationError((sequences.size() == 1 ? std::string("the sequence") : "sequence " + std::to_string(i + 1)) +
                            " has " + vector_count(static_cast<double>(sequences[i].rows())) + "; " + fit +
                            " needs at least 2 (one transition)");
  return stacked;
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
  const EmProblem problem{{&x}, detail::regularisation_of(x, options), detail::observation_noise_floor(x)};
  return fit_sequences(problem, x, options, options.length ? *options.length : static_cast<long>(x.rows()) - 1, 1);
}

namespace {

// The pooled model's priors of strength tau (estimate_lds.hpp) as pseudo-observations.
PooledPrior pooled_prior(const LdsModel& pooled, const AdaptationOptions& options) {
  PooledPrior prior;
  prior.pooled = parameters_of(pooled);
  prior.relevance = options.relevance;
  prior.adapt = options.adapt;
  // One regime: r_0 = 0 and r_t = r_t-1 with probability 1.
  const Eigen::MatrixXd& m0 = prior.second_moment = detail::expected_state_second_moment(
      prior.pooled, Eigen::VectorXd::Ones(1), Eigen::MatrixXd::Ones(1, 1), pooled.length());
  prior.transitions = detail::pseudo_transition_sums(prior.pooled.dynamics[0], m0, options.relevance);
  prior.observations = detail::pseudo_observation_sums(prior.pooled, m0, options.relevance);
  prior.state_noise_cap = detail::least_eigenvalue(pooled.state_noise());
  return prior;
}

}  // namespace

LdsFit fit_pooled_lds(const std::vector<Eigen::MatrixXd>& sequences, const LdsFitOptions& options, unsigned threads) {
  detail::check_lds_options(options);
  const detail::StackedRows stacked = detail::checked_sequences(sequences);
  EmProblem problem{{}, detail::regularisation_of(stacked.x, options), detail::observation_noise_floor(stacked.x)};
  for (const Eigen::MatrixXd& x : sequences) problem.sequences.push_back(&x);
  return fit_sequences(problem, stacked.x, options,
                       options.length ? *options.length : static_cast<long>(sequences[0].rows()) - 1, threads);
}

LdsFit adapt_lds(const LdsModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options) {
  check_adaptation_options(options);
  check_adapted_parameters(options.adapt, "lds", {"start", "transitions", "emissions"});
  detail::checked_sequences({x});
  if (x.cols() != pooled.observation_dim())
    throw EstimationError("the vectors have " + std::to_string(x.cols()) + " coordinates, the pooled LDS " +
                          std::to_string(pooled.observation_dim()));
  const PooledPrior prior = pooled_prior(pooled, options);
  // The R floor of fit_lds, at most lambda_min(R0) so that the pooled R0 meets it.
  const double observation_noise_cap = detail::least_eigenvalue(pooled.observation_noise());
  Regularisation regularisation;
  regularisation.ridge = options.ridge ? *options.ridge : 0.0;
  regularisation.observation_centre = Eigen::VectorXd::Zero(x.cols());
  const EmProblem problem{
      {&x}, regularisation, detail::observation_noise_floor(x).cwiseMin(observation_noise_cap), &prior};
  Parameters p = prior.pooled;
  LdsFit fit;
  fit.log_likelihoods = run_em(problem, options.iterations, options.tolerance, 1, p);
  fit.model = lds_model_of(p, options.length ? *options.length : static_cast<long>(x.rows()) - 1);
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
