// Bernoulli kernels (JMLR 2004 section 3.2) against brute-force summation over {0,1}^D.
#include <gtest/gtest.h>

#include <random>

#include "all_listed.hpp"
#include "oracles.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/core/kernel.hpp"
#include "kernel_params.hpp"

namespace ppk {
namespace {

PreparedModel prepared(SparseProbabilities g, double rho) {
  return PreparedModel(std::make_unique<BernoulliModel>(std::move(g)), with_rho(rho));
}

TEST(BernoulliKernel, MatchesBruteForceSummation) {
  const std::vector<double> g = {0.1, 0.5, 0.9, 0.3, 0.0, 1.0, 0.25, 0.6};
  const std::vector<double> h = {0.7, 0.2, 0.95, 0.3, 0.4, 0.8, 0.05, 0.6};
  for (double rho : kRhos) {
    const double expected = oracle::bernoulli_ppk(g, h, rho);
    const double got =
        kernel(prepared(SparseProbabilities::from_dense(g), rho), prepared(SparseProbabilities::from_dense(h), rho));
    EXPECT_LT(oracle::relative_error(got, expected), 1e-12) << "rho " << rho;
  }
}

TEST(BernoulliKernel, SmoothedSparseRowsMatchBruteForceAndTheirDenseEquivalent) {
  // Smoothed models: most coordinates at a base probability, a few listed.
  std::vector<double> g(10, 0.02), h(10, 0.05);
  g[1] = 0.7;
  g[4] = 0.4;
  g[9] = 0.99;
  h[4] = 0.6;
  h[5] = 0.3;
  const SparseProbabilities sparse_g = SparseProbabilities::from_dense(g), sparse_h = SparseProbabilities::from_dense(h);
  ASSERT_EQ(sparse_g.base, 0.02);
  ASSERT_EQ(sparse_g.listed(), 3u);
  ASSERT_EQ(sparse_h.base, 0.05);
  for (double rho : kRhos) {
    const double expected = oracle::bernoulli_ppk(g, h, rho);
    const double sparse = kernel(prepared(sparse_g, rho), prepared(sparse_h, rho));
    const double dense = kernel(prepared(all_listed(g), rho), prepared(all_listed(h), rho));
    EXPECT_LT(oracle::relative_error(sparse, expected), 1e-12) << "rho " << rho;
    EXPECT_LT(oracle::relative_error(sparse, dense), 1e-12) << "rho " << rho;
  }
}

TEST(BernoulliKernel, LargeSparseModelEqualsItsDenseEquivalent) {
  const long dim = 20000;
  std::vector<double> g(dim, 0.001), h(dim, 0.003);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(0.05, 0.95);
  std::uniform_int_distribution<long> coordinate(0, dim - 1);
  for (int i = 0; i < 60; ++i) {
    g[coordinate(rng)] = uniform(rng);
    h[coordinate(rng)] = uniform(rng);
  }
  // k itself leaves the range of a double here (at rho = 1/4 each factor is about 1.04): compare log k.
  for (double rho : kRhos) {
    const double sparse =
        log_kernel(prepared(SparseProbabilities::from_dense(g), rho), prepared(SparseProbabilities::from_dense(h), rho));
    const double dense = log_kernel(prepared(all_listed(g), rho), prepared(all_listed(h), rho));
    EXPECT_LT(oracle::relative_error(sparse, dense), 1e-10) << "rho " << rho;
  }
}

TEST(BernoulliKernel, DisjointSupportsGiveZeroAndStayNormalizable) {
  // g = (1, 0) and h = (0, 1) put all their mass on different points: k = 0, log k = -inf.
  const PreparedModel a = prepared(SparseProbabilities::from_dense({1.0, 0.0}), 0.5);
  const PreparedModel b = prepared(SparseProbabilities::from_dense({0.0, 1.0}), 0.5);
  EXPECT_EQ(kernel(a, b), 0.0);
  EXPECT_EQ(normalized_kernel(a, b), 0.0);
  EXPECT_NEAR(kernel(a, a), 1.0, 1e-15);
}

TEST(BernoulliKernel, BhattacharyyaSelfKernelIsOne) {
  std::vector<double> g(1000, 0.01);
  g[3] = 0.5;
  g[999] = 0.87;
  for (const auto& p : {SparseProbabilities::from_dense(g), all_listed(g)}) {
    const PreparedModel model = prepared(p, 0.5);
    EXPECT_NEAR(kernel(model, model), 1.0, 1e-12);
    EXPECT_NEAR(normalized_kernel(model, model), 1.0, 1e-15);
  }
}

TEST(BernoulliModelTest, ListedZeroWithANonZeroBaseIsRebased) {
  // A listed 0 cannot be written to a row (it would read as the base): the model re-bases at 0.
  SparseProbabilities g;
  g.dim = 4;
  g.base = 0.3;
  g.index = {1, 2};
  g.value = {0.0, 0.3};  // 0.3 equals the base and is dropped
  const BernoulliModel model(g);
  EXPECT_EQ(model.probabilities().base, 0.0);
  EXPECT_EQ(model.probabilities().dense(), (std::vector<double>{0.3, 0.0, 0.3, 0.3}));
  EXPECT_EQ(model.sample_space(), (SampleSpace{"binary vectors", 4}));
}

}  // namespace
}  // namespace ppk
