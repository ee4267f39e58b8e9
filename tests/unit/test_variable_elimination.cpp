// Variable elimination (variable_elimination.hpp) against brute-force enumeration: the sum over
// every assignment of the product of the factors, written out here, on random factor graphs (chains,
// loops, dense cliques, factors without variables, zero entries); factor_on's diagonal against the
// repeated table read directly; the table limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "ppk/core/model.hpp"
#include "ppk/inference/variable_elimination.hpp"

namespace ppk {
namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

// Entry of `factor` at the full assignment `value` (one digit per variable id), the last variable fastest.
double log_entry(const Factor& factor, const std::vector<long>& value, const std::vector<long>& states) {
  long index = 0;
  for (int v : factor.variables) index = index * states[static_cast<std::size_t>(v)] + value[static_cast<std::size_t>(v)];
  return factor.log_values[static_cast<std::size_t>(index)];
}

// log sum over every assignment of prod_f f: the oracle, one term per assignment.
double brute_force(const std::vector<long>& states, const std::vector<Factor>& factors) {
  std::vector<long> value(states.size(), 0);
  std::vector<double> terms;
  while (true) {
    double term = 0.0;
    for (const Factor& f : factors) term += log_entry(f, value, states);
    terms.push_back(term);
    std::size_t v = 0;
    while (v < states.size() && ++value[v] == states[v]) value[v++] = 0;
    if (v == states.size()) break;
  }
  const double largest = *std::max_element(terms.begin(), terms.end());
  if (!std::isfinite(largest)) return largest;
  double sum = 0.0;
  for (double t : terms) sum += std::exp(t - largest);
  return largest + std::log(sum);
}

Factor random_factor(std::vector<int> variables, const std::vector<long>& states, std::mt19937& rng, double zero_share) {
  long size = 1;
  for (int v : variables) size *= states[static_cast<std::size_t>(v)];
  std::normal_distribution<double> log_value(0.0, 2.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Factor f{std::move(variables), std::vector<double>(static_cast<std::size_t>(size))};
  for (double& x : f.log_values) x = unit(rng) < zero_share ? kMinusInfinity : log_value(rng);
  return f;
}

TEST(VariableElimination, MatchesEnumerationOnRandomGraphs) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const int count = 2 + trial % 6;  // 2..7 variables
    std::vector<long> states(static_cast<std::size_t>(count));
    for (long& k : states) k = std::uniform_int_distribution<long>(2, 4)(rng);
    std::vector<Factor> factors;
    for (int v = 0; v < count; ++v) factors.push_back(random_factor({v}, states, rng, 0.0));
    for (int v = 1; v < count; ++v) factors.push_back(random_factor({v - 1, v}, states, rng, 0.1));  // a chain
    // Extra factors over random subsets of up to 3 variables close loops; their order is arbitrary.
    for (int extra = 0; extra < trial % 4; ++extra) {
      std::vector<int> all(static_cast<std::size_t>(count));
      for (int v = 0; v < count; ++v) all[static_cast<std::size_t>(v)] = v;
      std::shuffle(all.begin(), all.end(), rng);
      all.resize(static_cast<std::size_t>(std::min(count, 3)));
      factors.push_back(random_factor(all, states, rng, 0.2));
    }
    factors.push_back(Factor{{}, {0.75}});  // a constant
    const double expected = brute_force(states, factors);
    const double got = eliminate_all(states, factors, 1000000);
    if (std::isinf(expected)) {
      EXPECT_EQ(got, expected) << "trial " << trial;
    } else {
      EXPECT_NEAR(got, expected, 1e-10 * std::max(1.0, std::abs(expected))) << "trial " << trial;
    }
  }
}

TEST(VariableElimination, EveryAssignmentImpossibleIsMinusInfinity) {
  const std::vector<long> states{2, 3};
  const std::vector<Factor> factors{{{0, 1}, std::vector<double>(6, kMinusInfinity)}, {{1}, {1e300, 0.0, 2.0}}};
  EXPECT_EQ(eliminate_all(states, factors, 100), kMinusInfinity);
}

TEST(VariableElimination, FactorOnRepeatedVariablesIsTheDiagonal) {
  // A table over (a, b, a): factor_on keeps (a, b) with value table[a, b, a].
  const std::vector<long> states{2, 3};
  std::vector<double> table(2 * 3 * 2);
  for (std::size_t e = 0; e < table.size(); ++e) table[e] = 0.1 * static_cast<double>(e);
  const Factor f = factor_on({0, 1, 0}, table, states);
  ASSERT_EQ(f.variables, (std::vector<int>{0, 1}));
  for (long a = 0; a < 2; ++a)
    for (long b = 0; b < 3; ++b)
      EXPECT_EQ(f.log_values[static_cast<std::size_t>(a * 3 + b)], table[static_cast<std::size_t>((a * 3 + b) * 2 + a)]);
  // Without repeats the table is kept as it is.
  const Factor same = factor_on({1, 0}, std::vector<double>(6, 1.5), states);
  EXPECT_EQ(same.variables, (std::vector<int>{1, 0}));
  EXPECT_EQ(same.log_values, std::vector<double>(6, 1.5));
}

TEST(VariableElimination, RefusesTablesBeyondTheLimit) {
  // One factor over 4 variables of 10 states: eliminating any of them needs 10^4 entries.
  const std::vector<long> states{10, 10, 10, 10};
  const std::vector<Factor> factors{{{0, 1, 2, 3}, std::vector<double>(10000, 0.0)}};
  EXPECT_THROW(eliminate_all(states, factors, 9999), KernelDomainError);
  EXPECT_NEAR(eliminate_all(states, factors, 10000), std::log(10000.0), 1e-12);
}

}  // namespace
}  // namespace ppk
