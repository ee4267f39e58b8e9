// EM for discrete Bayesian networks with hidden nodes (estimate_bayesnet.hpp): the objective never
// decreases; the final objective equals log p(x) summed here by brute force over the hidden
// configurations, with the CPT entries indexed by hand, plus the prior terms; a naive-Bayes network
// is recovered from 20,000 samples; determinism; the estimator agrees with the lower-level fit;
// hidden spaces beyond the limit and pooling are rejected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "estimate_helpers.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/bayesnet.hpp"
#include "ppk/estimate/estimate_bayesnet.hpp"

namespace ppk {
namespace {

using checks::mentions;

// Naive Bayes: a hidden class h (node 0, 2 states) with three observed ternary children x0, x1, x2.
const nlohmann::json kNaiveBayes = nlohmann::json::parse(R"({"nodes":[{"states":2},
  {"states":3,"parents":[0],"variable":0},{"states":3,"parents":[0],"variable":1},{"states":3,"parents":[0],"variable":2}]})");
const std::vector<double> kClass{0.35, 0.65};
// kChildren[j][h]: P(x_j | h).
const std::vector<std::vector<std::vector<double>>> kChildren{
    {{0.7, 0.2, 0.1}, {0.1, 0.3, 0.6}}, {{0.2, 0.6, 0.2}, {0.5, 0.1, 0.4}}, {{0.1, 0.1, 0.8}, {0.6, 0.3, 0.1}}};

std::vector<std::vector<long>> sample_naive_bayes(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<long>> out;
  for (int v = 0; v < n; ++v) {
    const int h = draw(kClass, rng);
    std::vector<long> x;
    for (const auto& child : kChildren) x.push_back(draw(child[static_cast<std::size_t>(h)], rng));
    out.push_back(x);
  }
  return out;
}

// Listed out of order, two hidden nodes, a hidden node with an observed parent and a node with two
// hidden parents:
//   node 0: x2 (3 states) | h1, h2     node 1: x0 (2 states)     node 2: h1 (3 states) | x0
//   node 3: h2 (2 states) | h1         node 4: x1 (2 states) | h1
const nlohmann::json kTangled = nlohmann::json::parse(R"({"nodes":[{"states":3,"parents":[2,3],"variable":2},
  {"states":2,"variable":0},{"states":3,"parents":[1]},{"states":2,"parents":[2]},{"states":2,"parents":[2],"variable":1}]})");

// Uniformly drawn observations (x0, x1, x2) of kTangled.
std::vector<std::vector<long>> tangled_observations(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<long>> out;
  for (int v = 0; v < n; ++v) {
    const long x0 = static_cast<long>(rng() % 2), x1 = static_cast<long>(rng() % 2), x2 = static_cast<long>(rng() % 3);
    out.push_back({x0, x1, x2 == 2 && x0 == 1 ? 1 : x2});  // some (x0, x2) pairs more often than others
  }
  return out;
}

// L of kTangled by brute force: sum over observations of log sum_{h1, h2} P(x0) P(h1 | x0) P(h2 | h1)
// P(x1 | h1) P(x2 | h1, h2), each CPT entry at row (parent states, last parent fastest) times K plus
// the state, plus shift times the sum of log every CPT entry.
double tangled_objective(const BayesNetModel& m, const std::vector<std::vector<long>>& observations, double shift) {
  const auto& x2 = m.node(0).cpt;
  const auto& x0 = m.node(1).cpt;
  const auto& h1 = m.node(2).cpt;
  const auto& h2 = m.node(3).cpt;
  const auto& x1 = m.node(4).cpt;
  double total = 0;
  for (const auto& x : observations) {
    double p = 0;
    for (long a = 0; a < 3; ++a)
      for (long b = 0; b < 2; ++b)
        p += x0[x[0]] * h1[x[0] * 3 + a] * h2[a * 2 + b] * x1[a * 2 + x[1]] * x2[(a * 2 + b) * 3 + x[2]];
    total += std::log(p);
  }
  if (shift > 0)
    for (std::size_t i = 0; i < m.size(); ++i)
      for (double p : m.node(i).cpt) total += shift * std::log(p);
  return total;
}

BayesNetFitOptions em_options(Method method, double alpha, std::uint64_t seed, long iterations, double tolerance) {
  BayesNetFitOptions options;
  options.method = method;
  options.alpha = alpha;
  options.seed = seed;
  options.iterations = iterations;
  options.tolerance = tolerance;
  return options;
}

TEST(BayesNetEm, NeverDecreasesTheObjective) {
  const std::vector<std::vector<long>> naive = sample_naive_bayes(300, 5);
  const std::vector<std::vector<long>> tangled = tangled_observations(200, 6);
  for (Method method : {Method::ml, Method::posterior, Method::map})
    for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
      const double alpha = method == Method::map ? 2.0 : 0.5;
      const BayesNetFitOptions options = em_options(method, alpha, seed, 60, 0.0);
      const std::string what = std::string(method_name(method)) + ", seed " + std::to_string(seed);
      expect_never_decreases(fit_bayesnet_em(kNaiveBayes, naive, options).objectives, 60, "naive Bayes, " + what);
      expect_never_decreases(fit_bayesnet_em(kTangled, tangled, options).objectives, 60, "tangled, " + what);
    }
}

TEST(BayesNetEm, ObjectiveIsTheBruteForceLogPosterior) {
  const std::vector<std::vector<long>> observations = tangled_observations(150, 7);
  // shift s: ml 0, map alpha - 1, posterior alpha (the MAP under Dirichlet(1 + alpha)).
  const struct {
    Method method;
    double alpha, shift;
  } cases[] = {{Method::ml, 1.0, 0.0}, {Method::map, 2.5, 1.5}, {Method::posterior, 0.5, 0.5}};
  for (const auto& c : cases) {
    const BayesNetFit fit = fit_bayesnet_em(kTangled, observations, em_options(c.method, c.alpha, 3, 40, 1e-8));
    ASSERT_GE(fit.objectives.size(), 2u);
    const double expected = tangled_objective(*fit.model, observations, c.shift);
    EXPECT_NEAR(fit.objectives.back(), expected, 1e-10 * std::fabs(expected)) << method_name(c.method);
  }
}

TEST(BayesNetEm, RecoversANaiveBayesNetwork) {
  const std::vector<std::vector<long>> observations = sample_naive_bayes(20000, 20261123);
  const BayesNetFit fit = fit_bayesnet_em(kNaiveBayes, observations, em_options(Method::ml, 1.0, 1, 1000, 1e-12));
  const BayesNetModel& m = *fit.model;
  // The fitted class q matches the true class h = q or h = 1 - q: keep the better permutation.
  double best = 1e300;
  for (int swap = 0; swap < 2; ++swap) {
    double worst = 0;
    for (std::size_t h = 0; h < 2; ++h) {
      const std::size_t q = swap ? 1 - h : h;
      worst = std::max(worst, std::fabs(m.node(0).cpt[q] - kClass[h]));
      for (std::size_t j = 0; j < 3; ++j)
        for (std::size_t k = 0; k < 3; ++k)
          worst = std::max(worst, std::fabs(m.node(j + 1).cpt[q * 3 + k] - kChildren[j][h][k]));
    }
    best = std::min(best, worst);
  }
  EXPECT_LT(best, 0.03);
}

TEST(BayesNetEm, DeterministicForASeed) {
  const std::vector<std::vector<long>> observations = tangled_observations(100, 8);
  const BayesNetFitOptions options = em_options(Method::posterior, 1.0, 11, 50, 1e-8);
  const BayesNetFit a = fit_bayesnet_em(kTangled, observations, options);
  const BayesNetFit b = fit_bayesnet_em(kTangled, observations, options);
  EXPECT_EQ(a.objectives, b.objectives);
  for (std::size_t i = 0; i < a.model->size(); ++i) EXPECT_EQ(a.model->node(i).cpt, b.model->node(i).cpt) << i;
  BayesNetFitOptions other = options;
  other.seed = 12;
  EXPECT_NE(fit_bayesnet_em(kTangled, observations, other).objectives.front(), a.objectives.front());
}

TEST(BayesNetEm, TheEstimatorFitsTheOneBasedValuesByEm) {
  // The estimator on LIBSVM vectors (values from 1) gives the fit of the 0-based observations.
  const std::vector<std::vector<long>> observations = tangled_observations(60, 9);
  std::vector<SparseVector> vectors;
  for (const auto& x : observations) vectors.push_back(sparse({x[0] + 1.0, x[1] + 1.0, x[2] + 1.0}));
  const BayesNetFitOptions options = em_options(Method::posterior, 1.0, 4, 200, 1e-8);
  const std::unique_ptr<Model> model = estimate(*bayesnet_estimator(kTangled, options), vectors, 3);
  const BayesNetFit fit = fit_bayesnet_em(kTangled, observations, options);
  const auto& fitted = static_cast<const BayesNetModel&>(*model);
  for (std::size_t i = 0; i < fitted.size(); ++i) EXPECT_EQ(fitted.node(i).cpt, fit.model->node(i).cpt) << i;
}

TEST(BayesNetEm, RejectsWhatItCannotFit) {
  // 17 hidden binary roots: 2^17 configurations; 16 are within the limit.
  std::string nodes;
  for (int i = 0; i < 17; ++i) nodes += R"({"states":2},)";
  nlohmann::json large = nlohmann::json::parse(R"({"nodes":[)" + nodes + R"({"states":2,"variable":0,"parents":[0]}]})");
  try {
    bayesnet_estimator(large, {});
    ADD_FAILURE() << "2^17 hidden configurations accepted";
  } catch (const ModelError& e) {
    EXPECT_TRUE(mentions(e.what(), {"17 hidden nodes have 131072 joint configurations", "limit of 65536"})) << e.what();
  }
  large["nodes"].erase(0);  // the observed node's parent is now the next hidden node
  EXPECT_NO_THROW(bayesnet_estimator(large, {}));
  // No pooling (--shrink) with hidden nodes; fully observed structures are not fitted by EM.
  const auto estimator = bayesnet_estimator(kNaiveBayes, {});
  const Statistics own = estimator->statistics({sparse({1, 2, 3}), sparse({3, 2, 1})}, 3);
  EXPECT_TRUE(mentions(estimation_error([&] { estimator->pool(own, own, 0.5); }),
                       {"lambda and pooled statistics are not supported"}));
  EXPECT_TRUE(mentions(estimation_error([&] {
                         fit_bayesnet_em(nlohmann::json::parse(R"({"nodes":[{"states":2,"variable":0}]})"), {{0}}, {});
                       }),
                       {"no hidden nodes"}));
  EXPECT_TRUE(mentions(estimation_error([&] {
                         fit_bayesnet_em(kNaiveBayes, {{0, 1, 3}}, {});
                       }),
                       {"observation 1: observed variable 2 is in state 3, not in 0..2"}));
  EXPECT_TRUE(mentions(estimation_error([&] {
                         fit_bayesnet_em(kNaiveBayes, {{0, 1, 2}}, em_options(Method::ml, 1, 1, 0, 0));
                       }),
                       {"iterations must be at least 1"}));
}

}  // namespace
}  // namespace ppk
