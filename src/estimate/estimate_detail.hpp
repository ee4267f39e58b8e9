// Internal to libppk: what the estimators of estimate.hpp share.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "estimate/gaussian_em.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/memory.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk::detail {

// "%.6g" of x, for messages.
std::string short_number(double x);
// "1 vector", "3 vectors".
std::string vector_count(double n);

// EstimationError unless the example has vectors, dim >= 1 and every coordinate is < dim.
void check_example(const std::vector<SparseVector>& vectors, long dim);
// OptionError naming `field` ("alpha", the options struct's member) unless its value is finite and
// >= minimum (> minimum when strict).
void check_option(const char* field, double value, double minimum, bool strict);

// The prior's shift of the totals and of their normaliser for `method` under a symmetric
// Beta/Dirichlet(alpha) prior over `categories` outcomes per coordinate: ML adds nothing, the
// posterior mean adds alpha, the mode alpha - 1 (EstimationError unless alpha >= 1).
double prior_shift(Method method, double alpha);

// Statistics of `family` over `dim` with n = vectors.size() and no sums yet.
Statistics empty_statistics(const std::string& family, long dim, const std::vector<SparseVector>& vectors);
// The column sum over the vectors of f(coordinate, value) for their listed entries (absent
// entries contribute 0), as a D x 1 matrix.
template <class Transform>
Eigen::MatrixXd sum_over_entries(const std::vector<SparseVector>& vectors, long dim, Transform f) {
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(dim, 1);
  for (const SparseVector& v : vectors)
    for (const Feature& entry : v) sum(entry.coord, 0) += f(entry.coord, entry.value);
  return sum;
}
// Every vector's value at every coordinate d < dim (absent entries are 0), passed to check(i, d, value).
template <class Check>
void for_each_value(const std::vector<SparseVector>& vectors, long dim, Check check) {
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    std::size_t next = 0;
    for (long d = 0; d < dim; ++d) {
      const bool present = next < vectors[i].size() && vectors[i][next].coord == d;
      check(i, d, present ? vectors[i][next++].value : 0.0);
    }
  }
}
// "value 2.5 at index 3 (vector 2)" for messages: i and d 0-based, printed 1-based.
std::string value_at(double value, std::size_t vector, long coord, std::size_t vectors);
// The named sum, which must exist with the given shape (EstimationError otherwise: a pooled file
// of another family or dimension).
const Eigen::MatrixXd& sum_of(const Statistics& statistics, const std::string& name);

// Estimators that keep the example's data rather than fixed-size sufficient statistics (mixtures,
// HMMs, networks with hidden nodes) cannot pool: this throws the PoolingUnsupported that says so.
[[noreturn]] void reject_pooling(const std::string& family);
// The statistic "x" (the n x D data matrix), which must have one column per dimension.
const Eigen::MatrixXd& data_of(const Statistics& statistics);

// "a mixture", "an hmm", "an lds": a family's name with its article for messages (the registered
// family's FamilyInfo::article, else "an" before a vowel).
std::string with_article(const std::string& family);

// A latent-variable estimator's pooled model as its family's model (Estimator::adapt); EstimationError
// naming both families when it is of another.
template <class FamilyModel>
const FamilyModel& pooled_model_as(const Model& pooled, const std::string& family) {
  const auto* model = dynamic_cast<const FamilyModel*>(&pooled);
  if (model == nullptr)
    throw EstimationError("the pooled model is " + with_article(pooled.family().name) + ", not " + with_article(family));
  return *model;
}

// FNV-1a over the bytes of the values: part of the EM estimators' seeds, so that different data of
// one size start from different points, and the same data always from the same.
template <class Value>
std::uint64_t fingerprint(const Value* values, std::size_t count) {
  std::uint64_t hash = 14695981039346656037ULL;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values);
  for (std::size_t i = 0; i < count * sizeof(Value); ++i) hash = (hash ^ bytes[i]) * 1099511628211ULL;
  return hash;
}

// Builds the model; a ModelError from the model's own validation becomes an EstimationError.
template <class Build>
auto build_model(Build build) -> decltype(build()) {
  try {
    return build();
  } catch (const ModelError& e) {
    throw EstimationError(std::string("the estimate is not a valid model: ") + e.what());
  }
}

// WorkingMemoryError if the `bytes` of working memory that a fit needs exceed memory_limit_bytes();
// `need` is a template naming the options that make them large
// ("Baum-Welch with {states} 3000 ..."), `remedy` says which to lower.
void check_working_memory(double bytes, const std::string& need, const std::string& remedy);
// compute() after check_working_memory, with its std::bad_alloc (the estimate was short of what
// the allocator could give, e.g. beside other allocations) turned into a WorkingMemoryError of the
// same need and remedy.
template <class Compute>
auto with_working_memory(double bytes, const std::string& need, const std::string& remedy, Compute compute)
    -> decltype(compute()) {
  check_working_memory(bytes, need, remedy);
  try {
    return compute();
  } catch (const std::bad_alloc&) {
    throw WorkingMemoryError(need + " needs about " + byte_count(bytes) +
                             " of working memory, and it could not be allocated; " + remedy);
  }
}

// Estimators that keep the example's vectors themselves (the n x D matrix "x"): mixtures, and the
// vector sequences of factorial HMMs and (switching) linear dynamical systems. Not exponential families: no fixed-size
// sufficient statistics and no pooling.
class DataMatrixEstimator : public Estimator {
 public:
  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    check_example(vectors, dim);
    Statistics statistics = empty_statistics(family(), dim, vectors);
    statistics.sums["x"] = data_matrix(vectors, dim);
    return statistics;
  }
  Statistics pool(const Statistics&, const Statistics&, double) const override { reject_pooling(family()); }
};

// The statistic "symbols" of a symbol sequence (hmm with discrete emissions, markov): the n x 1
// symbol indices of the example's vectors, each a single index:1 entry (one-hot); OptionError naming
// the observation otherwise, followed by `remedy`.
Eigen::MatrixXd one_hot_symbols(const std::vector<SparseVector>& vectors, const std::string& remedy);
// The statistic "symbols" as the sequence.
std::vector<long> symbols_of(const Statistics& statistics);

// OptionError unless the EM options of the sequence estimators (hmm, fhmm) are valid:
// smoothing >= 0, ridge > 0 when given, iterations >= 1, tolerance >= 0, restarts >= 1,
// 0 <= length <= max_length (the family's longest row) when given.
template <class Options>
void check_sequence_em_options(const Options& options, long max_length) {
  check_option("smoothing", options.smoothing, 0, false);
  if (options.ridge) check_option("ridge", *options.ridge, 0, true);
  if (options.iterations < 1)
    throw OptionError("{iterations} must be at least 1, got " + std::to_string(options.iterations));
  check_option("tolerance", options.tolerance, 0, false);
  if (options.restarts < 1) throw OptionError("{restarts} must be at least 1, got " + std::to_string(options.restarts));
  if (options.length && (*options.length < 0 || *options.length > max_length))
    throw OptionError("{length} must be in [0, " + std::to_string(max_length) + "], got " +
                      std::to_string(*options.length));
}

// Baum-Welch's pieces (estimate_hmm.cpp, formulas in estimate.hpp), shared with the factorial HMM's
// exact E-step over its product state space.
struct MarkovChain {
  Eigen::VectorXd start;        // pi_q
  Eigen::MatrixXd transitions;  // A_pq = P(s_{t+1} = q | s_t = p)
};
struct ChainPosteriors {
  double log_likelihood = 0;          // log p(x_0..x_{n-1})
  Eigen::MatrixXd states;             // gamma_t(q), n x M
  Eigen::MatrixXd transition_counts;  // sum_t xi_t(p, q), M x M
};
// The storage of scaled_forward_backward over one sequence of n steps: M x n, column t for x_t.
// `emissions` holds b_t(q) = p_q(x_t) / m_t, for any m_t > 0; with m_t = max_q p_q(x_t) no step
// can underflow, as every b_t has an entry 1 and every alpha_t is renormalised to sum 1.
// `states` returns gamma_t(q) = P(s_t = q | X), `scales` the normalisers c_t (n).
struct ForwardBackwardStorage {
  Eigen::Ref<const Eigen::MatrixXd> emissions;
  Eigen::Ref<Eigen::MatrixXd> states;
  Eigen::Ref<Eigen::VectorXd> scales;
};
// The scaled forward-backward recursions (Rabiner 1989, section V.A) in the caller's storage,
// allocating nothing for M <= 6 states (Baum-Welch runs them on every iteration):
//   alpha_0 = pi .* b_0 / c_0,  alpha_t = (A' alpha_{t-1}) .* b_t / c_t,  c_t making alpha_t sum to 1;
//   beta_{n-1} = 1,  beta_{t-1} = A (b_t .* beta_t / c_t);  gamma_t = alpha_t .* beta_t;
//   sum_t xi_t = A .* sum_{t>=1} alpha_{t-1} (b_t .* beta_t / c_t)' added to `transition_counts` (M x M).
// Returns sum_t log c_t = log p(x_0..x_{n-1}) - sum_t log m_t.
double scaled_forward_backward(const MarkovChain& chain, ForwardBackwardStorage storage,
                               Eigen::Ref<Eigen::MatrixXd> transition_counts);
// b_t(q) = exp(log p_q(x_t) - log m_t), m_t = max_q p_q(x_t), from `log_emissions` (n x M) into
// `scaled` (M x n) for scaled_forward_backward; returns sum_t log m_t.
double scale_log_emissions(const Eigen::Ref<const Eigen::MatrixXd>& log_emissions, Eigen::Ref<Eigen::MatrixXd> scaled);
// scaled_forward_backward from log p_q(x_t) (n x M), in storage of its own.
ChainPosteriors forward_backward(const MarkovChain& chain, const Eigen::Ref<const Eigen::MatrixXd>& log_emissions);
// Each row of `counts` plus the pseudo-counts (a matrix of counts' shape, or a on every entry),
// divided by its sum; a row whose sum is 0 keeps its value in `rows`.
void normalise_rows(const Eigen::MatrixXd& counts, const Eigen::MatrixXd& pseudo_counts, Eigen::MatrixXd& rows);
void normalise_rows(const Eigen::MatrixXd& counts, double a, Eigen::MatrixXd& rows);
// a sum log theta over the entries of p: the log Dirichlet(1 + a) prior density up to a constant.
double log_dirichlet_prior(const Eigen::MatrixXd& p, double a);
// sum_o a_o log p_o over the entries of p with pseudo-count a_o > 0 (pseudo_counts of p's shape): the
// log Dirichlet(1 + a) prior up to a constant. An entry without pseudo-count adds nothing, so its
// maximum-likelihood value may be 0.
double log_dirichlet_prior(const Eigen::Ref<const Eigen::ArrayXXd>& p,
                           const Eigen::Ref<const Eigen::ArrayXXd>& pseudo_counts);
// A rows x cols matrix whose rows are proportional to 1/2 + u, u uniform on [0, 1).
Eigen::MatrixXd random_rows(Eigen::Index rows, Eigen::Index cols, std::mt19937_64& rng);

}  // namespace ppk::detail
