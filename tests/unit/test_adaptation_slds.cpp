// The pooled SLDS and the MAP adaptation of a pooled SLDS (estimate_slds.hpp): the pooled
// objective J against the sum over the sequences of their dense joint-Gaussian log-likelihoods
// given their paths plus the paths' log-probabilities, at every iteration, never decreasing and
// independent of the threads, one sequence giving fit_slds; relevance tau -> infinity giving the
// pooled model; tau -> 0 giving hard EM from the pooled model (against hard EM written here: E-step
// by the dense joint Gaussian of the states given the path, Viterbi, closed-form M-step); one regime
// giving the LDS's adaptation; the MAP objective against its definition (dense log-likelihood, the
// chain's log-probability and the log priors written out, M0 by enumerating every regime path of
// the pooled model) and never decreasing; only the chosen parameters moving; adapted rows pairing
// with the pooled row in a PSD Gram; bad options and sequences refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "estimate_helpers.hpp"
#include "lds_sampling.hpp"
#include "positive_family_checks.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/estimate/estimate_slds.hpp"

namespace ppk {
namespace {

using checks::mentions;
using Path = std::vector<int>;

const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);

// A two-regime SLDS (n = 2, d = 2) with a sticky chain (stay 0.9) and two different stable dynamics.
SldsParameters switching_system(unsigned seed) {
  std::mt19937 rng(seed);
  SldsParameters p = random_slds(rng, 2, 2, 2, 0, 1);
  p.start = Eigen::Vector2d(0.5, 0.5);
  p.transitions << 0.9, 0.1, 0.1, 0.9;
  return p;
}

// `count` vectors drawn by running the chain and the recursions of the SLDS.
Eigen::MatrixXd simulate_slds(const SldsParameters& p, long count, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  const auto normals = [&](Eigen::Index size) {
    return Eigen::VectorXd(Eigen::VectorXd::NullaryExpr(size, [&] { return normal(rng); }));
  };
  const auto draw_regime = [&](const Eigen::VectorXd& probabilities) {
    double u = uniform(rng);
    int k = 0;
    for (; k + 1 < probabilities.size() && u >= probabilities(k); ++k) u -= probabilities(k);
    return k;
  };
  Eigen::MatrixXd x(count, p.observation.rows());
  int regime = draw_regime(p.start);
  Eigen::VectorXd s = p.mean0 + Eigen::MatrixXd(p.cov0.llt().matrixL()) * normals(p.mean0.size());
  for (long t = 0; t < count; ++t) {
    if (t > 0) {
      regime = draw_regime(p.transitions.row(regime).transpose());
      const auto k = static_cast<std::size_t>(regime);
      s = p.state_transitions[k] * s + Eigen::MatrixXd(p.state_noises[k].llt().matrixL()) * normals(s.size());
    }
    x.row(t) = (p.observation * s + Eigen::MatrixXd(p.observation_noise.llt().matrixL()) * normals(x.cols())).transpose();
  }
  return x;
}

// `count` sequences of 18..24 vectors from the SLDS.
std::vector<Eigen::MatrixXd> slds_sequences(const SldsParameters& p, int count, unsigned seed) {
  return simulated_sequences(count, seed, [&](long length, unsigned k) { return simulate_slds(p, length, k); });
}

// J without priors: ridge 0, smoothing 0, no inverse-Wishart prior (strength 0, the default).
SldsFitOptions pooled_options(long iterations) {
  SldsFitOptions options;
  options.states = 2;
  options.state_dim = 2;
  options.ridge = 0.0;
  options.smoothing = 0.0;
  options.iterations = iterations;
  options.tolerance = 0;
  options.restarts = 1;
  options.seed = 3;
  return options;
}

// log p(r) of the path under the model's chain.
double path_log_probability(const SldsParameters& p, const Path& path) {
  double out = std::log(p.start(path[0]));
  for (std::size_t t = 1; t < path.size(); ++t) out += std::log(p.transitions(path[t - 1], path[t]));
  return out;
}

double largest_difference(const SldsParameters& a, const SldsParameters& b) {
  double out = std::max({(a.start - b.start).cwiseAbs().maxCoeff(), (a.transitions - b.transitions).cwiseAbs().maxCoeff(),
                         (a.mean0 - b.mean0).cwiseAbs().maxCoeff(), (a.cov0 - b.cov0).cwiseAbs().maxCoeff(),
                         (a.observation - b.observation).cwiseAbs().maxCoeff(),
                         (a.observation_noise - b.observation_noise).cwiseAbs().maxCoeff()});
  for (std::size_t k = 0; k < a.state_transitions.size(); ++k)
    out = std::max({out, (a.state_transitions[k] - b.state_transitions[k]).cwiseAbs().maxCoeff(),
                    (a.state_noises[k] - b.state_noises[k]).cwiseAbs().maxCoeff()});
  return out;
}

// (The number of iterations also bounds the pooled LDS fit of the start, so a fit with fewer
// iterations is not a prefix of one with more: each fit's own final J is checked.)
TEST(PooledSlds, ObjectiveIsTheSumOfTheSequencesDenseTermsAndNeverDecreases) {
  const std::vector<Eigen::MatrixXd> sequences = slds_sequences(switching_system(41), 4, 7);
  const long iterations = 20;
  const SldsFit full = fit_pooled_slds(sequences, pooled_options(iterations));
  ASSERT_GE(full.objectives.size(), 3u);
  for (std::size_t k = 1; k < full.objectives.size(); ++k)
    EXPECT_GE(full.objectives[k], full.objectives[k - 1] - 1e-10 * std::fabs(full.objectives[k])) << "round " << k;
  for (long k : {2L, 5L, iterations}) {
    const SldsFit fit = k == iterations ? SldsFit{} : fit_pooled_slds(sequences, pooled_options(k));
    const SldsFit& checked = k == iterations ? full : fit;
    ASSERT_EQ(checked.paths.size(), sequences.size());
    double dense = 0;
    for (std::size_t i = 0; i < sequences.size(); ++i)
      dense += dense_path_log_likelihood(checked.model->parameters(), checked.paths[i], sequences[i]) +
               path_log_probability(checked.model->parameters(), checked.paths[i]);
    EXPECT_NEAR(dense, checked.objectives.back(), 1e-9 * std::fabs(dense)) << "iterations " << k;
  }
  EXPECT_GT(full.objectives.back(), full.objectives.front() + 1.0);  // hard EM did move
  EXPECT_EQ(full.model->parameters().length, sequences[0].rows() - 1);
  // Both regimes are used: the pooled fit does not collapse to one LDS.
  long in_regime_one = 0, steps = 0;
  for (const Path& path : full.paths)
    for (int r : path) {
      in_regime_one += r;
      ++steps;
    }
  EXPECT_GT(in_regime_one, steps / 10);
  EXPECT_LT(in_regime_one, steps - steps / 10);
}

TEST(PooledSlds, DoesNotDependOnTheThreadsAndOneSequenceIsFitSlds) {
  const std::vector<Eigen::MatrixXd> sequences = slds_sequences(switching_system(42), 5, 9);
  SldsFitOptions options = pooled_options(30);
  options.restarts = 3;
  const SldsFit one = fit_pooled_slds(sequences, options, 1), two = fit_pooled_slds(sequences, options, 2);
  EXPECT_EQ(largest_difference(one.model->parameters(), two.model->parameters()), 0.0);
  EXPECT_EQ(one.paths, two.paths);
  options.ridge.reset();  // the default ridge, smoothing and a prior, as ppk fit slds uses them
  options.smoothing = 0.1;
  options.prior = LdsPrior{4.0, 0.4, 0.2};
  const SldsFit pooled = fit_pooled_slds({sequences[1]}, options), single = fit_slds(sequences[1], options);
  EXPECT_EQ(largest_difference(pooled.model->parameters(), single.model->parameters()), 0.0);
  EXPECT_EQ(pooled.paths, single.paths);
  EXPECT_EQ(pooled.objectives, single.objectives);
}

// A pooled SLDS of 6 sequences storing T = 5 (so that its M0 can be found by enumerating its 2^6
// regime paths) and a 40-vector example from the same system.
struct PooledAndExample {
  SldsParameters truth;
  std::unique_ptr<SldsModel> pooled;
  Eigen::MatrixXd example;
};
PooledAndExample pooled_and_example(unsigned seed) {
  PooledAndExample out;
  out.truth = switching_system(seed);
  SldsFitOptions options = pooled_options(40);
  options.smoothing = 0.1;  // every chain probability of the pooled model positive
  options.length = 5;
  out.pooled = std::move(fit_pooled_slds(slds_sequences(out.truth, 6, seed), options).model);
  out.example = simulate_slds(out.truth, 40, seed + 100);
  return out;
}

TEST(AdaptedSlds, InfiniteRelevanceGivesThePooledModel) {
  const PooledAndExample s = pooled_and_example(51);
  for (const char* adapt : {"all", "transitions", "start,emissions"}) {
    const SldsFit adapted = adapt_slds(*s.pooled, s.example, adaptation(1e14, 20, adapt));
    EXPECT_LE(largest_difference(adapted.model->parameters(), s.pooled->parameters()), 1e-9) << adapt;
    EXPECT_EQ(adapted.model->parameters().length, s.example.rows() - 1) << adapt;
  }
}

TEST(AdaptedSlds, OneRegimeIsTheLdsAdaptation) {
  std::mt19937 rng(44);
  const Lds truth = random_lds(rng, 2, 2, 0);
  std::vector<Eigen::MatrixXd> sequences;
  for (unsigned i = 0; i < 5; ++i) sequences.push_back(simulate_rows(truth, 20, 60 + i));
  LdsFitOptions options;
  options.state_dim = 2;
  options.iterations = 30;
  const LdsFit pooled_lds = fit_pooled_lds(sequences, options);
  const LdsModel& m = *pooled_lds.model;
  SldsParameters one = one_regime(
      Lds{m.mean0(), m.cov0(), m.transition(), m.state_noise(), m.observation(), m.observation_noise(), m.length()});
  const SldsModel pooled_slds(one);
  const Eigen::MatrixXd x = simulate_rows(truth, 30, 99);
  for (const char* adapt : {"all", "transitions"}) {
    const LdsFit lds = adapt_lds(m, x, adaptation(4.0, 10, adapt));
    const SldsFit slds = adapt_slds(pooled_slds, x, adaptation(4.0, 10, adapt));
    const SldsParameters& p = slds.model->parameters();
    const LdsModel& q = *lds.model;
    const double difference =
        std::max({(p.state_transitions[0] - q.transition()).cwiseAbs().maxCoeff(),
                  (p.state_noises[0] - q.state_noise()).cwiseAbs().maxCoeff(),
                  (p.observation - q.observation()).cwiseAbs().maxCoeff(),
                  (p.observation_noise - q.observation_noise()).cwiseAbs().maxCoeff(),
                  (p.mean0 - q.mean0()).cwiseAbs().maxCoeff(), (p.cov0 - q.cov0()).cwiseAbs().maxCoeff()});
    EXPECT_LE(difference, 1e-9) << adapt;
    ASSERT_EQ(slds.objectives.size(), lds.log_likelihoods.size()) << adapt;
    for (std::size_t k = 0; k < slds.objectives.size(); ++k)
      EXPECT_NEAR(slds.objectives[k], lds.log_likelihoods[k], 1e-9 * std::fabs(lds.log_likelihoods[k])) << adapt;
  }
}

// Hard EM written out with the dense joint Gaussian of the states given the path (dense_path_joint).
// E[s_t s_u' | X] from the dense posterior.
Eigen::MatrixXd moment(const DensePosterior& q, long n, long t, long u) {
  return q.cov.block(t * n, u * n, n, n) + q.mean.segment(t * n, n) * q.mean.segment(u * n, n).transpose();
}

// E_q log N(s_t; A_k s_{t-1}, Q_k) for t >= 1 (row t - 1) and k (column).
Eigen::MatrixXd dense_scores(const SldsParameters& p, const DensePosterior& q, long steps) {
  const long n = p.mean0.size(), regimes = p.start.size();
  Eigen::MatrixXd out(steps, regimes);
  for (long t = 1; t <= steps; ++t)
    for (long k = 0; k < regimes; ++k) {
      const Eigen::MatrixXd& a = p.state_transitions[static_cast<std::size_t>(k)];
      const Eigen::MatrixXd& noise = p.state_noises[static_cast<std::size_t>(k)];
      const Eigen::MatrixXd residual = moment(q, n, t, t) - a * moment(q, n, t - 1, t) -
                                       moment(q, n, t, t - 1) * a.transpose() +
                                       a * moment(q, n, t - 1, t - 1) * a.transpose();
      out(t - 1, k) = -0.5 * (static_cast<double>(n) * kLog2Pi + std::log(noise.determinant()) +
                              (noise.inverse() * residual).trace());
    }
  return out;
}

// The path maximising log pi_{r_0} + sum_t [log trans(r_{t-1}, r_t) + scores(t - 1, r_t)]
// (ties: the lowest regime), by dynamic programming over the regimes of the last step.
Path dense_viterbi(const SldsParameters& p, const Eigen::MatrixXd& scores) {
  const long steps = scores.rows(), regimes = p.start.size();
  std::vector<Eigen::VectorXd> value(static_cast<std::size_t>(steps + 1));
  std::vector<std::vector<int>> back(static_cast<std::size_t>(steps + 1), std::vector<int>(regimes, 0));
  value[0] = p.start.array().log().matrix();
  for (long t = 1; t <= steps; ++t) {
    value[t] = Eigen::VectorXd::Constant(regimes, -std::numeric_limits<double>::infinity());
    for (long k = 0; k < regimes; ++k)
      for (long j = 0; j < regimes; ++j) {
        const double candidate = value[t - 1](j) + std::log(p.transitions(j, k)) + scores(t - 1, k);
        if (candidate > value[t](k)) {
          value[t](k) = candidate;
          back[t][k] = static_cast<int>(j);
        }
      }
  }
  Path path(static_cast<std::size_t>(steps + 1));
  Eigen::Index last = 0;
  value[steps].maxCoeff(&last);
  path[steps] = static_cast<int>(last);
  for (long t = steps; t >= 1; --t) path[t - 1] = back[t][path[t]];
  return path;
}

// The adaptation's first path: the chain's most probable path, then the dense E-step and Viterbi
// under the pooled model until the path repeats.
Path dense_start_path(const SldsParameters& p, const Eigen::MatrixXd& x) {
  const long steps = x.rows() - 1;
  Path path = dense_viterbi(p, Eigen::MatrixXd::Zero(steps, p.start.size()));
  for (int round = 0; round < 100; ++round) {
    const Path next = dense_viterbi(p, dense_scores(p, dense_posterior(dense_path_joint(p, path), x), steps));
    if (next == path) break;
    path = next;
  }
  return path;
}

// One M-step of hard EM along `path` under the dense posterior of `p`: maximum likelihood for the
// Gaussian parts (C = Sxs P^-1, R = (Sxx - C Sxs') / N, A_k = P1_k (P-_k)^-1, Q_k = (P+_k - A_k
// P1_k') / n_k, mean0 = E s_0, cov0 = Cov s_0; a regime without steps takes the pooled dynamics,
// the prior's limit) and the chain's counts with tau pseudo-counts of the pooled chain.
SldsParameters dense_hard_em_step(const SldsParameters& p, const SldsParameters& pooled, const Path& path,
                                  const Eigen::MatrixXd& x, double tau) {
  const long count = x.rows(), n = p.mean0.size(), regimes = p.start.size();
  const DensePosterior q = dense_posterior(dense_path_joint(p, path), x);
  Eigen::MatrixXd all = Eigen::MatrixXd::Zero(n, n), observed_states = Eigen::MatrixXd::Zero(x.cols(), n);
  for (long t = 0; t < count; ++t) {
    all += moment(q, n, t, t);
    observed_states += x.row(t).transpose() * q.mean.segment(t * n, n).transpose();
  }
  SldsParameters out = p;
  out.observation = observed_states * all.inverse();
  out.observation_noise =
      (x.transpose() * x - out.observation * observed_states.transpose()) / static_cast<double>(count);
  out.mean0 = q.mean.head(n);
  out.cov0 = q.cov.topLeftCorner(n, n);
  for (long k = 0; k < regimes; ++k) {
    Eigen::MatrixXd previous = Eigen::MatrixXd::Zero(n, n), next = previous, lag = previous;
    double steps = 0;
    for (long t = 1; t < count; ++t)
      if (path[t] == k) {
        previous += moment(q, n, t - 1, t - 1);
        next += moment(q, n, t, t);
        lag += moment(q, n, t, t - 1);
        steps += 1;
      }
    const auto u = static_cast<std::size_t>(k);
    if (steps == 0) {
      out.state_transitions[u] = pooled.state_transitions[u];
      out.state_noises[u] = pooled.state_noises[u];
      continue;
    }
    out.state_transitions[u] = lag * previous.inverse();
    out.state_noises[u] = (next - out.state_transitions[u] * lag.transpose()) / steps;
  }
  Eigen::VectorXd start = tau * pooled.start;
  Eigen::MatrixXd transitions = tau * pooled.transitions;
  start(path[0]) += 1.0;
  for (long t = 1; t < count; ++t) transitions(path[t - 1], path[t]) += 1.0;
  out.start = start / start.sum();
  for (long j = 0; j < regimes; ++j) out.transitions.row(j) = transitions.row(j) / transitions.row(j).sum();
  for (Eigen::MatrixXd* m : {&out.observation_noise, &out.cov0}) *m = 0.5 * (*m + m->transpose());
  for (Eigen::MatrixXd& m : out.state_noises) m = 0.5 * (m + m.transpose());
  return out;
}

TEST(AdaptedSlds, VanishingRelevanceIsHardEmFromThePooledModel) {
  for (unsigned seed : {62u, 63u, 65u}) {
    const PooledAndExample s = pooled_and_example(seed);
    const long iterations = 5;
    const double tau = 1e-12;
    const SldsFit adapted = adapt_slds(*s.pooled, s.example, adaptation(tau, iterations));
    const SldsParameters& pooled = s.pooled->parameters();
    SldsParameters em = pooled;
    Path path = dense_start_path(pooled, s.example);
    for (long k = 0; k < iterations; ++k) {
      em = dense_hard_em_step(em, pooled, path, s.example, tau);
      path = dense_viterbi(
          em, dense_scores(em, dense_posterior(dense_path_joint(em, path), s.example), s.example.rows() - 1));
    }
    // The constraints of the fit do not bind here, so hard EM written out is the adaptation's path.
    for (const Eigen::MatrixXd& a : em.state_transitions)
      ASSERT_LT(Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues()(0), 0.999) << "seed " << seed;
    const SldsParameters& got = adapted.model->parameters();
    EXPECT_LE(largest_difference(got, em), 1e-6) << "seed " << seed;
    EXPECT_EQ(adapted.paths[0], path) << "seed " << seed;
    EXPECT_GT(largest_difference(em, pooled), 1e-2) << "seed " << seed;  // hard EM did move
    // Its J (dense, no priors) is its last objective, and it is above the start's.
    const double dense = dense_path_log_likelihood(got, path, s.example) + path_log_probability(got, path);
    EXPECT_NEAR(adapted.objectives.back(), dense, 1e-8 * std::fabs(dense)) << "seed " << seed;
    const Path start = dense_start_path(pooled, s.example);
    SldsParameters at_start = pooled;
    at_start.length = s.example.rows() - 1;
    EXPECT_GT(dense, dense_path_log_likelihood(at_start, start, s.example) + path_log_probability(pooled, start))
        << "seed " << seed;
  }
}

// M0 = (1/(T+1)) sum_t E[s_t s_t'] under `p` (T its stored length), by enumerating every regime
// path r_0..r_T with its probability and the dense state moments given it.
Eigen::MatrixXd enumerated_state_second_moment(const SldsParameters& p) {
  const long count = p.length + 1, n = p.mean0.size(), regimes = p.start.size();
  long paths = 1;
  for (long t = 0; t < count; ++t) paths *= regimes;
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(n, n);
  for (long code = 0; code < paths; ++code) {
    Path path(static_cast<std::size_t>(count));
    for (long t = 0, rest = code; t < count; ++t, rest /= regimes) path[t] = static_cast<int>(rest % regimes);
    const double probability = std::exp(path_log_probability(p, path));
    const DenseJoint joint = dense_path_joint(p, path);
    for (long t = 0; t < count; ++t)
      sum += probability * (joint.state_cov.block(t * n, t * n, n, n) +
                            joint.state_mean.segment(t * n, n) * joint.state_mean.segment(t * n, n).transpose());
  }
  return sum / static_cast<double>(count);
}

// The MAP objective of estimate_slds.hpp written out: the dense log p(X | r) plus log p(r),
// and for each adapted group its log prior: -(tau/2) (log|S| + tr(S^-1 (S0 + D M0 D'))) for
// (S, D) = (cov0, mean0 - mean0_0, M0 = 1), (Q_k, A_k - A0_k), (R, C - C0), and tau sum p0 log p for pi
// and each row of trans.
double dense_map_objective(const SldsParameters& m, const Path& path, const Eigen::MatrixXd& x,
                           const SldsParameters& pooled, const Eigen::MatrixXd& m0, double tau,
                           const AdaptedParameters& adapt) {
  const auto term = [&](const Eigen::MatrixXd& s, const Eigen::MatrixXd& centre) {
    return -0.5 * tau * (std::log(s.determinant()) + (s.inverse() * centre).trace());
  };
  double out = dense_path_log_likelihood(m, path, x) + path_log_probability(m, path);
  if (adapt.start) {
    const Eigen::VectorXd d = m.mean0 - pooled.mean0;
    out += term(m.cov0, pooled.cov0 + d * d.transpose()) + tau * (pooled.start.array() * m.start.array().log()).sum();
  }
  if (adapt.transitions) {
    for (std::size_t k = 0; k < m.state_transitions.size(); ++k) {
      const Eigen::MatrixXd d = m.state_transitions[k] - pooled.state_transitions[k];
      out += term(m.state_noises[k], pooled.state_noises[k] + d * m0 * d.transpose());
    }
    out += tau * (pooled.transitions.array() * m.transitions.array().log()).sum();
  }
  if (adapt.emissions) {
    const Eigen::MatrixXd d = m.observation - pooled.observation;
    out += term(m.observation_noise, pooled.observation_noise + d * m0 * d.transpose());
  }
  return out;
}

TEST(AdaptedSlds, MapObjectiveIsItsDefinitionAndNeverDecreases) {
  const PooledAndExample s = pooled_and_example(71);
  const SldsParameters& pooled = s.pooled->parameters();
  ASSERT_EQ(pooled.length, 5);
  const Eigen::MatrixXd m0 = enumerated_state_second_moment(pooled);
  const Path start = dense_start_path(pooled, s.example);
  const long iterations = 8;
  for (const char* adapt : {"all", "transitions,emissions", "start"}) {
    for (double tau : {0.5, 8.0}) {
      const std::string what = std::string(adapt) + ", tau " + std::to_string(tau);
      const SldsFit full = adapt_slds(*s.pooled, s.example, adaptation(tau, iterations, adapt));
      ASSERT_EQ(full.objectives.size(), static_cast<std::size_t>(iterations + 1)) << what;
      const AdaptedParameters flags = parse_adapted_parameters(adapt);
      double previous = -INFINITY;
      for (long k = 0; k <= iterations; ++k) {
        double dense = 0;
        if (k == 0) {
          dense = dense_map_objective(pooled, start, s.example, pooled, m0, tau, flags);
        } else {
          const SldsFit partial = adapt_slds(*s.pooled, s.example, adaptation(tau, k, adapt));
          dense = dense_map_objective(partial.model->parameters(), partial.paths[0], s.example, pooled, m0, tau, flags);
        }
        EXPECT_NEAR(dense, full.objectives[k], 1e-9 * std::fabs(dense)) << what << ", iteration " << k;
        EXPECT_GE(dense, previous - 1e-10 * std::fabs(dense)) << what << ", iteration " << k;
        previous = dense;
      }
      EXPECT_GT(full.objectives.back(), full.objectives.front()) << what;  // adaptation did move
    }
  }
}

TEST(AdaptedSlds, OnlyTheChosenParametersMove) {
  const PooledAndExample s = pooled_and_example(81);
  const SldsParameters& pooled = s.pooled->parameters();
  const SldsParameters transitions =
      adapt_slds(*s.pooled, s.example, adaptation(2.0, 10, "transitions")).model->parameters();
  EXPECT_EQ(transitions.observation, pooled.observation);
  EXPECT_EQ(transitions.observation_noise, pooled.observation_noise);
  EXPECT_EQ(transitions.mean0, pooled.mean0);
  EXPECT_EQ(transitions.cov0, pooled.cov0);
  EXPECT_LE((transitions.start - pooled.start).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_GT((transitions.state_transitions[0] - pooled.state_transitions[0]).norm() +
                (transitions.state_transitions[1] - pooled.state_transitions[1]).norm(),
            1e-6);
  EXPECT_GT((transitions.transitions - pooled.transitions).norm(), 1e-6);
  const SldsParameters start = adapt_slds(*s.pooled, s.example, adaptation(2.0, 10, "start")).model->parameters();
  EXPECT_EQ(start.state_transitions, pooled.state_transitions);
  EXPECT_EQ(start.state_noises, pooled.state_noises);
  EXPECT_EQ(start.observation, pooled.observation);
  EXPECT_LE((start.transitions - pooled.transitions).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_GT((start.mean0 - pooled.mean0).norm(), 1e-6);
  EXPECT_GT((start.start - pooled.start).norm(), 1e-6);
}

// Adapted rows decode, pair with the pooled row in finite kernels, and their Gram with it is PSD.
TEST(AdaptedSlds, AdaptedRowsDecodeAndPairWithThePooledRowInAPsdGram) {
  const PooledAndExample s = pooled_and_example(91);
  std::vector<std::unique_ptr<Model>> rows;
  rows.push_back(decode_row(encode_row(*s.pooled)));
  for (unsigned i = 0; i < 4; ++i) {
    const Eigen::MatrixXd x = simulate_slds(i % 2 ? s.truth : switching_system(200 + i), 15 + 5 * i, 300 + i);
    rows.push_back(decode_row(encode_row(*adapt_slds(*s.pooled, x, adaptation(4.0, 30), 4).model)));
  }
  expect_finite_kernels_and_psd_normalised_gram(rows, 12);
}

TEST(AdaptedSlds, RejectsBadOptionsAndSequencesByName) {
  const PooledAndExample s = pooled_and_example(101);
  for (double tau : {0.0, -1.0, std::nan("")})
    EXPECT_TRUE(refuses([&] { adapt_slds(*s.pooled, s.example, adaptation(tau, 5)); }, {"relevance"})) << tau;
  EXPECT_TRUE(refuses([&] { adapt_slds(*s.pooled, s.example, adaptation(1.0, 5, "weights")); },
                      {"adapt", "'weights'", "slds", "start, transitions, emissions"}));
  EXPECT_TRUE(refuses([&] { adapt_slds(*s.pooled, s.example, adaptation(1.0, 5), 0); }, {"paths", "in [1, 1000]"}));
  EXPECT_TRUE(refuses([&] { adapt_slds(*s.pooled, Eigen::MatrixXd::Zero(5, 3), adaptation(1.0, 5)); },
                      {"3 coordinates", "pooled SLDS", "2"}));
  EXPECT_TRUE(refuses([&] { adapt_slds(*s.pooled, s.example.topRows(1), adaptation(1.0, 5)); },
                      {"the sequence", "1 vector", "SLDS", "at least 2"}));
  Eigen::MatrixXd infinite = s.example;
  infinite(3, 1) = INFINITY;
  EXPECT_TRUE(refuses([&] { adapt_slds(*s.pooled, infinite, adaptation(1.0, 5)); }, {"finite"}));
  const std::vector<Eigen::MatrixXd> short_second{s.example, s.example.topRows(1)}, none;
  EXPECT_TRUE(refuses([&] { fit_pooled_slds(short_second, pooled_options(5)); }, {"sequence 2", "1 vector", "SLDS"}));
  EXPECT_TRUE(refuses([&] { fit_pooled_slds(none, pooled_options(5)); }, {"no sequences"}));
  const std::vector<Eigen::MatrixXd> mixed{s.example, Eigen::MatrixXd::Zero(4, 3)};
  EXPECT_TRUE(refuses([&] { fit_pooled_slds(mixed, pooled_options(5)); }, {"sequence 2", "3 coordinates"}));
  SldsFitOptions no_regimes = pooled_options(5);
  no_regimes.states = 0;
  EXPECT_TRUE(refuses([&] { fit_pooled_slds({s.example}, no_regimes); }, {"states", "in [1, 1000]"}));
}

}  // namespace
}  // namespace ppk
