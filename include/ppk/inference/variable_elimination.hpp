// Exact sums of products of discrete factors by variable elimination, in log space: the engine
// behind the kernel of Bayesian networks (bayesnet.hpp, JMLR 2004 section 4.3), where the factors
// are the CPTs raised to rho and the emission kernels of two fused networks. It knows nothing of
// models: variables are ids 0..V-1 with states[v] states each, and a factor is a table of logs.
#pragma once

#include <vector>

namespace ppk {

// Log values over `variables` (distinct ids), row-major with the last variable fastest: entry
// sum_p digit_p prod_{q > p} states[variables[q]] holds log f(assignment). A factor without
// variables is a constant (one entry).
struct Factor {
  std::vector<int> variables;
  std::vector<double> log_values;
};

// The factor over the distinct ids of `variables` (which may repeat, as a variable that is a parent
// in both of two fused networks does) whose value at an assignment is table's entry at the same
// assignment of the repeated list: the diagonal of `table`.
Factor factor_on(const std::vector<int>& variables, std::vector<double> table, const std::vector<long>& states);

// log sum over every assignment of the variables 0..states.size()-1 of prod_f f(assignment), each
// step eliminating the variable whose elimination adds the fewest edges to the interaction graph
// (greedy min-fill; ties: the smaller table, then the lower id, so the order is deterministic).
// Summing out uses log-sum-exp; a sum whose terms include an empty one (log -inf) and an
// overflowing one is -inf (a configuration of probability 0 contributes nothing).
// KernelDomainError (model.hpp) if an intermediate table would exceed max_table entries.
double eliminate_all(const std::vector<long>& states, std::vector<Factor> factors, long max_table);

}  // namespace ppk
