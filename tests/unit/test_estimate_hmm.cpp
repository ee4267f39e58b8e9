// The HMM estimator (estimate.hpp): Baum-Welch never decreases its penalised objective; the final
// objective equals log p(X) summed by brute force over every hidden path (plus the prior terms,
// written out here); known HMMs are recovered from long sampled sequences; the JMLR 2004 section
// 8.2 state rule; determinism; smoothing keeps every probability positive.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "estimate_helpers.hpp"
#include "positive_family_checks.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using checks::mentions;

const std::vector<double> kStart3{0.5, 0.3, 0.2};
const std::vector<std::vector<double>> kTrans3{{0.8, 0.15, 0.05}, {0.1, 0.7, 0.2}, {0.3, 0.3, 0.4}};
const std::vector<std::vector<double>> kEmit3{{0.6, 0.2, 0.1, 0.1}, {0.1, 0.1, 0.4, 0.4}, {0.25, 0.25, 0.25, 0.25}};

// n 2-D vectors from a 3-state HMM with Gaussian emissions around three means.
Eigen::MatrixXd sample_vectors(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double means[3][2] = {{-2.0, 0.0}, {2.0, 1.0}, {0.0, -2.0}};
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(n, 2);
  const std::vector<int> path = sample_path(kStart3, kTrans3, n, rng);
  for (int t = 0; t < n; ++t)
    for (int d = 0; d < 2; ++d) x(t, d) = means[path[t]][d] + (d == 0 ? 0.7 : 1.2) * normal(rng);
  return x;
}

TEST(HmmEstimate, BaumWelchNeverDecreasesTheObjectiveDiscrete) {
  const std::vector<long> x = sample_symbols(kStart3, kTrans3, kEmit3, 400, 3);
  for (double smoothing : {0.0, 0.1, 1.0})
    for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
      HmmFitOptions options;
      options.states = 3;
      options.smoothing = smoothing;
      options.tolerance = 0;
      options.iterations = 60;
      options.restarts = 1;
      options.seed = seed;
      expect_never_decreases(fit_discrete_hmm(x, 4, options).log_likelihoods, 60,
                             "smoothing " + std::to_string(smoothing) + ", seed " + std::to_string(seed));
    }
}

HmmFitOptions gaussian_options(CovarianceForm form, long states, double smoothing, long iterations) {
  HmmFitOptions options;
  options.emissions = HmmEmissions::gaussian;
  options.covariance = form;
  options.states = states;
  options.smoothing = smoothing;
  options.iterations = iterations;
  return options;
}

TEST(HmmEstimate, BaumWelchNeverDecreasesTheObjectiveGaussian) {
  const Eigen::MatrixXd x = sample_vectors(300, 8);
  for (CovarianceForm form : {CovarianceForm::isotropic, CovarianceForm::diagonal, CovarianceForm::full})
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      HmmFitOptions options = gaussian_options(form, 3, 0.1, 40);
      options.tolerance = 0;
      options.restarts = 1;
      options.seed = seed;
      expect_never_decreases(fit_gaussian_hmm(x, options).log_likelihoods, 40,
                             "form " + std::to_string(static_cast<int>(form)) + ", seed " + std::to_string(seed));
    }
}

// a (sum log pi + sum log A): the chain's Dirichlet(1 + a) prior terms.
double chain_prior(const HmmModel& hmm, double a) {
  return a * (hmm.start().array().log().sum() + hmm.transitions().array().log().sum());
}

TEST(HmmEstimate, FinalObjectiveIsTheBruteForceLikelihoodDiscrete) {
  const std::vector<long> x{0, 2, 2, 1, 0, 0, 2};  // 7 symbols over 3: 3^7 paths of 3 states
  for (double smoothing : {0.0, 0.2}) {
    HmmFitOptions options;
    options.states = 3;
    options.smoothing = smoothing;
    options.iterations = 5;
    const HmmFit fit = fit_discrete_hmm(x, 3, options);
    const HmmModel& hmm = *fit.model;
    const auto emission = [&](int q, long o) {
      return static_cast<const MultinomialModel&>(hmm.emission(q)).probabilities().at(o);
    };
    double expected = brute_force_log_likelihood(hmm, 7, [&](int q, int t) { return std::log(emission(q, x[t])); });
    if (smoothing > 0) {
      expected += chain_prior(hmm, smoothing);
      for (int q = 0; q < 3; ++q)
        for (long o = 0; o < 3; ++o) expected += smoothing * std::log(emission(q, o));
    }
    EXPECT_NEAR(fit.log_likelihoods.back(), expected, 1e-12 * std::fabs(expected)) << "smoothing " << smoothing;
  }
}

TEST(HmmEstimate, FinalObjectiveIsTheBruteForceLikelihoodGaussian) {
  const Eigen::MatrixXd x = sample_vectors(6, 21);
  for (CovarianceForm form : {CovarianceForm::isotropic, CovarianceForm::full}) {
    HmmFitOptions options = gaussian_options(form, 2, 0.5, 4);
    options.ridge = 0.05;
    const HmmFit fit = fit_gaussian_hmm(x, options);
    const HmmModel& hmm = *fit.model;
    double expected = brute_force_log_likelihood(hmm, 6, [&](int q, int t) {
      return static_cast<const GaussianModel&>(hmm.emission(q)).log_density(x.row(t).transpose());
    });
    expected += chain_prior(hmm, 0.5);
    for (int q = 0; q < 2; ++q)  // the ridge penalty (R/2) trace(Sigma_q^-1)
      expected -= 0.5 * 0.05 * static_cast<const GaussianModel&>(hmm.emission(q)).covariance().inverse().trace();
    EXPECT_NEAR(fit.log_likelihoods.back(), expected, 1e-11 * std::fabs(expected));
  }
}

// The states of `fitted` in the order of the true states they match: the permutation of two
// states whose emission parameters (`feature`) are closer to `truth`.
template <class Feature>
std::vector<int> match_states(const HmmModel& fitted, const std::vector<double>& truth, Feature feature) {
  const double same = std::fabs(feature(fitted, 0) - truth[0]) + std::fabs(feature(fitted, 1) - truth[1]);
  const double swapped = std::fabs(feature(fitted, 1) - truth[0]) + std::fabs(feature(fitted, 0) - truth[1]);
  return same <= swapped ? std::vector<int>{0, 1} : std::vector<int>{1, 0};
}

void expect_transitions(const HmmModel& hmm, const std::vector<int>& order, const std::vector<std::vector<double>>& trans,
                        double tolerance) {
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 2; ++q)
      EXPECT_NEAR(hmm.transitions()(order[p], order[q]), trans[p][q], tolerance) << p << " -> " << q;
}

TEST(HmmEstimate, RecoversATwoStateDiscreteHmm) {
  const std::vector<std::vector<double>> trans{{0.9, 0.1}, {0.2, 0.8}};
  const std::vector<std::vector<double>> emissions{{0.8, 0.15, 0.05}, {0.05, 0.15, 0.8}};
  const std::vector<long> x = sample_symbols({0.5, 0.5}, trans, emissions, 20001, 2026);  // T = 20,000
  HmmFitOptions options;
  options.states = 2;
  const HmmFit fit = fit_discrete_hmm(x, 3, options);
  const HmmModel& hmm = *fit.model;
  EXPECT_EQ(hmm.length(), 20000);
  const auto emission = [](const HmmModel& h, int q, long o) {
    return static_cast<const MultinomialModel&>(h.emission(q)).probabilities().at(o);
  };
  const std::vector<int> order =
      match_states(hmm, {0.8, 0.05}, [&](const HmmModel& h, int q) { return emission(h, q, 0); });
  expect_transitions(hmm, order, trans, 0.03);
  for (int q = 0; q < 2; ++q)
    for (long o = 0; o < 3; ++o) EXPECT_NEAR(emission(hmm, order[q], o), emissions[q][o], 0.03) << q << ", " << o;
}

TEST(HmmEstimate, RecoversATwoStateGaussianHmm) {
  const std::vector<std::vector<double>> trans{{0.95, 0.05}, {0.1, 0.9}};
  const double means[2] = {-2.0, 2.0}, variances[2] = {1.0, 0.5};
  std::mt19937_64 rng(7);
  const std::vector<int> path = sample_path({0.5, 0.5}, trans, 5000, rng);
  Eigen::MatrixXd x(5000, 1);
  std::normal_distribution<double> normal;
  for (int t = 0; t < 5000; ++t) x(t, 0) = means[path[t]] + std::sqrt(variances[path[t]]) * normal(rng);
  HmmFitOptions options;
  options.emissions = HmmEmissions::gaussian;
  options.covariance = CovarianceForm::isotropic;
  options.states = 2;
  const HmmFit fit = fit_gaussian_hmm(x, options);
  const HmmModel& hmm = *fit.model;
  const auto gaussian = [](const HmmModel& h, int q) -> const GaussianModel& {
    return static_cast<const GaussianModel&>(h.emission(q));
  };
  const std::vector<int> order =
      match_states(hmm, {-2.0, 2.0}, [&](const HmmModel& h, int q) { return gaussian(h, q).mean()(0); });
  expect_transitions(hmm, order, trans, 0.03);
  for (int q = 0; q < 2; ++q) {
    EXPECT_NEAR(gaussian(hmm, order[q]).mean()(0), means[q], 0.1) << q;
    EXPECT_NEAR(gaussian(hmm, order[q]).covariance()(0, 0), variances[q], 0.1 * variances[q]) << q;
  }
}

TEST(HmmEstimate, AutomaticStatesFollowTheSectionEightTwoRule) {
  // M = floor(sqrt(O^2 + 4 (n z + O + 1)) / 2 - O / 2) + 1.
  // O = 4, n = 1000, z = 0.1: sqrt(16 + 4 * 105) = sqrt(436) = 20.88..; 10.44 - 2 = 8.44; M = 8 + 1.
  EXPECT_EQ(hmm_auto_states(4, 1000, 0.1), 9);
  // O = 4, n = 160, z = 0.1: sqrt(16 + 4 * 21) = sqrt(100) = 10 exactly; 5 - 2 = 3; M = 3 + 1.
  EXPECT_EQ(hmm_auto_states(4, 160, 0.1), 4);
  // O = 4, n = 159: sqrt(16 + 4 * 20.9) = sqrt(99.6) = 9.98; 4.99 - 2 = 2.99; M = 2 + 1.
  EXPECT_EQ(hmm_auto_states(4, 159, 0.1), 3);
  // O = 20 (amino acids), n = 10, z = 0.1: sqrt(400 + 4 * 22) = sqrt(488) = 22.09; 11.05 - 10 = 1.05; M = 2.
  EXPECT_EQ(hmm_auto_states(20, 10, 0.1), 2);
  // O = 4, n = 1, z = 0.1: sqrt(16 + 4 * 5.1) = sqrt(36.4) = 6.03; 3.02 - 2 = 1.02; M = 2.
  EXPECT_EQ(hmm_auto_states(4, 1, 0.1), 2);

  // Through the estimator: 1000 symbols of 4 give 9 states; 2-D Gaussian emissions with a full
  // covariance have O = 2 + 3 = 5 parameters per state, and n = 300:
  // sqrt(25 + 4 * (30 + 6)) = sqrt(169) = 13; 6.5 - 2.5 = 4; M = 4 + 1.
  HmmFitOptions options;
  options.iterations = 2;
  options.restarts = 1;
  EXPECT_EQ(fit_discrete_hmm(sample_symbols(kStart3, kTrans3, kEmit3, 1000, 1), 4, options).model->states(), 9u);
  options.emissions = HmmEmissions::gaussian;
  EXPECT_EQ(fit_gaussian_hmm(sample_vectors(300, 2), options).model->states(), 5u);
}

// A sequence as the estimator's input: one one-hot vector per symbol.
std::vector<SparseVector> one_hot(const std::vector<long>& symbols) {
  std::vector<SparseVector> vectors;
  for (long symbol : symbols) vectors.push_back({Feature{symbol, 1.0}});
  return vectors;
}

TEST(HmmEstimate, DeterministicGivenTheSeedAndTheSequence) {
  const std::vector<long> x = sample_symbols(kStart3, kTrans3, kEmit3, 200, 5);
  HmmFitOptions options;
  options.states = 3;
  const std::string first = format_entries(encode_row(*fit_discrete_hmm(x, 4, options).model));
  EXPECT_EQ(format_entries(encode_row(*fit_discrete_hmm(x, 4, options).model)), first);
  const auto estimator = hmm_estimator(options);
  EXPECT_EQ(format_entries(encode_row(*estimate(*estimator, one_hot(x), 4))), first);
  options.seed = 2;        // another seed starts elsewhere; EM may converge to the same optimum, but the
  options.iterations = 1;  // parameters after one step differ
  HmmFitOptions one_step = options;
  one_step.seed = 1;
  EXPECT_NE(format_entries(encode_row(*fit_discrete_hmm(x, 4, options).model)),
            format_entries(encode_row(*fit_discrete_hmm(x, 4, one_step).model)));
  // The stored length: n - 1 by default, or the option.
  EXPECT_EQ(fit_discrete_hmm(x, 4, options).model->length(), 199);
  options.length = 9;
  EXPECT_EQ(fit_discrete_hmm(x, 4, options).model->length(), 9);
}

// Every start, transition and emission probability of a discrete-emission HMM.
std::vector<double> probabilities(const HmmModel& hmm, long alphabet) {
  std::vector<double> all(hmm.start().data(), hmm.start().data() + hmm.start().size());
  for (Eigen::Index p = 0; p < hmm.transitions().rows(); ++p)
    for (Eigen::Index q = 0; q < hmm.transitions().cols(); ++q) all.push_back(hmm.transitions()(p, q));
  for (std::size_t q = 0; q < hmm.states(); ++q)
    for (long o = 0; o < alphabet; ++o)
      all.push_back(static_cast<const MultinomialModel&>(hmm.emission(q)).probabilities().at(o));
  return all;
}

TEST(HmmEstimate, SmoothingKeepsEveryProbabilityPositive) {
  const std::vector<long> x{0, 1, 0};  // symbol 2 never occurs
  HmmFitOptions options;
  options.states = 2;
  const std::vector<double> smoothed = probabilities(*fit_discrete_hmm(x, 3, options).model, 3);
  // Every emission probability >= a / (3 + O a) = 0.1 / 3.3; the chain's >= a / (2 + M a).
  for (double p : smoothed) EXPECT_GE(p, 0.1 / 3.3 - 1e-15);
  // Without smoothing, ML gives the unseen symbol probability 0 in every state.
  options.smoothing = 0;
  const HmmFit ml_fit = fit_discrete_hmm(x, 3, options);
  const HmmModel& ml = *ml_fit.model;
  for (std::size_t q = 0; q < 2; ++q)
    EXPECT_EQ(static_cast<const MultinomialModel&>(ml.emission(q)).probabilities().at(2), 0.0);
}

// One Baum-Welch step of a pooled fit over 150 short sequences (more than the E-step's 64 blocks,
// so blocks hold several sequences): the fit of N + 1 iterations is the EM step, by enumeration of
// every hidden path of every sequence, from the fit of N iterations (the same seed, the same start).
TEST(HmmEstimate, PooledStepIsTheBruteForceEmStepOverManySequences) {
  std::mt19937_64 rng(31);
  std::vector<std::vector<long>> sequences(150);
  for (std::vector<long>& sequence : sequences) {
    sequence.resize(2 + rng() % 4);  // 2..5 symbols: at most 2^5 paths
    for (long& symbol : sequence) symbol = static_cast<long>(rng() % 3);
  }
  const double a = 0.3;
  HmmFitOptions options;
  options.states = 2;
  options.restarts = 1;
  options.smoothing = a;
  options.tolerance = 0.0;
  options.iterations = 2;
  const HmmFit before = fit_pooled_discrete_hmm(sequences, 3, options);
  const HmmModel& hmm = *before.model;
  const auto emission = [&](int q, long o) {
    return static_cast<const MultinomialModel&>(hmm.emission(q)).probabilities().at(o);
  };
  // Expected counts under `before`: each path weighted by its posterior probability.
  Eigen::RowVector2d start_counts = Eigen::RowVector2d::Zero();
  Eigen::Matrix2d transition_counts = Eigen::Matrix2d::Zero();
  Eigen::Matrix<double, 2, 3> emission_counts = Eigen::Matrix<double, 2, 3>::Zero();
  for (const std::vector<long>& x : sequences) {
    const int n = static_cast<int>(x.size());
    std::vector<double> weights(std::size_t{1} << n);
    for (std::size_t path = 0; path < weights.size(); ++path) {
      const auto state = [&](int t) { return static_cast<int>((path >> t) & 1); };
      double w = hmm.start()(state(0)) * emission(state(0), x[0]);
      for (int t = 1; t < n; ++t) w *= hmm.transitions()(state(t - 1), state(t)) * emission(state(t), x[t]);
      weights[path] = w;
    }
    double total = 0.0;
    for (double w : weights) total += w;
    for (std::size_t path = 0; path < weights.size(); ++path) {
      const double posterior = weights[path] / total;
      const auto state = [&](int t) { return static_cast<int>((path >> t) & 1); };
      start_counts(state(0)) += posterior;
      for (int t = 0; t < n; ++t) emission_counts(state(t), x[t]) += posterior;
      for (int t = 1; t < n; ++t) transition_counts(state(t - 1), state(t)) += posterior;
    }
  }
  const auto normalised = [a](auto counts) {
    counts.array() += a;
    return (counts.array().colwise() / counts.array().rowwise().sum()).matrix().eval();
  };
  const Eigen::RowVector2d start = normalised(start_counts);
  const Eigen::Matrix2d transitions = normalised(transition_counts);
  const Eigen::Matrix<double, 2, 3> emissions = normalised(emission_counts);
  options.iterations = 3;
  for (unsigned threads : {1U, 2U}) {
    const HmmFit after = fit_pooled_discrete_hmm(sequences, 3, options, threads);
    const HmmModel& next = *after.model;
    EXPECT_LT((next.start().transpose() - start).cwiseAbs().maxCoeff(), 1e-12) << threads << " threads";
    EXPECT_LT((next.transitions() - transitions).cwiseAbs().maxCoeff(), 1e-12) << threads << " threads";
    for (int q = 0; q < 2; ++q)
      for (long o = 0; o < 3; ++o)
        EXPECT_NEAR(static_cast<const MultinomialModel&>(next.emission(q)).probabilities().at(o), emissions(q, o), 1e-12)
            << "state " << q << ", symbol " << o << ", " << threads << " threads";
  }
}

// A working set beyond the machine's memory (10^4 restarts of 5791 x 5791 transition matrices:
// 2.7 TB) is refused before anything is allocated, naming the options that make it large.
TEST(HmmEstimate, RefusesAWorkingSetBeyondTheMachinesMemory) {
  HmmFitOptions options;
  options.states = kMaxHmmFitStates;
  options.restarts = 10000;
  try {
    fit_pooled_discrete_hmm({{0, 1, 2, 1}}, 3, options);
    FAIL() << "a fit of 2.7 TB of working memory ran";
  } catch (const WorkingMemoryError& e) {
    EXPECT_EQ(e.fields(), (std::vector<std::string>{"states", "restarts"}));
    EXPECT_TRUE(mentions(e.what(), {"states 5791 and restarts 10000 over 4 observations", "TB of working memory",
                                    "lower states or restarts"}))
        << e.what();
  }
}

TEST(HmmEstimate, RejectsBadInputAndOptions) {
  HmmFitOptions options;
  EXPECT_TRUE(mentions(estimation_error([&] {
                         fit_discrete_hmm({0, 3}, 3, options);
                       }),
                       {"symbol 3", "position 2", "0..2"}));
  EXPECT_TRUE(mentions(estimation_error([&] { fit_discrete_hmm({}, 3, options); }), {"empty"}));
  const auto estimator = hmm_estimator(options);
  EXPECT_TRUE(mentions(estimation_error([&] {
                         estimator->statistics({{Feature{0, 1.0}}, {Feature{1, 2.0}}}, 2);
                       }),
                       {"observation 2", "not one symbol", "emissions gaussian"}));
  EXPECT_THROW(estimator->pool(estimator->statistics(one_hot({0}), 1), estimator->statistics(one_hot({0}), 1), 1.0),
               EstimationError);
  options.states = 0;
  EXPECT_TRUE(mentions(estimation_error([&] { hmm_estimator(options); }), {"states must be in [1, 5791]"}));
  options.states = kMaxHmmFitStates + 1;  // M + M^2 + M values beyond a row's (kMaxRowDenseValues)
  EXPECT_TRUE(mentions(estimation_error([&] { hmm_estimator(options); }), {"states must be in [1, 5791]", "got 5792"}));
  options.states = 2;
  options.smoothing = -1;
  EXPECT_TRUE(mentions(estimation_error([&] { hmm_estimator(options); }), {"smoothing must be", ">= 0"}));
  options.smoothing = 0.1;
  options.param_ratio = 0;
  EXPECT_TRUE(mentions(estimation_error([&] { fit_discrete_hmm({0}, 1, options); }), {"param_ratio must be", "> 0"}));
}

}  // namespace
}  // namespace ppk
