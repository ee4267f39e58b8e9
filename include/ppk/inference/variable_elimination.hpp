// Exact sums of products of discrete factors by variable elimination: the engine behind the kernel
// of Bayesian networks (bayesnet.hpp, JMLR 2004 section 4.3), where the factors are the CPTs raised
// to rho and the emission kernels of two fused networks. It knows nothing of models: variables are
// ids 0..V-1 with states[v] states each, and a factor is a table over some of them.
//
// What an elimination does depends only on the variables' states and the factors' scopes (which
// variables each factor is over), not on their values: an EliminationPlan works it out once (the
// order, every intermediate table's scope and layout, how each step is computed) and is then run on
// the values of any factors of those scopes. A kernel between many pairs of networks of one
// structure builds one plan and runs it per pair.
//
// The plan computes in linear arithmetic, each table scaled by a power of two into the range of
// doubles, the scales summed exactly as binary exponents, so a step is a sum of products (a matrix product where the
// step contracts two tables over the eliminated variable), not a log-sum-exp per term. A step
// whose products could leave the range of doubles (the products of the tables' smallest positive
// entries below 2^-960, or of their largest above 2^960), and any table that is not finite, is
// computed on logs instead, with log-sum-exp: no positive term is ever rounded to 0, so the result
// is the exact sum to rounding either way.
#pragma once

#include <cstddef>
#include <memory>
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

// A factor's table as a plan reads it: its log values and, when nothing is lost, the same values
// scaled by a power of two, values[e] = exp(log_values[e]) 2^-exponent with the largest in [1, 2)
// (the scales of a product are then summed exactly, as integers).
struct ScaledTable {
  std::vector<double> log_values;
  std::vector<double> values;  // empty unless `linear`
  long exponent = 0;
  int largest = 0;   // binary exponent (ilogb) of the largest value
  int smallest = 0;  // binary exponent of the smallest positive value
  // Whether `values` hold the table: every log value finite or -inf, the positive values no smaller
  // than 2^-1000 times the largest (nothing rounds to 0 or loses bits as a subnormal).
  bool linear = false;
  bool zero = false;  // every value is 0 (log -inf): every product with this factor is 0

  // Sets the table to these log values (its storage reused: no allocation once large enough).
  void assign(const double* logs, std::size_t size);
};

// log sum over every assignment of the variables 0..states.size()-1 of prod_f f(assignment), each
// step eliminating the variable whose elimination adds the fewest edges to the interaction graph
// (greedy min-fill; ties: the smaller table, then the lower id, so the order is deterministic).
// A sum whose terms include an empty one (log -inf) and an overflowing one is -inf (a configuration
// of probability 0 contributes nothing).
class EliminationPlan {
 public:
  // scopes[f]: the variables of factor f, which may repeat (its table is then read on the diagonal,
  // as factor_on reads it). KernelDomainError (model.hpp) if an intermediate table would exceed
  // max_table entries.
  EliminationPlan(std::vector<long> states, const std::vector<std::vector<int>>& scopes, long max_table);
  ~EliminationPlan();
  EliminationPlan(EliminationPlan&&) noexcept;
  EliminationPlan& operator=(EliminationPlan&&) noexcept;

  std::size_t factors() const;
  // The sum for tables[f], factor f's table over scopes[f] as given (row-major, the last listed
  // variable fastest). Allocation-free after the first run on a thread (its scratch is reused).
  double log_sum(const ScaledTable* const* tables) const;

 private:
  struct Steps;
  std::unique_ptr<Steps> steps_;
};

// The plan for the factors' scopes run on their values: the same sum.
double eliminate_all(const std::vector<long>& states, std::vector<Factor> factors, long max_table);

}  // namespace ppk
