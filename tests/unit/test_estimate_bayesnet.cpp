// Fitting fully observed discrete Bayesian networks (estimate_bayesnet.hpp): CPTs from counts worked
// out by hand for ml, map and posterior (closed form, no EM), shrinkage toward a pool, and rejected
// structures and data.
#include <gtest/gtest.h>

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

// x1 (3 states, node 0) with parent x0 (2 states, node 1): the nodes listed child first.
const nlohmann::json kStructure =
    nlohmann::json::parse(R"({"nodes":[{"states":3,"parents":[1],"variable":1},{"states":2,"variable":0}]})");

// Joint observations (x0, x1) in 1-based states: (1, 3), (2, 1), (1, 3), (1, 2). So x0 is in state 0
// three times and in state 1 once; given x0 = 0, x1 is in states (0, 1, 2) (0, 1, 2) times; given
// x0 = 1, (1, 0, 0) times.
const std::vector<SparseVector> kObservations{sparse({1, 3}), sparse({2, 1}), sparse({1, 3}), sparse({1, 2})};

const BayesNetModel& network(const std::unique_ptr<Model>& model) { return static_cast<const BayesNetModel&>(*model); }

void expect_cpts(const std::unique_ptr<Model>& model, const std::vector<double>& x1_given_x0,
                 const std::vector<double>& x0) {
  const BayesNetModel& fitted = network(model);
  ASSERT_EQ(fitted.size(), 2u);
  EXPECT_EQ(fitted.node(0).parents, std::vector<long>{1});
  ASSERT_EQ(fitted.node(0).cpt.size(), x1_given_x0.size());
  for (std::size_t e = 0; e < x1_given_x0.size(); ++e) EXPECT_NEAR(fitted.node(0).cpt[e], x1_given_x0[e], 1e-15) << e;
  ASSERT_EQ(fitted.node(1).cpt.size(), x0.size());
  for (std::size_t e = 0; e < x0.size(); ++e) EXPECT_NEAR(fitted.node(1).cpt[e], x0[e], 1e-15) << e;
}

TEST(BayesNetEstimate, CptsAreTheSmoothedConditionalFrequencies) {
  // posterior, alpha = 1: (n(c, k) + 1) / (n(c) + K).
  expect_cpts(estimate(*bayesnet_estimator(kStructure, {Method::posterior, 1.0}), kObservations, 2),
              {1.0 / 6, 2.0 / 6, 3.0 / 6, 2.0 / 4, 1.0 / 4, 1.0 / 4}, {4.0 / 6, 2.0 / 6});
  // ml: n(c, k) / n(c).
  expect_cpts(estimate(*bayesnet_estimator(kStructure, {Method::ml, 1.0}), kObservations, 2),
              {0.0, 1.0 / 3, 2.0 / 3, 1.0, 0.0, 0.0}, {3.0 / 4, 1.0 / 4});
  // map, alpha = 3: (n(c, k) + 2) / (n(c) + 2 K).
  expect_cpts(estimate(*bayesnet_estimator(kStructure, {Method::map, 3.0}), kObservations, 2),
              {2.0 / 9, 3.0 / 9, 4.0 / 9, 3.0 / 7, 2.0 / 7, 2.0 / 7}, {5.0 / 8, 3.0 / 8});
}

TEST(BayesNetEstimate, ShrinkageAddsThePooledCounts) {
  // One observation (2, 2) shrunk with weight 1/2 toward the pool of kObservations: counts n + n_pool / 2.
  const auto estimator = bayesnet_estimator(kStructure, {Method::ml, 0.0});
  const Statistics pool = estimator->statistics(kObservations, 2);
  expect_cpts(estimate(*estimator, {sparse({2, 2})}, 2, &pool, 0.5),
              // x1 | x0 = 0: (0, 0.5, 1) / 1.5; x1 | x0 = 1: (0.5, 1, 0) / 1.5; x0: (1.5, 1.5) / 3.
              {0.0, 1.0 / 3, 2.0 / 3, 1.0 / 3, 2.0 / 3, 0.0}, {0.5, 0.5});
}

// A chain x_0 -> x_1 -> .. -> x_59 over 4 states (the network `ppk fit bayesnet` fits to aligned
// sequences): its pooled counts are tables of 4 (node 0) and 16 entries, not of the 60 observed
// variables, and they survive the pool file's JSON. The example shrunk toward them has, at every
// node, the CPT (n(c, k) + lambda n_pool(c, k) + 1) / (n(c) + lambda n_pool(c) + 4), counted here.
TEST(BayesNetEstimate, ChainCountsSurviveThePoolFileAtSixtyNodes) {
  constexpr long kLength = 60, kStates = 4;
  nlohmann::json nodes = nlohmann::json::array();
  for (unsigned t = 0; t < kLength; ++t) {  // (whole numbers in the JSON: unsigned)
    nlohmann::json node = {{"states", static_cast<unsigned>(kStates)}, {"variable", t}};
    if (t > 0) node["parents"] = nlohmann::json::array({t - 1});
    nodes.push_back(node);
  }
  const auto estimator = bayesnet_estimator({{"nodes", nodes}}, {Method::posterior, 1.0});
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> base(1, kStates);
  const auto sequence = [&] {
    std::vector<double> x(kLength);
    for (double& v : x) v = base(rng);
    return x;
  };
  std::vector<std::vector<double>> training(30);
  std::vector<SparseVector> training_vectors;
  for (auto& x : training) training_vectors.push_back(sparse(x = sequence()));
  nlohmann::json json;
  statistics_to_json(estimator->statistics(training_vectors, kLength), json);
  const Statistics pool = statistics_from_json(nlohmann::json::parse(json.dump()));
  ASSERT_EQ(pool.sums.at("node 0").size(), kStates);
  ASSERT_EQ(pool.sums.at("node 59").size(), kStates * kStates);

  const std::vector<double> example = sequence();
  const double lambda = 0.5;
  const std::unique_ptr<Model> model = estimate(*estimator, {sparse(example)}, kLength, &pool, lambda);
  const BayesNetModel& fitted = network(model);
  ASSERT_EQ(fitted.size(), static_cast<std::size_t>(kLength));
  for (long t = 0; t < kLength; ++t) {
    // n(c, k) at node t (c: x_{t-1}'s state, or 0 at t = 0), the example's plus lambda times the pool's.
    std::vector<double> counts(static_cast<std::size_t>(t == 0 ? kStates : kStates * kStates), 0.0);
    const auto add = [&](const std::vector<double>& x, double weight) {
      const long c = t == 0 ? 0 : static_cast<long>(x[static_cast<std::size_t>(t - 1)]) - 1;
      counts[static_cast<std::size_t>(c * kStates + static_cast<long>(x[static_cast<std::size_t>(t)]) - 1)] += weight;
    };
    add(example, 1.0);
    for (const auto& x : training) add(x, lambda);
    const std::vector<double>& cpt = fitted.node(static_cast<std::size_t>(t)).cpt;
    ASSERT_EQ(cpt.size(), counts.size());
    for (std::size_t c = 0; c < counts.size() / kStates; ++c) {
      double row = 0;
      for (long k = 0; k < kStates; ++k) row += counts[c * kStates + static_cast<std::size_t>(k)];
      for (long k = 0; k < kStates; ++k) {
        const std::size_t e = c * kStates + static_cast<std::size_t>(k);
        EXPECT_NEAR(cpt[e], (counts[e] + 1.0) / (row + kStates), 1e-14) << "node " << t << " entry " << e;
      }
    }
  }

  // A pool of a chain over 3 states has other table sizes: refused, naming the statistic and both shapes.
  for (auto& node : nodes) node["states"] = 3u;
  const auto three = bayesnet_estimator({{"nodes", nodes}}, {Method::posterior, 1.0});
  std::vector<double> small(kLength, 1.0);
  const Statistics other = three->statistics({sparse(small)}, kLength);
  EXPECT_TRUE(mentions(estimation_error([&] { estimate(*estimator, {sparse(example)}, kLength, &other, lambda); }),
                       {"the pooled statistic \"node 0\" is 3 x 1, this bayesnet fit's is 4 x 1"}));
}

TEST(BayesNetEstimate, RejectsWhatItCannotFit) {
  const auto estimator = bayesnet_estimator(kStructure, {Method::posterior, 1.0});
  EXPECT_TRUE(mentions(estimation_error([&] {
                         estimate(*estimator, {sparse({1, 4})}, 2);
                       }),
                       {"value 4 at index 2", "observed variable 1 (node 0) takes the values 1..3"}));
  EXPECT_TRUE(mentions(estimation_error([&] { estimate(*estimator, {sparse({1, 0})}, 2); }), {"value 0 at index 2"}));
  EXPECT_TRUE(mentions(estimation_error([&] {
                         estimate(*estimator, {sparse({1, 2, 1})}, 3);
                       }),
                       {"2 observed variables", "the dimension is 3"}));
  // ml leaves a CPT row with no observations undefined.
  EXPECT_TRUE(mentions(estimation_error([&] {
                         estimate(*bayesnet_estimator(kStructure, {Method::ml, 1.0}), {sparse({1, 1})}, 2);
                       }),
                       {"node 0: parent configuration 1 is never observed", "alpha > 0"}));
  const auto structure_error = [](const char* text) {
    try {
      bayesnet_estimator(nlohmann::json::parse(text), {});
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_TRUE(mentions(
      structure_error(R"({"nodes":[{"states":2,"parents":[1],"variable":0},{"states":2,"parents":[0],"variable":1}]})"),
      {"bayesnet nodes[0] field \"parents\"", "node 0 -> node 1 -> node 0"}));
  EXPECT_TRUE(mentions(structure_error(R"({"nodes":[{"states":2,"variable":0,"cpt":[[0.5,0.5]]}]})"),
                       {"bayesnet nodes[0] field \"cpt\"", "no CPTs"}));
  EXPECT_TRUE(
      mentions(structure_error(R"({"nodes":[{"variable":0,"emissions":[{"family":"gaussian","mean":[0],"var":1}]}]})"),
               {"bayesnet nodes[0] is an emission leaf", "discrete nodes only"}));
}

}  // namespace
}  // namespace ppk
