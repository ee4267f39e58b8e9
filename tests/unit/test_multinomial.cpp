// Multinomial kernels (JMLR 2004 section 3.3) against direct sums over outcomes and count vectors.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "all_listed.hpp"
#include "oracles.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/core/row.hpp"
#include "kernel_params.hpp"

namespace ppk {
namespace {

Trials fixed_trials(long s) {
  Trials trials;
  trials.kind = Trials::fixed;
  trials.count = s;
  return trials;
}

Trials all_trials(double decay) {
  Trials trials;
  trials.kind = Trials::all;
  trials.decay = decay;
  return trials;
}

PreparedModel prepared(SparseProbabilities a, Trials trials, double rho) {
  return PreparedModel(std::make_unique<MultinomialModel>(std::move(a), trials), with_rho(rho));
}

PreparedModel prepared(const std::vector<double>& a, Trials trials, double rho) {
  return prepared(SparseProbabilities::from_dense(a), trials, rho);
}

// sum over the D outcomes x of p(x)^rho p'(x)^rho, p(x = d) = a_d.
double one_event_oracle(const std::vector<double>& a, const std::vector<double>& b, double rho) {
  double total = 0.0;
  for (std::size_t d = 0; d < a.size(); ++d) total += std::pow(a[d], rho) * std::pow(b[d], rho);
  return total;
}

const std::vector<double> kA = {0.1, 0.2, 0.3, 0.4};
const std::vector<double> kB = {0.25, 0.05, 0.6, 0.1};
const std::vector<double> kC = {0.0, 0.5, 0.5, 0.0};

TEST(MultinomialKernel, OneEventMatchesTheSumOverOutcomes) {
  for (double rho : kRhos)
    for (const auto& [a, b] : {std::pair{kA, kB}, std::pair{kA, kC}, std::pair{kC, kC}}) {
      const double got = kernel(prepared(a, Trials{}, rho), prepared(b, Trials{}, rho));
      EXPECT_LT(oracle::relative_error(got, one_event_oracle(a, b, rho)), 1e-12) << "rho " << rho;
    }
}

TEST(MultinomialKernel, FixedTrialsMatchTheSumOverCountVectors) {
  for (long s : {1L, 3L, 6L})
    for (const auto& [a, b] : {std::pair{kA, kB}, std::pair{kA, kC}, std::pair{kB, kB}}) {
      const double expected = oracle::multinomial_counts_bhattacharyya(a, b, s);
      const PreparedModel pa = prepared(a, fixed_trials(s), 0.5), pb = prepared(b, fixed_trials(s), 0.5);
      EXPECT_LT(oracle::relative_error(kernel(pa, pb), expected), 1e-12) << "s " << s;
      EXPECT_LT(oracle::relative_error(std::exp(log_kernel(pa, pb)), expected), 1e-12) << "s " << s;
    }
}

// sum over s >= 0 of (lambda_a lambda_b)^(s/2) sum over count vectors x with s trials of
// sqrt(p_s(x) p'_s(x)): each model weights the s-trial distribution by its own decay^s.
double all_trials_oracle(const std::vector<double>& a, double decay_a, const std::vector<double>& b, double decay_b) {
  double total = 0.0;
  for (long s = 0;; ++s) {
    const double weight = std::pow(decay_a * decay_b, 0.5 * static_cast<double>(s));
    if (weight < 1e-17) break;
    total += weight * oracle::multinomial_counts_bhattacharyya(a, b, s);
  }
  return total;
}

TEST(MultinomialKernel, AllTrialsWithDecayMatchTheSeries) {
  const std::vector<double> a = {0.2, 0.3, 0.5}, b = {0.6, 0.3, 0.1};
  for (const auto& [decay_a, decay_b] : {std::pair{0.5, 0.5}, std::pair{0.3, 0.7}, std::pair{0.6, 0.6}})
    for (const auto& [p, q] : {std::pair{a, b}, std::pair{a, a}}) {
      const double expected = all_trials_oracle(p, decay_a, q, decay_b);
      const double got = kernel(prepared(p, all_trials(decay_a), 0.5), prepared(q, all_trials(decay_b), 0.5));
      EXPECT_LT(oracle::relative_error(got, expected), 1e-10) << "decays " << decay_a << ", " << decay_b;
    }
}

TEST(MultinomialKernel, SmoothedSparseRowsMatchTheirDenseEquivalent) {
  // A smoothed model of a short document over a large vocabulary: base epsilon, a few words listed.
  const long dim = 5000;
  std::mt19937 rng(3);
  std::uniform_int_distribution<long> word(0, dim - 1);
  auto smoothed_document = [&](int words) {
    std::vector<double> counts(dim, 0.0);
    for (int i = 0; i < words; ++i) counts[word(rng)] += 1.0;
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0) + 0.01 * dim;
    for (double& c : counts) c = (c + 0.01) / total;
    return counts;
  };
  const std::vector<double> a = smoothed_document(40), b = smoothed_document(25);
  const SparseProbabilities sparse_a = SparseProbabilities::from_dense(a);
  ASSERT_LE(sparse_a.listed(), 40u);
  ASSERT_GT(sparse_a.base, 0.0);
  for (double rho : kRhos) {
    const double expected = one_event_oracle(a, b, rho);
    const double sparse = kernel(prepared(sparse_a, Trials{}, rho), prepared(b, Trials{}, rho));
    const double dense = kernel(prepared(all_listed(a), Trials{}, rho), prepared(all_listed(b), Trials{}, rho));
    EXPECT_LT(oracle::relative_error(sparse, expected), 1e-10) << "rho " << rho;
    EXPECT_LT(oracle::relative_error(dense, expected), 1e-10) << "rho " << rho;
  }
  const double counts_sparse = kernel(prepared(sparse_a, fixed_trials(20), 0.5), prepared(b, fixed_trials(20), 0.5));
  EXPECT_LT(oracle::relative_error(counts_sparse, std::pow(one_event_oracle(a, b, 0.5), 20)), 1e-10);
}

TEST(MultinomialKernel, LongDocumentsStayFiniteInLogSpace) {
  // B^s underflows for s = 10^6 trials; ppk_norm works from log k = s log B.
  const PreparedModel a = prepared(kA, fixed_trials(1000000), 0.5), b = prepared(kB, fixed_trials(1000000), 0.5);
  EXPECT_EQ(kernel(a, b), 0.0);
  const double log_b = std::log(one_event_oracle(kA, kB, 0.5));
  EXPECT_LT(oracle::relative_error(log_kernel(a, b), 1e6 * log_b), 1e-10);
  EXPECT_NEAR(normalized_kernel(a, a), 1.0, 1e-9);
}

TEST(MultinomialKernel, BhattacharyyaSelfKernelIsOne) {
  for (const Trials& trials : {Trials{}, fixed_trials(1), fixed_trials(7)}) {
    const PreparedModel model = prepared(kA, trials, 0.5);
    EXPECT_NEAR(kernel(model, model), 1.0, 1e-12);
    EXPECT_NEAR(normalized_kernel(model, model), 1.0, 1e-15);
  }
}

TEST(MultinomialModelTest, SumWithinToleranceIsRenormalised) {
  const MultinomialModel model(SparseProbabilities::from_dense({0.5 + 4e-7, 0.25, 0.25}), Trials{});
  EXPECT_NEAR(model.probabilities().sum(), 1.0, 1e-15);
  EXPECT_NEAR(model.probabilities().at(0), (0.5 + 4e-7) / (1.0 + 4e-7), 1e-16);
}

TEST(MultinomialModelTest, SampleSpacesSeparateTrialKinds) {
  EXPECT_EQ(MultinomialModel(SparseProbabilities::from_dense(kA), Trials{}).sample_space(),
            (SampleSpace{"categories", 4}));
  EXPECT_EQ(MultinomialModel(SparseProbabilities::from_dense(kA), fixed_trials(5)).sample_space(),
            (SampleSpace{"counts with 5 trials", 4}));
  EXPECT_EQ(MultinomialModel(SparseProbabilities::from_dense(kA), all_trials(0.5)).sample_space(),
            (SampleSpace{"counts", 4}));
}

// 0.2 + 0.7 + 0.1 is not exactly 1 in doubles: the model renormalises once, and a row round trip
// of the result must give back the same probabilities bit for bit (no second renormalisation).
TEST(MultinomialModel, RowRoundTripOfRenormalisedProbabilitiesIsExact) {
  const MultinomialModel model(SparseProbabilities::from_dense({0.2, 0.7, 0.1}), Trials{});
  const auto back = decode_row(encode_row(model));
  const auto& again = dynamic_cast<const MultinomialModel&>(*back);
  EXPECT_EQ(again.probabilities().dense(), model.probabilities().dense());
  EXPECT_EQ(encode_row(again).size(), encode_row(model).size());
}

}  // namespace
}  // namespace ppk
