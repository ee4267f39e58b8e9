// Internal to libppk: what the family files share when they validate a model's
// fields, wherever the fields came from (a row, a JSON object or a C++ caller),
// and the messages that name the offending field.
//
// A model's constructor validates its parameters once and throws FieldError,
// a ModelError that also records which field and element was wrong. Its message
// names the field as JSON does (`gaussian field "diag"[2]: ...`); the row decoder
// catches it and throws the same complaint at the row indices the field occupies
// (`gaussian field "diag" (index 9): ...`), so each check is written once.
#pragma once

#include <cmath>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "ppk/core/model.hpp"
#include "ppk/core/row.hpp"
#include "ppk/core/sparse_probabilities.hpp"

namespace ppk::detail {

// The largest dimension a row or JSON object may declare: a guard against a typo
// turning into a huge allocation, far above any real model.
constexpr long kMaxDimension = 100000000;  // 10^8

// The shortest text that reads back as the same double ("-1", "0.1", "nan", "inf").
std::string format_number(double value);
// "a whole number in [min, max]", for messages.
std::string whole_numbers(long min, long max);

// `family field "name"` plus the row location: ` (index 7)` or ` (indices 5..9)`.
std::string row_field_location(const std::string& family, const std::string& field, long first_index, long count);

class FieldError : public ModelError {
 public:
  // element: the offset within the field (-1: the field as a whole); json_path: how JSON
  // addresses that element ("[2]", "[1][0]" or ""); got: what was found ("" if nothing to show);
  // elements: how many consecutive elements from `element` the error is about (a table's row).
  FieldError(std::string family, std::string field, long element, std::string json_path, std::string expected,
             std::string got, long elements = 1);
  const std::string& family() const { return family_; }
  const std::string& field() const { return field_; }
  long element() const { return element_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& expected() const { return expected_; }
  const std::string& got() const { return got_; }
  long elements() const { return elements_; }

 private:
  std::string family_, field_;
  long element_;
  std::string json_path_, expected_, got_;
  long elements_;
};

// A FieldError about element `index` of a vector field, addressed as JSON does ("[index]").
FieldError element_error(const std::string& family, const std::string& field, long index, const std::string& expected,
                         double got);
// A FieldError about a whole field.
FieldError field_error(const std::string& family, const std::string& field, const std::string& expected,
                       const std::string& got = "");

// A row field that must be a whole number in [min, max], its error naming `family` (which may name a
// part of the model, as "bayesnet nodes[2]") and the field's index.
long row_whole_number(RowReader& fields, const std::string& family, const char* field, long min, long max);

// Where one field of a decoded row lies: its first index and how many indices it spans. A list that
// stores its length first has its elements from first_index + element_offset.
struct RowFieldSpan {
  const char* field;
  long first_index;
  long count;
  long element_offset = 0;
};

// The error `error` (raised by a model constructor) restated at the row indices of its
// field: element e of a field at first index f is index f + element_offset + e.
ModelError at_row(const FieldError& error, const std::vector<RowFieldSpan>& spans);

// Builds a decoded model with `build()`, translating the constructor's FieldError to row indices.
template <class Build>
auto build_from_row(std::initializer_list<RowFieldSpan> spans, Build build) -> decltype(build()) {
  try {
    return build();
  } catch (const FieldError& error) {
    throw at_row(error, spans);
  }
}

// Checks shared by several families.
inline bool is_probability(double p) { return p >= 0.0 && p <= 1.0; }  // false for NaN
inline bool is_positive_finite(double v) { return v > 0.0 && std::isfinite(v); }

// How far a probability vector of a model's parameters (HMM start and transition rows) may sum
// from 1 before it is refused; within it, the vector is renormalised.
constexpr double kProbabilitySumTolerance = 1e-6;

// Checks that `p` (the field `field` of `family`, or its row `row` when row >= 0, whose first element
// is at offset `first` of the field) is a probability vector, and renormalises it to sum 1.
template <class Vector>
void normalise_probabilities(const std::string& family, const char* field, Vector&& p, long row, long first) {
  const std::string path = row >= 0 ? "[" + std::to_string(row) + "]" : "";
  for (Eigen::Index i = 0; i < p.size(); ++i)
    if (!is_probability(p[i]))
      throw FieldError(family, field, first + i, path + "[" + std::to_string(i) + "]", "a probability in [0, 1]",
                       format_number(p[i]));
  const double sum = p.sum();
  if (!(std::fabs(sum - 1.0) <= kProbabilitySumTolerance))
    throw FieldError(family, field, first, path,
                     (row >= 0 ? "transition row " + std::to_string(row) + " (the probabilities of leaving state " +
                                     std::to_string(row) + ")"
                               : std::string("probabilities")) +
                         " summing to 1 within 1e-6",
                     "a sum of " + format_number(sum));
  // Dividing by a sum within rounding of 1 would change the last bits of a vector that was already
  // renormalised (after a row or JSON round trip): only a sum off by more than rounding is divided out.
  if (std::fabs(sum - 1.0) > static_cast<double>(p.size()) * std::numeric_limits<double>::epsilon()) p /= sum;
}

// Validates a sparse probability vector (fields "dim", "base" and "p"): 1 <= D <= 10^8, listed
// coordinates strictly increasing in [0, D), every probability finite and in [0, 1]. Returns it in
// canonical form: no listed value equal to the base, and base 0 whenever some p_d is 0 (a row
// cannot store a listed 0: it reads as the base).
SparseProbabilities checked_probabilities(const std::string& family, SparseProbabilities p);

// FieldError on "dim" unless min_dim <= dim <= 10^8.
void check_dimension(const std::string& family, long dim, long min_dim);
// FieldError on element d of `field` unless every value is finite and > 0 (>= 0 with allow_zero).
void check_positive_entries(const std::string& family, const char* field, const std::vector<double>& values,
                            bool allow_zero = false);

// The offset of entry (i, j) of a symmetric matrix stored as its lower triangle row by row
// (S11, S21, S22, S31, ...), as rows store covariances.
inline long lower_triangle_offset(long i, long j) { return i >= j ? i * (i + 1) / 2 + j : j * (j + 1) / 2 + i; }

// FieldError on `field` unless the square `matrix` (a covariance) is finite and symmetric; a
// non-finite entry is named by its lower-triangle offset. Symmetry is checked to 1e-7 relative: a
// covariance read back from %.8g text is symmetric only to about 1e-8.
void check_symmetric(const std::string& family, const char* field, const Eigen::MatrixXd& matrix);

// log sum_i exp(terms_i), each term shifted by the largest so that no exp overflows or underflows to
// an all-zero sum; the largest itself when it is not finite (-inf: every term -inf; NaN). `terms`
// must not be empty.
double log_sum_exp(const double* terms, std::size_t n);

// exp of each entry by std::exp, for entries that may be -inf (log 0) or below about -708: Eigen 3.4's
// vectorised exp clamps its argument and returns about 5.6e-309 there instead of 0, which would turn
// an impossible state, transition or pair of states into a possible one.
template <class Derived>
auto exp_entries(const Eigen::ArrayBase<Derived>& logs) {
  return logs.unaryExpr([](double v) { return std::exp(v); });
}
inline double log_sum_exp(const std::vector<double>& terms) { return log_sum_exp(terms.data(), terms.size()); }

// The storage a row's kernel keeps or uses per evaluation (Monte Carlo draws, SLDS paths, the factorial
// HMM's mean-field marginals): `values` dense values, a product of the row's sizes and -d T counted in
// double, checked before it is allocated against the row's own limit (kMaxRowDenseValues, row.hpp).
// Throws KernelDomainError "FAMILY kernel: SIZES = VALUES values, more than ..." naming `sizes`.
void check_kernel_storage(const std::string& family, const std::string& sizes, double values);
// The work of a kernel evaluation as counted from a row's sizes (kMaxKernelWork, row.hpp): `work`
// multiply-adds, `sizes` the product that gives it. Throws KernelDomainError "FAMILY kernel: SIZES =
// WORK multiply-adds per kernel evaluation, more than ...; REMEDY" beyond kMaxKernelWork; returns `work`
// (the model's kernel_work()).
double check_kernel_work(const std::string& family, const std::string& sizes, double work, const std::string& remedy);
// The kernel work of a model whose kernel pairs each of its K parts (prepared) with each of the K'
// parts of the other model (a mixture's components, an HMM's emissions, a network leaf's models): a
// pair of parts costs one step plus at most their two works, so the K K' pairs cost K K' + K' W + K W'
// (W the parts' summed work), and K (K + W), this model's share of a pair of its own shape, is returned.
double parts_kernel_work(const std::vector<std::unique_ptr<Model>>& parts);
// KernelDomainError unless params.rho is a positive finite number.
void check_rho(const std::string& family, const KernelParams& params);

// Thrown by a family's log_kernel when the dispatcher's guarantees (same family, same sample
// space, both prepared with the same rho) do not hold: a programming error, not bad input.
[[noreturn]] void throw_unprepared_pair(const std::string& family);

// Reading a model's JSON object; every error is a ModelError naming the family and field.
class JsonFields {
 public:
  // Rejects members other than "family", "label" and `allowed`.
  JsonFields(const nlohmann::json& object, std::string family, const std::vector<const char*>& allowed);
  bool has(const char* field) const;
  const nlohmann::json& required(const char* field) const;
  double real(const char* field) const;
  std::vector<double> reals(const char* field) const;
  std::vector<std::vector<double>> matrix(const char* field) const;
  // The whole number `field` (or `value`, an element inside it) in [min, max].
  long whole_number(const char* field, long min, long max) const;
  long whole_number(const char* field, const nlohmann::json& value, long min, long max) const;
  // `expected` describes the value that was wanted; the message shows what was found.
  ModelError invalid(const char* field, const std::string& expected) const;
  // The dense probability vector `field` ("p"), each entry checked to lie in [0, 1], stored sparsely.
  SparseProbabilities probabilities(const char* field) const;

 private:
  double number(const char* field, const nlohmann::json& value, const std::string& where) const;
  const nlohmann::json& object_;
  std::string family_;
};

}  // namespace ppk::detail
