// The pooled LDS and the MAP adaptation of a pooled LDS (estimate_lds.hpp): the pooled
// objective against the sum of the sequences' dense joint-Gaussian log-likelihoods, never
// decreasing and independent of the threads, one sequence giving fit_lds; relevance tau -> infinity
// giving the pooled model, tau -> 0 giving maximum-likelihood EM from the pooled model (against EM
// written here with the E-step of the dense joint Gaussian of states and observations); the MAP
// objective against its definition (dense log-likelihood plus the log priors written out here) and
// never decreasing; only the chosen parameters moving; adapted rows pairing with the pooled row in
// a PSD Gram; bad options and sequences refused by name.
#include <gtest/gtest.h>

#include <cmath>
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

namespace ppk {
namespace {

using checks::mentions;

// `count` sequences of 18..24 vectors from one random LDS (n = 2, d = 2).
std::vector<Eigen::MatrixXd> lds_sequences(const Lds& s, int count, unsigned seed) {
  return simulated_sequences(count, seed, [&](long length, unsigned k) { return simulate_rows(s, length, k); });
}

LdsFitOptions pooled_options(long iterations) {
  LdsFitOptions options;
  options.state_dim = 2;
  options.ridge = 0.0;
  options.iterations = iterations;
  options.tolerance = 0;
  options.restarts = 1;
  options.seed = 3;
  return options;
}

// The model's parameters in plain matrices.
Lds plain(const LdsModel& m) {
  return Lds{m.mean0(), m.cov0(), m.transition(), m.state_noise(), m.observation(), m.observation_noise(), m.length()};
}

// The model with stored length N - 1, for the dense joint of N vectors.
std::unique_ptr<LdsModel> with_length(const LdsModel& m, long count) {
  Lds s = plain(m);
  s.length = count - 1;
  return lds_model(s);
}

double dense_sequences_log_likelihood(const LdsModel& m, const std::vector<Eigen::MatrixXd>& sequences) {
  double sum = 0;
  for (const Eigen::MatrixXd& x : sequences) sum += dense_log_likelihood(*with_length(m, x.rows()), x);
  return sum;
}

double largest_difference(const Lds& a, const Lds& b) {
  return std::max({(a.mean0 - b.mean0).cwiseAbs().maxCoeff(), (a.cov0 - b.cov0).cwiseAbs().maxCoeff(),
                   (a.A - b.A).cwiseAbs().maxCoeff(), (a.Q - b.Q).cwiseAbs().maxCoeff(),
                   (a.C - b.C).cwiseAbs().maxCoeff(), (a.R - b.R).cwiseAbs().maxCoeff()});
}

// A pooled LDS of 6 sequences and a 40-vector example from the same system.
struct PooledAndExample {
  Lds truth;
  std::unique_ptr<LdsModel> pooled;
  Eigen::MatrixXd example;
};
PooledAndExample pooled_and_example(unsigned seed) {
  std::mt19937 rng(seed);
  PooledAndExample out;
  out.truth = random_lds(rng, 2, 2, 0);
  out.pooled = std::move(fit_pooled_lds(lds_sequences(out.truth, 6, seed), pooled_options(40)).model);
  out.example = simulate_rows(out.truth, 40, seed + 100);
  return out;
}

TEST(PooledLds, ObjectiveIsTheSumOfTheSequencesDenseLikelihoodsAndNeverDecreases) {
  std::mt19937 rng(41);
  const Lds s = random_lds(rng, 2, 2, 0);
  const std::vector<Eigen::MatrixXd> sequences = lds_sequences(s, 4, 7);
  const long iterations = 12;
  const LdsFit full = fit_pooled_lds(sequences, pooled_options(iterations));
  ASSERT_EQ(full.log_likelihoods.size(), static_cast<std::size_t>(iterations + 1));
  double previous = -INFINITY;
  for (long k = 1; k <= iterations; ++k) {
    const LdsFit partial = fit_pooled_lds(sequences, pooled_options(k));
    const double dense = dense_sequences_log_likelihood(*partial.model, sequences);
    EXPECT_NEAR(dense, full.log_likelihoods[k], 1e-9 * std::fabs(dense)) << "iteration " << k;
    EXPECT_GE(dense, previous - 1e-10 * std::fabs(dense)) << "iteration " << k;
    previous = dense;
  }
  EXPECT_GT(full.log_likelihoods.back(), full.log_likelihoods.front() + 1.0);  // EM did move
  EXPECT_EQ(full.model->length(), sequences[0].rows() - 1);
}

TEST(PooledLds, DoesNotDependOnTheThreadsAndOneSequenceIsFitLds) {
  std::mt19937 rng(42);
  const Lds s = random_lds(rng, 2, 2, 0);
  const std::vector<Eigen::MatrixXd> sequences = lds_sequences(s, 5, 9);
  LdsFitOptions options = pooled_options(30);
  options.restarts = 3;
  EXPECT_EQ(largest_difference(plain(*fit_pooled_lds(sequences, options, 1).model),
                               plain(*fit_pooled_lds(sequences, options, 2).model)),
            0.0);
  options.ridge.reset();  // the default ridge and a prior, as ppk fit lds uses them
  options.prior = LdsPrior{4.0, 0.4, 0.2};
  EXPECT_EQ(largest_difference(plain(*fit_pooled_lds({sequences[1]}, options).model),
                               plain(*fit_lds(sequences[1], options).model)),
            0.0);
}

TEST(AdaptedLds, InfiniteRelevanceGivesThePooledModel) {
  const PooledAndExample s = pooled_and_example(51);
  for (const char* adapt : {"all", "transitions", "start,emissions"}) {
    const LdsFit adapted = adapt_lds(*s.pooled, s.example, adaptation(1e14, 20, adapt));
    EXPECT_LE(largest_difference(plain(*adapted.model), plain(*s.pooled)), 1e-9) << adapt;
  }
}

// One EM step of maximum likelihood (Shumway and Stoffer 1982; Ghahramani and Hinton 1996) with the
// E-step by the dense joint Gaussian of the states S and observations X (dense_posterior).
Lds dense_em_step(const Lds& s, const Eigen::MatrixXd& x) {
  const long count = x.rows(), n = s.A.rows();
  const DensePosterior dense = dense_posterior(s, x);
  const Eigen::VectorXd& mean = dense.mean;
  const Eigen::MatrixXd& cov = dense.cov;
  const auto moment = [&](long t, long u) -> Eigen::MatrixXd {
    return cov.block(t * n, u * n, n, n) + mean.segment(t * n, n) * mean.segment(u * n, n).transpose();
  };
  Eigen::MatrixXd all = Eigen::MatrixXd::Zero(n, n), previous = all, next = all, lag = all;
  Eigen::MatrixXd observed_states = Eigen::MatrixXd::Zero(x.cols(), n);
  for (long t = 0; t < count; ++t) {
    all += moment(t, t);
    observed_states += x.row(t).transpose() * mean.segment(t * n, n).transpose();
    if (t > 0) {
      previous += moment(t - 1, t - 1);
      next += moment(t, t);
      lag += moment(t, t - 1);
    }
  }
  Lds out = s;
  out.C = observed_states * all.inverse();
  out.R = (x.transpose() * x - out.C * observed_states.transpose()) / static_cast<double>(count);
  out.A = lag * previous.inverse();
  out.Q = (next - out.A * lag.transpose()) / static_cast<double>(count - 1);
  out.mean0 = mean.head(n);
  out.cov0 = cov.topLeftCorner(n, n);
  for (Eigen::MatrixXd* m : {&out.R, &out.Q, &out.cov0}) *m = 0.5 * (*m + m->transpose());
  return out;
}

TEST(AdaptedLds, VanishingRelevanceIsMaximumLikelihoodEmFromThePooledModel) {
  for (unsigned seed : {61u, 62u}) {
    const PooledAndExample s = pooled_and_example(seed);
    const long iterations = 6;
    const LdsFit adapted = adapt_lds(*s.pooled, s.example, adaptation(1e-12, iterations));
    Lds em = plain(*s.pooled);
    for (long k = 0; k < iterations; ++k) em = dense_em_step(em, s.example);
    const Lds got = plain(*adapted.model);
    EXPECT_LE(largest_difference(got, em), 1e-6) << "seed " << seed;
    EXPECT_GT(largest_difference(em, plain(*s.pooled)), 1e-2) << "seed " << seed;  // EM did move
    // Its likelihood (by the dense joint) is never below the pooled start's.
    EXPECT_GE(dense_log_likelihood(*adapted.model, s.example),
              dense_log_likelihood(*with_length(*s.pooled, s.example.rows()), s.example))
        << "seed " << seed;
  }
}

// M0 = (1/(T+1)) sum_t E[s_t s_t'] under `m` (T its stored length), by the dense joint of its states.
Eigen::MatrixXd dense_state_second_moment(const LdsModel& m) {
  const long count = m.length() + 1, n = m.state_dim();
  const DenseJoint joint = dense_joint(plain(m), count);
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(n, n);
  for (long t = 0; t < count; ++t)
    sum += joint.state_cov.block(t * n, t * n, n, n) +
           joint.state_mean.segment(t * n, n) * joint.state_mean.segment(t * n, n).transpose();
  return sum / static_cast<double>(count);
}

// The MAP objective of estimate_lds.hpp written out: the dense log-likelihood plus, for each adapted
// group, -(tau/2) (log|S| + tr(S^-1 (S0 + D M D'))) with (S, D) = (cov0, mean0 - mean0_0 and M = 1),
// (Q, A - A0), (R, C - C0).
double dense_map_objective(const LdsModel& m, const Eigen::MatrixXd& x, const LdsModel& pooled, double tau,
                           const AdaptedParameters& adapt) {
  const Eigen::MatrixXd m0 = dense_state_second_moment(pooled);
  const auto term = [&](const Eigen::MatrixXd& s, const Eigen::MatrixXd& centre) {
    return -0.5 * tau * (std::log(s.determinant()) + (s.inverse() * centre).trace());
  };
  double out = dense_log_likelihood(m, x);
  if (adapt.start) {
    const Eigen::VectorXd d = m.mean0() - pooled.mean0();
    out += term(m.cov0(), pooled.cov0() + d * d.transpose());
  }
  if (adapt.transitions) {
    const Eigen::MatrixXd d = m.transition() - pooled.transition();
    out += term(m.state_noise(), pooled.state_noise() + d * m0 * d.transpose());
  }
  if (adapt.emissions) {
    const Eigen::MatrixXd d = m.observation() - pooled.observation();
    out += term(m.observation_noise(), pooled.observation_noise() + d * m0 * d.transpose());
  }
  return out;
}

TEST(AdaptedLds, MapObjectiveIsItsDefinitionAndNeverDecreases) {
  const PooledAndExample s = pooled_and_example(71);
  const long iterations = 10;
  for (const char* adapt : {"all", "transitions,emissions", "start"}) {
    for (double tau : {0.5, 8.0}) {
      const std::string what = std::string(adapt) + ", tau " + std::to_string(tau);
      const LdsFit full = adapt_lds(*s.pooled, s.example, adaptation(tau, iterations, adapt));
      ASSERT_EQ(full.log_likelihoods.size(), static_cast<std::size_t>(iterations + 1)) << what;
      const AdaptedParameters flags = parse_adapted_parameters(adapt);
      double previous = -INFINITY;
      for (long k = 0; k <= iterations; ++k) {
        const LdsFit partial = adapt_lds(*s.pooled, s.example, adaptation(tau, std::max(1L, k), adapt));
        const double dense =
            k == 0 ? dense_map_objective(*with_length(*s.pooled, s.example.rows()), s.example, *s.pooled, tau, flags)
                   : dense_map_objective(*partial.model, s.example, *s.pooled, tau, flags);
        EXPECT_NEAR(dense, full.log_likelihoods[k], 1e-9 * std::fabs(dense)) << what << ", iteration " << k;
        EXPECT_GE(dense, previous - 1e-10 * std::fabs(dense)) << what << ", iteration " << k;
        previous = dense;
      }
      EXPECT_GT(full.log_likelihoods.back(), full.log_likelihoods.front()) << what;  // adaptation did move
    }
  }
}

TEST(AdaptedLds, OnlyTheChosenParametersMove) {
  const PooledAndExample s = pooled_and_example(81);
  const Lds pooled = plain(*s.pooled);
  const Lds transitions = plain(*adapt_lds(*s.pooled, s.example, adaptation(2.0, 10, "transitions")).model);
  EXPECT_EQ(transitions.C, pooled.C);
  EXPECT_EQ(transitions.R, pooled.R);
  EXPECT_EQ(transitions.mean0, pooled.mean0);
  EXPECT_EQ(transitions.cov0, pooled.cov0);
  EXPECT_GT((transitions.A - pooled.A).norm(), 1e-6);
  const Lds start = plain(*adapt_lds(*s.pooled, s.example, adaptation(2.0, 10, "start")).model);
  EXPECT_EQ(start.A, pooled.A);
  EXPECT_EQ(start.Q, pooled.Q);
  EXPECT_EQ(start.C, pooled.C);
  EXPECT_GT((start.mean0 - pooled.mean0).norm(), 1e-6);
}

// Adapted rows decode, pair with the pooled row in finite kernels, and their Gram with it is PSD.
TEST(AdaptedLds, AdaptedRowsDecodeAndPairWithThePooledRowInAPsdGram) {
  const PooledAndExample s = pooled_and_example(91);
  std::vector<std::unique_ptr<Model>> rows;
  rows.push_back(decode_row(encode_row(*s.pooled)));
  std::mt19937 rng(5);
  for (unsigned i = 0; i < 4; ++i) {
    const Eigen::MatrixXd x = simulate_rows(i % 2 ? s.truth : random_lds(rng, 2, 2, 0), 15 + 5 * i, 300 + i);
    rows.push_back(decode_row(encode_row(*adapt_lds(*s.pooled, x, adaptation(4.0, 50)).model)));
  }
  expect_finite_kernels_and_psd_normalised_gram(rows, 12);
}

TEST(AdaptedLds, RejectsBadOptionsAndSequencesByName) {
  const PooledAndExample s = pooled_and_example(101);
  for (double tau : {0.0, -1.0, std::nan("")})
    EXPECT_TRUE(refuses([&] { adapt_lds(*s.pooled, s.example, adaptation(tau, 5)); }, {"relevance"})) << tau;
  EXPECT_TRUE(refuses([&] { adapt_lds(*s.pooled, s.example, adaptation(1.0, 5, "means")); },
                      {"adapt", "'means'", "lds", "start, transitions, emissions"}));
  EXPECT_TRUE(refuses([&] { adapt_lds(*s.pooled, Eigen::MatrixXd::Zero(5, 3), adaptation(1.0, 5)); },
                      {"3 coordinates", "pooled LDS", "2"}));
  EXPECT_TRUE(refuses([&] { adapt_lds(*s.pooled, s.example.topRows(1), adaptation(1.0, 5)); },
                      {"the sequence", "1 vector", "at least 2"}));
  Eigen::MatrixXd infinite = s.example;
  infinite(3, 1) = INFINITY;
  EXPECT_TRUE(refuses([&] { adapt_lds(*s.pooled, infinite, adaptation(1.0, 5)); }, {"finite"}));
  const std::vector<Eigen::MatrixXd> short_second{s.example, s.example.topRows(1)}, none;
  EXPECT_TRUE(refuses([&] { fit_pooled_lds(short_second, pooled_options(5)); }, {"sequence 2", "1 vector"}));
  EXPECT_TRUE(refuses([&] { fit_pooled_lds(none, pooled_options(5)); }, {"no sequences"}));
  const std::vector<Eigen::MatrixXd> mixed{s.example, Eigen::MatrixXd::Zero(4, 3)};
  EXPECT_TRUE(refuses([&] { fit_pooled_lds(mixed, pooled_options(5)); }, {"sequence 2", "3 coordinates"}));
}

}  // namespace
}  // namespace ppk
