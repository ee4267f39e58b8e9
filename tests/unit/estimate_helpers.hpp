// What the estimator tests share: dense test vectors as LIBSVM's sparse ones, the message of an
// EstimationError and a check of the parts it names, adaptation options, categorical draws, the
// check of an EM objective, and HMMs' paths and likelihoods by enumeration.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "error_message.hpp"
#include "positive_family_checks.hpp"
#include "ppk/core/data.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/families/hmm.hpp"

namespace ppk {

// A dense vector as a sparse one (zeros omitted, as LIBSVM files omit them).
inline SparseVector sparse(const std::vector<double>& dense) {
  SparseVector v;
  for (std::size_t d = 0; d < dense.size(); ++d)
    if (dense[d] != 0) v.push_back(Feature{static_cast<long>(d), dense[d]});
  return v;
}

// The message of the EstimationError that fit() throws ("" if none).
template <class Fit>
std::string estimation_error(Fit fit) {
  return checks::error_message<EstimationError>(fit);
}

// A state drawn from probabilities p by inversion of a uniform draw.
inline int draw(const std::vector<double>& p, std::mt19937_64& rng) {
  double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  for (std::size_t i = 0; i + 1 < p.size(); ++i) {
    if (u < p[i]) return static_cast<int>(i);
    u -= p[i];
  }
  return static_cast<int>(p.size()) - 1;
}

// L after each M-step never decreases (to rounding). With tolerance 0, EM runs all its iterations
// unless L stops gaining: then the last gain is rounding noise at the fixed point.
// At least `at_least` values: EM from a random start takes many steps; a MAP adaptation near its
// start may converge in a few.
inline void expect_never_decreases(const std::vector<double>& objective, std::size_t iterations, const std::string& what,
                                   std::size_t at_least = 10) {
  ASSERT_LE(objective.size(), iterations + 1) << what;
  ASSERT_GE(objective.size(), at_least) << what;
  if (objective.size() < iterations + 1) {
    EXPECT_LE(std::fabs(objective.back() - objective[objective.size() - 2]), 1e-12 * std::fabs(objective.back())) << what;
  }
  for (std::size_t t = 1; t < objective.size(); ++t)
    EXPECT_GE(objective[t], objective[t - 1] - 1e-10 * std::fabs(objective[t - 1])) << what << ", iteration " << t;
  EXPECT_GT(objective.back(), objective.front()) << what;  // EM moved from its start
}

// The hidden path of n steps of the chain (start, trans).
inline std::vector<int> sample_path(const std::vector<double>& start, const std::vector<std::vector<double>>& trans,
                                    int n, std::mt19937_64& rng) {
  std::vector<int> path{draw(start, rng)};
  while (static_cast<int>(path.size()) < n) path.push_back(draw(trans[path.back()], rng));
  return path;
}

// n symbols from a discrete-emission HMM.
inline std::vector<long> sample_symbols(const std::vector<double>& start, const std::vector<std::vector<double>>& trans,
                                        const std::vector<std::vector<double>>& emissions, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<long> symbols;
  for (int s : sample_path(start, trans, n, rng)) symbols.push_back(draw(emissions[s], rng));
  return symbols;
}

// log sum over every hidden path s of pi_{s_0} prod_t A_{s_{t-1} s_t} prod_t p_{s_t}(x_t), with
// log_emission(q, t) = log p_q(x_t): the definition of log p(X), by enumeration.
template <class LogEmission>
double brute_force_log_likelihood(const HmmModel& hmm, int n, LogEmission log_emission) {
  const int m = static_cast<int>(hmm.states());
  std::vector<int> path(n, 0);
  double total = 0.0;
  for (;;) {
    double log_p = std::log(hmm.start()(path[0])) + log_emission(path[0], 0);
    for (int t = 1; t < n; ++t) log_p += std::log(hmm.transitions()(path[t - 1], path[t])) + log_emission(path[t], t);
    total += std::exp(log_p);
    int t = 0;  // the next path, as an n-digit number in base m
    while (t < n && ++path[t] == m) path[t++] = 0;
    if (t == n) break;
  }
  return std::log(total);
}

// Adaptation with strength `relevance` of the parameters `adapt` names (parse_adapted_parameters),
// running all `iterations` (tolerance 0).
inline AdaptationOptions adaptation(double relevance, long iterations = 30, const std::string& adapt = "all") {
  AdaptationOptions options;
  options.relevance = relevance;
  options.adapt = parse_adapted_parameters(adapt);
  options.iterations = iterations;
  options.tolerance = 0;
  return options;
}

// The EstimationError message of f, which must mention every part.
template <class Fit>
::testing::AssertionResult refuses(Fit f, std::initializer_list<const char*> parts) {
  return checks::mentions(estimation_error(f), parts);
}

}  // namespace ppk
