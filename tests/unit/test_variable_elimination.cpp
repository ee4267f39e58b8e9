// Variable elimination (variable_elimination.hpp) against brute-force enumeration: the sum over
// every assignment of the product of the factors, written out here, on random factor graphs (chains,
// loops, dense cliques, factors without variables, zero entries); factor_on's diagonal against the
// repeated table read directly; the table limit; one plan run on many values; values spread far
// beyond the range of doubles (the steps on logs) and long chains far below the smallest double
// against a forward recursion in log space; a table too large for an index array in another layout.
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

// `got` is the oracle's `expected`: the same infinity, or within `tolerance` relative (to at least 1).
void expect_log_sum(double got, double expected, double tolerance, int trial) {
  if (std::isinf(expected))
    EXPECT_EQ(got, expected) << "trial " << trial;
  else
    EXPECT_NEAR(got, expected, tolerance * std::max(1.0, std::abs(expected))) << "trial " << trial;
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
    expect_log_sum(eliminate_all(states, factors, 1000000), brute_force(states, factors), 1e-10, trial);
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

// One plan, made for the factors' scopes, run on many sets of values: each run is the brute-force
// sum of its own values (nothing of an earlier run's values is kept), and equals eliminate_all.
TEST(VariableElimination, APlanRunsOnAnyValuesOfItsScopes) {
  std::mt19937 rng(11);
  const std::vector<long> states{3, 2, 4, 3, 2};
  // A loop 0-1-2-3-0, a factor over (4, 2, 4) read on its diagonal, and a factor over all of 1, 3, 4.
  const std::vector<std::vector<int>> scopes{{0}, {0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 2, 4}, {1, 3, 4}, {}};
  const EliminationPlan plan(states, scopes, 1000);
  ASSERT_EQ(plan.factors(), scopes.size());
  for (int run = 0; run < 20; ++run) {
    std::vector<Factor> factors;
    for (const std::vector<int>& scope : scopes) {
      Factor f = random_factor(scope, states, rng, run % 2 ? 0.2 : 0.0);
      if (scope.empty()) f.log_values = {0.5 * run};
      factors.push_back(std::move(f));
    }
    std::vector<ScaledTable> tables(factors.size());
    std::vector<const ScaledTable*> pointers;
    std::vector<Factor> distinct;  // the oracle reads repeated variables on the diagonal (factor_on)
    for (std::size_t f = 0; f < factors.size(); ++f) {
      tables[f].assign(factors[f].log_values.data(), factors[f].log_values.size());
      pointers.push_back(&tables[f]);
      distinct.push_back(factor_on(factors[f].variables, factors[f].log_values, states));
    }
    const double got = plan.log_sum(pointers.data());
    expect_log_sum(got, brute_force(states, distinct), 1e-12, run);
    EXPECT_EQ(got, eliminate_all(states, factors, 1000)) << "run " << run;
  }
}

// Values spread over thousands of binary orders of magnitude: products of the smallest entries
// would round to 0 (or overflow) in linear arithmetic, so those steps are summed on logs, and the
// chain returns to linear arithmetic where the range allows; every sum still equals brute force.
TEST(VariableElimination, StepsBeyondTheRangeOfDoublesAreSummedOnLogs) {
  std::mt19937 rng(12);
  std::normal_distribution<double> wide(0.0, 400.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 40; ++trial) {
    const int count = 3 + trial % 5;
    std::vector<long> states(static_cast<std::size_t>(count));
    for (long& k : states) k = std::uniform_int_distribution<long>(2, 3)(rng);
    std::vector<Factor> factors;
    for (int v = 0; v < count; ++v) {
      // Every other factor spans a range far beyond doubles; the others a narrow one.
      Factor f = random_factor(v == 0 ? std::vector<int>{0} : std::vector<int>{v - 1, v}, states, rng, 0.1);
      if ((v + trial) % 2 == 0)
        for (double& x : f.log_values)
          if (std::isfinite(x)) x = wide(rng);
      factors.push_back(std::move(f));
    }
    // Entries just inside the linear range of one table (2^-990 of its largest), twice in one product.
    Factor edge{{0, count - 1}, std::vector<double>(static_cast<std::size_t>(states[0] * states[count - 1]), 0.0)};
    for (double& x : edge.log_values) x = unit(rng) < 0.5 ? -990 * std::log(2.0) : 0.0;
    factors.push_back(edge);
    factors.push_back(edge);
    expect_log_sum(eliminate_all(states, factors, 100000), brute_force(states, factors), 1e-12, trial);
  }
}

// A long chain (x_0 - x_1 - .. - x_299, 3 states) whose every factor is small: the sum is far below
// the smallest double (its log below -1500), the running tables are rescaled by powers of two, and
// the result equals the chain's forward recursion done here in log space.
TEST(VariableElimination, LongChainsFarBelowTheSmallestDoubleAreExact) {
  std::mt19937 rng(13);
  const int count = 300;
  const std::vector<long> states(count, 3);
  std::vector<Factor> factors;
  for (int v = 0; v < count; ++v) {
    Factor f = random_factor(v == 0 ? std::vector<int>{0} : std::vector<int>{v - 1, v}, states, rng, 0.05);
    for (double& x : f.log_values) x -= 10.0;
    factors.push_back(std::move(f));
  }
  // forward[k] = log sum over x_0..x_{v-1} of the product up to x_v = k.
  std::vector<double> forward = factors[0].log_values;
  for (int v = 1; v < count; ++v) {
    std::vector<double> next(3);
    for (long k = 0; k < 3; ++k) {
      std::vector<double> terms;
      for (long j = 0; j < 3; ++j)
        terms.push_back(forward[static_cast<std::size_t>(j)] +
                        factors[static_cast<std::size_t>(v)].log_values[static_cast<std::size_t>(j * 3 + k)]);
      const double top = *std::max_element(terms.begin(), terms.end());
      double sum = 0.0;
      for (double t : terms) sum += std::isfinite(top) ? std::exp(t - top) : 0.0;
      next[static_cast<std::size_t>(k)] = std::isfinite(top) ? top + std::log(sum) : top;
    }
    forward = next;
  }
  const double top = *std::max_element(forward.begin(), forward.end());
  double sum = 0.0;
  for (double t : forward) sum += std::exp(t - top);
  const double expected = top + std::log(sum);
  ASSERT_LT(expected, -1500.0);
  EXPECT_NEAR(eliminate_all(states, factors, 1000), expected, 1e-12 * std::abs(expected));
}

// Two tables of 2^21 entries over the same variables in opposite orders: the step that multiplies
// them reads one in the other's layout, which a plan keeps no index array for at that size (it sums
// the product with strides instead). Against the sum over every (x0, x1, x2) of f(x0, x1, x2)
// g(x2, x1, x0) written out.
TEST(VariableElimination, LargeTablesInAnotherLayoutNeedNoIndexArrays) {
  std::mt19937 rng(14);
  const std::vector<long> states{128, 128, 128};
  const Factor f = random_factor({0, 1, 2}, states, rng, 0.0), g = random_factor({2, 1, 0}, states, rng, 0.0);
  std::vector<double> terms;
  for (long x1 = 0; x1 < 128; ++x1)
    for (long x2 = 0; x2 < 128; ++x2)
      for (long x0 = 0; x0 < 128; ++x0)
        terms.push_back(f.log_values[static_cast<std::size_t>((x0 * 128 + x1) * 128 + x2)] +
                        g.log_values[static_cast<std::size_t>((x2 * 128 + x1) * 128 + x0)]);
  const double top = *std::max_element(terms.begin(), terms.end());
  double sum = 0.0;
  for (double t : terms) sum += std::exp(t - top);
  const double expected = top + std::log(sum);
  EXPECT_NEAR(eliminate_all(states, {f, g}, 10000000), expected, 1e-12 * std::abs(expected));
}

}  // namespace
}  // namespace ppk
