// Fisher scores of a pooled Bayesian network (fisher.hpp): every CPT row by its logits, the score
// n(i, c, k) - n(i, c) P(k | c) from the expected counts. Checked against central finite differences
// of log p(observations), written out here by enumerating the hidden class, for a network whose
// node 2 has two parents (so its CPT rows are indexed by a parent configuration), with the hidden
// class and fully observed; the fully observed network's score from its counts equals the score
// from its observations; the Fisher kernel equals the one computed from the differences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "estimate_helpers.hpp"
#include "fisher_checks.hpp"
#include "positive_family_checks.hpp"
#include "ppk/estimate/estimate_bayesnet.hpp"
#include "ppk/estimate/fisher.hpp"
#include "ppk/families/bayesnet.hpp"

namespace ppk {
namespace {

using checks::mentions;
using Cpts = std::vector<std::vector<double>>;  // node i's CPT, row c = parent configuration

// h (node 0, 2 states) -> x0 (node 1, 3 states); x1 (node 2, 2 states) with parents h and x0: row
// c = 3 h + x0. `hidden`: h is hidden and x0, x1 are variables 0, 1; otherwise h is variable 2 too.
std::unique_ptr<BayesNetModel> network(const Cpts& cpts, bool hidden) {
  std::vector<BayesNode> nodes(3);
  nodes[0].states = 2;
  nodes[0].variable = hidden ? -1 : 2;
  nodes[1].states = 3;
  nodes[1].parents = {0};
  nodes[1].variable = 0;
  nodes[2].states = 2;
  nodes[2].parents = {0, 1};
  nodes[2].variable = 1;
  for (std::size_t i = 0; i < 3; ++i) nodes[i].cpt = cpts[i];
  return std::make_unique<BayesNetModel>(std::move(nodes));
}

Cpts random_cpts(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.2, 1.0);
  const std::vector<std::pair<int, int>> shapes{{1, 2}, {2, 3}, {6, 2}};  // rows, states
  Cpts cpts;
  for (const auto& [rows, states] : shapes) {
    std::vector<double> cpt;
    for (int r = 0; r < rows; ++r) {
      std::vector<double> row(static_cast<std::size_t>(states));
      double total = 0;
      for (double& p : row) total += p = uniform(rng);
      for (double p : row) cpt.push_back(p / total);
    }
    cpts.push_back(cpt);
  }
  return cpts;
}

// Observations {x0, x1} (hidden class) or {x0, x1, h} (fully observed), uniform states.
std::vector<std::vector<long>> random_observations(int n, bool hidden, std::mt19937_64& rng) {
  std::uniform_int_distribution<long> three(0, 2), two(0, 1);
  std::vector<std::vector<long>> xs;
  for (int v = 0; v < n; ++v) {
    std::vector<long> x{three(rng), two(rng)};
    if (!hidden) x.push_back(two(rng));
    xs.push_back(x);
  }
  return xs;
}

// log p(observations) by enumeration over h (or at the observed h).
double log_probability(const Cpts& cpts, const std::vector<std::vector<long>>& xs) {
  double total = 0;
  for (const std::vector<long>& x : xs) {
    double p = 0;
    for (long h = 0; h < 2; ++h) {
      if (x.size() == 3 && x[2] != h) continue;
      p += cpts[0][h] * cpts[1][3 * h + x[0]] * cpts[2][2 * (3 * h + x[0]) + x[1]];
    }
    total += std::log(p);
  }
  return total;
}

// The CPTs with the logit of node i's entry e raised by `step` (its row renormalised).
Cpts shifted(Cpts cpts, std::size_t i, std::size_t e, long states, double step) {
  const std::size_t row = e / static_cast<std::size_t>(states) * static_cast<std::size_t>(states);
  cpts[i][e] *= std::exp(step);
  double total = 0;
  for (long k = 0; k < states; ++k) total += cpts[i][row + static_cast<std::size_t>(k)];
  for (long k = 0; k < states; ++k) cpts[i][row + static_cast<std::size_t>(k)] /= total;
  return cpts;
}

// u(x) = U(x) / n from Richardson-extrapolated central differences of log p in each logit, node by
// node and entry by entry (the order of fisher_bayesnet.cpp).
const std::vector<long> kStates{2, 3, 2};
Eigen::VectorXd difference_score(const Cpts& cpts, const std::vector<std::vector<long>>& xs) {
  std::vector<double> u;
  for (std::size_t i = 0; i < cpts.size(); ++i)
    for (std::size_t e = 0; e < cpts[i].size(); ++e) {
      const auto central = [&](double h) {
        return (log_probability(shifted(cpts, i, e, kStates[i], h), xs) -
                log_probability(shifted(cpts, i, e, kStates[i], -h), xs)) /
               (2 * h);
      };
      u.push_back((4 * central(5e-4) - central(1e-3)) / 3 / static_cast<double>(xs.size()));
    }
  return Eigen::Map<const Eigen::VectorXd>(u.data(), static_cast<Eigen::Index>(u.size()));
}

// u(x) against the differences, to 1e-6 relative (and 1e-6 / n absolute).
void expect_matches_differences(const Cpts& cpts, bool hidden, const std::vector<std::vector<long>>& xs) {
  const std::unique_ptr<BayesNetModel> model = network(cpts, hidden);
  const FisherScorer scorer(bayesnet_fisher_scores(*model, AdaptedParameters{}));
  const Eigen::VectorXd score = scorer.score(xs), difference = difference_score(cpts, xs);
  ASSERT_EQ(score.size(), 2 + 6 + 12);
  Eigen::Index j = 0;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t e = 0; e < cpts[i].size(); ++e, ++j) {
      EXPECT_EQ(model->node(i).states, kStates[i]);
      EXPECT_EQ(scorer.feature_names()[static_cast<std::size_t>(j)],
                "cpts[" + std::to_string(i) + "][" + std::to_string(e) + "]");
      EXPECT_NEAR(score(j), difference(j),
                  1e-6 * std::max(1.0 / static_cast<double>(xs.size()), std::fabs(difference(j))))
          << (hidden ? "hidden" : "observed") << " cpts[" << i << "][" << e << "]";
    }
}

TEST(FisherScoreBayesNet, MatchesDifferencesWithAHiddenClassAndFullyObserved) {
  std::mt19937_64 rng(41);
  for (bool hidden : {true, false})
    for (int n : {1, 7, 40}) expect_matches_differences(random_cpts(rng), hidden, random_observations(n, hidden, rng));
}

TEST(FisherScoreBayesNet, CountsOfAFullyObservedNetworkGiveTheSameScore) {
  std::mt19937_64 rng(42);
  const Cpts cpts = random_cpts(rng);
  const std::unique_ptr<BayesNetModel> model = network(cpts, false);
  const std::vector<std::vector<long>> xs = random_observations(25, false, rng);
  // The counts n(i, c, k) written out: x = {x0, x1, h}.
  std::vector<Eigen::VectorXd> counts{Eigen::VectorXd::Zero(2), Eigen::VectorXd::Zero(6), Eigen::VectorXd::Zero(12)};
  for (const std::vector<long>& x : xs) {
    counts[0](x[2]) += 1;
    counts[1](3 * x[2] + x[0]) += 1;
    counts[2](2 * (3 * x[2] + x[0]) + x[1]) += 1;
  }
  const FisherScorer scorer(bayesnet_fisher_scores(*model, AdaptedParameters{}));
  EXPECT_LE((scorer.score(counts, 25.0) - scorer.score(xs)).cwiseAbs().maxCoeff(), 1e-14);
}

// The Fisher kernel of 20 training and 5 test examples against the one computed from the
// differences of log p by enumeration (expect_fisher_kernel_of_oracle_scores).
TEST(FisherKernelBayesNet, IsTheKernelOfTheDifferencesScaledByTheTrainingInformation) {
  std::mt19937_64 rng(43);
  const Cpts cpts = random_cpts(rng);
  const FisherScorer scorer(bayesnet_fisher_scores(*network(cpts, true), AdaptedParameters{}));
  std::vector<Eigen::VectorXd> scores, differences;
  std::uniform_int_distribution<int> size(1, 30);
  for (int i = 0; i < 25; ++i) {
    const std::vector<std::vector<long>> xs = random_observations(size(rng), true, rng);
    scores.push_back(scorer.score(xs));
    differences.push_back(difference_score(cpts, xs));
  }
  expect_fisher_kernel_of_oracle_scores(scores, differences, 20, 1e-6, "network");
}

TEST(FisherScoreBayesNet, RefusesBadObservationsAndParameters) {
  std::mt19937_64 rng(44);
  const std::unique_ptr<BayesNetModel> model = network(random_cpts(rng), true);
  const FisherScorer scorer(bayesnet_fisher_scores(*model, AdaptedParameters{}));
  EXPECT_THROW(
      try {
        scorer.score(std::vector<std::vector<long>>{{0, 1}, {3, 0}});
      } catch (const EstimationError& e) {
        EXPECT_TRUE(mentions(e.what(), {"observation 2", "state 3", "0..2"})) << e.what();
        throw;
      },
      EstimationError);
  EXPECT_THROW(scorer.score(std::vector<std::vector<long>>{}), EstimationError);
  EXPECT_THROW(scorer.score(std::vector<long>{0, 1}), EstimationError);
  EXPECT_THROW(scorer.score(std::vector<Eigen::VectorXd>{Eigen::VectorXd::Zero(2)}, 1.0), EstimationError);
  const AdaptedParameters means_only = parse_adapted_parameters("means");
  EXPECT_THROW(
      try { FisherScorer(bayesnet_fisher_scores(*model, means_only)); } catch (const OptionError& e) {
        EXPECT_TRUE(mentions(e.what(), {"adapt", "means", "bayesnet"})) << e.what();
        throw;
      },
      OptionError);
}

}  // namespace
}  // namespace ppk
