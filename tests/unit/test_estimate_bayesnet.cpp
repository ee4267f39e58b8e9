// Fitting fully observed discrete Bayesian networks (estimate_bayesnet.hpp): CPTs from counts worked
// out by hand for ml, map and posterior (closed form, no EM), shrinkage toward a pool, and rejected
// structures and data.
#include <gtest/gtest.h>

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
