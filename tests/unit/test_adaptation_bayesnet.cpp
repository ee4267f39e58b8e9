// The pooled Bayesian network and its MAP adaptation (estimate_bayesnet.hpp, adaptation.hpp), on a
// naive-Bayes network with a hidden class: the pooled fit is EM over every example's observations at
// once; relevance tau -> infinity gives the pooled CPTs, tau -> 0 plain maximum-likelihood EM from the
// pooled network (written out here); the final objective is log p(x) by enumeration over the hidden
// class plus tau P0 log P; a fully observed network adapts in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "estimate_helpers.hpp"
#include "positive_family_checks.hpp"
#include "ppk/core/row.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate_bayesnet.hpp"
#include "ppk/families/bayesnet.hpp"

namespace ppk {
namespace {

using checks::mentions;

// A hidden class h (node 0, 2 states) with a ternary child x0 and a binary child x1.
const nlohmann::json kStructure = nlohmann::json::parse(
    R"({"nodes":[{"states":2},{"states":3,"parents":[0],"variable":0},{"states":2,"parents":[0],"variable":1}]})");

std::vector<std::vector<long>> observations(int n, std::uint64_t seed, double class_one) {
  std::mt19937_64 rng(seed);
  const std::vector<std::vector<double>> x0{{0.7, 0.2, 0.1}, {0.1, 0.3, 0.6}}, x1{{0.8, 0.2}, {0.3, 0.7}};
  std::vector<std::vector<long>> out;
  for (int v = 0; v < n; ++v) {
    const int h = draw({1 - class_one, class_one}, rng);
    out.push_back({draw(x0[static_cast<std::size_t>(h)], rng), draw(x1[static_cast<std::size_t>(h)], rng)});
  }
  return out;
}

// The observations as an example's LIBSVM vectors (variable j at index j + 1, states from 1).
std::vector<SparseVector> vectors_of(const std::vector<std::vector<long>>& xs) {
  std::vector<SparseVector> vectors;
  for (const std::vector<long>& x : xs) vectors.push_back(SparseVector{Feature{0, x[0] + 1.0}, Feature{1, x[1] + 1.0}});
  return vectors;
}

BayesNetFitOptions em_options() {
  BayesNetFitOptions options;
  options.method = Method::ml;
  options.alpha = 0;
  options.iterations = 100;
  return options;
}

const BayesNetModel& network(const Model& model) { return static_cast<const BayesNetModel&>(model); }

std::unique_ptr<Model> pooled_network(const BayesNetFitOptions& options = em_options()) {
  const std::unique_ptr<Estimator> estimator = bayesnet_estimator(kStructure, options);
  std::vector<Statistics> examples;
  for (int e = 0; e < 6; ++e)
    examples.push_back(estimator->statistics(vectors_of(observations(20, 10 + e, 0.2 + 0.1 * e)), 2));
  return estimator->fit_pooled(examples, 1);
}

// One maximum-likelihood EM step of the network's CPTs {P(h), P(x0 | h), P(x1 | h)} (rows h = 0, 1)
// on the observations, by enumeration over the hidden class h.
std::vector<std::vector<double>> em_step(const std::vector<std::vector<double>>& cpts,
                                         const std::vector<std::vector<long>>& xs) {
  const std::vector<double>&ph = cpts[0], &p0 = cpts[1], &p1 = cpts[2];
  std::vector<double> nh(2, 0), n0(6, 0), n1(4, 0);
  for (const std::vector<long>& x : xs) {
    double joint[2], total = 0;
    for (int h = 0; h < 2; ++h) total += joint[h] = ph[h] * p0[h * 3 + x[0]] * p1[h * 2 + x[1]];
    for (int h = 0; h < 2; ++h) {
      nh[h] += joint[h] / total;
      n0[h * 3 + x[0]] += joint[h] / total;
      n1[h * 2 + x[1]] += joint[h] / total;
    }
  }
  std::vector<std::vector<double>> next{std::vector<double>(2), std::vector<double>(6), std::vector<double>(4)};
  for (int h = 0; h < 2; ++h) {
    next[0][h] = nh[h] / (nh[0] + nh[1]);
    for (int k = 0; k < 3; ++k) next[1][h * 3 + k] = n0[h * 3 + k] / nh[h];
    for (int k = 0; k < 2; ++k) next[2][h * 2 + k] = n1[h * 2 + k] / nh[h];
  }
  return next;
}

double max_cpt_difference(const BayesNetModel& a, const BayesNetModel& b) {
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t e = 0; e < a.node(i).cpt.size(); ++e)
      largest = std::max(largest, std::fabs(a.node(i).cpt[e] - b.node(i).cpt[e]));
  return largest;
}

TEST(BayesNetAdaptation, PooledFitIsEmOverEveryExamplesObservations) {
  std::vector<std::vector<long>> all;
  for (int e = 0; e < 6; ++e)
    for (const std::vector<long>& x : observations(20, 10 + e, 0.2 + 0.1 * e)) all.push_back(x);
  BayesNetFitOptions converged = em_options();
  converged.iterations = 20000;
  converged.tolerance = 0;
  const std::unique_ptr<Model> pooled = pooled_network(converged);
  EXPECT_EQ(format_entries(encode_row(*pooled)),
            format_entries(encode_row(*fit_bayesnet_em(kStructure, all, converged).model)));
  // And it is a maximum-likelihood EM fit of all the observations (run to convergence): a fixed
  // point of the EM step written out by enumeration (em_step).
  const BayesNetModel& fit = network(*pooled);
  const std::vector<std::vector<double>> cpts{fit.node(0).cpt, fit.node(1).cpt, fit.node(2).cpt};
  const std::vector<std::vector<double>> next = em_step(cpts, all);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t e = 0; e < cpts[i].size(); ++e)
      EXPECT_NEAR(next[i][e], cpts[i][e], 1e-6) << "node " << i << " entry " << e;
}

TEST(BayesNetAdaptation, RelevanceLimits) {
  const std::unique_ptr<Model> pooled = pooled_network();
  const std::vector<std::vector<long>> xs = observations(30, 99, 0.9);
  EXPECT_LE(max_cpt_difference(*adapt_bayesnet(network(*pooled), xs, adaptation(1e14)).model, network(*pooled)), 1e-9);

  // tau -> 0: plain EM from the pooled network, written out (em_step).
  std::vector<std::vector<double>> expected{network(*pooled).node(0).cpt, network(*pooled).node(1).cpt,
                                            network(*pooled).node(2).cpt};
  for (int step = 0; step < 15; ++step) expected = em_step(expected, xs);
  const BayesNetFit ml = adapt_bayesnet(network(*pooled), xs, adaptation(1e-12, 15));
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t e = 0; e < expected[i].size(); ++e)
      EXPECT_NEAR(ml.model->node(i).cpt[e], expected[i][e], 1e-8) << "node " << i << " entry " << e;
}

TEST(BayesNetAdaptation, FinalObjectiveIsTheMapObjectiveAndNeverDecreases) {
  const std::unique_ptr<Model> pooled = pooled_network();
  const std::vector<std::vector<long>> xs = observations(25, 7, 0.85);
  for (double tau : {0.5, 5.0, 50.0}) {
    const BayesNetFit fit = adapt_bayesnet(network(*pooled), xs, adaptation(tau, 40));
    expect_never_decreases(fit.objectives, 40, "tau " + std::to_string(tau), 3);
    const BayesNetModel& a = *fit.model;
    double expected = 0;
    for (const std::vector<long>& x : xs) {
      double p = 0;
      for (int h = 0; h < 2; ++h) p += a.node(0).cpt[h] * a.node(1).cpt[h * 3 + x[0]] * a.node(2).cpt[h * 2 + x[1]];
      expected += std::log(p);
    }
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t e = 0; e < a.node(i).cpt.size(); ++e)
        expected += tau * network(*pooled).node(i).cpt[e] * std::log(a.node(i).cpt[e]);
    EXPECT_NEAR(fit.objectives.back(), expected, 1e-11 * std::fabs(expected)) << "tau " << tau;
  }
}

TEST(BayesNetAdaptation, FullyObservedNetworksAdaptInClosedForm) {
  const nlohmann::json observed =
      nlohmann::json::parse(R"({"nodes":[{"states":2,"variable":0},{"states":3,"parents":[0],"variable":1}]})");
  const std::unique_ptr<Estimator> estimator = bayesnet_estimator(observed, em_options());
  const std::vector<std::vector<long>> xs{{0, 2}, {0, 2}, {1, 0}, {0, 1}, {1, 0}};
  std::vector<SparseVector> vectors;
  for (const std::vector<long>& x : xs) vectors.push_back(SparseVector{Feature{0, x[0] + 1.0}, Feature{1, x[1] + 1.0}});
  const std::vector<Statistics> examples{estimator->statistics(vectors, 2),
                                         estimator->statistics(vectors_of({{1, 1}, {1, 2}, {0, 0}}), 2)};
  const std::unique_ptr<Model> pooled = estimator->fit_pooled(examples, 1);
  // Pooled: 8 observations, x0 = 0 four times.
  EXPECT_NEAR(network(*pooled).node(0).cpt[0], 0.5, 1e-12);
  const double tau = 3;
  const std::unique_ptr<Model> adapted = estimator->adapt(*pooled, examples[0], adaptation(tau));
  const std::vector<double>& p0 = network(*pooled).node(1).cpt;
  // P(x0 = 0) = (3 + 3 * 0.5) / (5 + 3); P(x1 = 2 | x0 = 0) = (2 + 3 P0(2 | 0)) / (3 + 3).
  EXPECT_NEAR(network(*adapted).node(0).cpt[0], 4.5 / 8, 1e-12);
  EXPECT_NEAR(network(*adapted).node(1).cpt[2], (2 + tau * p0[2]) / (3 + tau), 1e-12);
}

TEST(BayesNetAdaptation, RefusesAnotherStructureAndOtherParameters) {
  const std::unique_ptr<Model> pooled = pooled_network();
  const nlohmann::json other = nlohmann::json::parse(
      R"({"nodes":[{"states":3},{"states":3,"parents":[0],"variable":0},{"states":2,"parents":[0],"variable":1}]})");
  const std::unique_ptr<Estimator> estimator = bayesnet_estimator(other, em_options());
  const Statistics example = estimator->statistics(vectors_of(observations(5, 1, 0.5)), 2);
  EXPECT_TRUE(mentions(estimation_error([&] { estimator->adapt(*pooled, example, adaptation(1.0)); }),
                       {"node 0", "differs from the structure"}));
  AdaptationOptions means = adaptation(1.0);
  means.adapt = parse_adapted_parameters("means");
  EXPECT_TRUE(mentions(estimation_error([&] { adapt_bayesnet(network(*pooled), observations(5, 1, 0.5), means); }),
                       {"adapt", "'means'", "bayesnet", "cpts"}));
}

}  // namespace
}  // namespace ppk
