// The kernel matrix between two sets of model rows, as `ppk gram` computes it: the rows decoded and
// prepared once, every entry checked, the same matrix bit for bit for any number of threads.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/data.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk::cli {

// A file's rows, decoded and prepared for the kernel parameters, and their labels.
struct PreparedFile {
  std::string name;
  std::vector<std::unique_ptr<PreparedModel>> models;
  std::vector<double> labels;
};

// `rows` (of the file `name`) decoded and prepared; InputError "NAME: row N: ..." for a bad row.
PreparedFile prepare_rows(const std::vector<LabeledRow>& rows, const std::string& name, KernelKind kind,
                          const KernelParams& params);

// "A: row i and B: row j" for messages.
std::string pair_name(const PreparedFile& a, std::size_t i, const PreparedFile& b, std::size_t j);

// evaluate_pair(a_i, b_j) for a pair with a kernel (check_compatible); an error names the pair.
template <class EvaluatePair>
double pair_value(const PreparedFile& a, std::size_t i, const PreparedFile& b, std::size_t j,
                  EvaluatePair evaluate_pair) {
  const PreparedModel& left = *a.models[i];
  const PreparedModel& right = *b.models[j];
  try {
    check_compatible(left.model(), right.model());
    return evaluate_pair(left, right);
  } catch (const KernelDomainError& e) {
    throw InputError(pair_name(a, i, b, j) + ": " + e.what());
  }
}

// k(a_i, b_j), checked for compatibility and finiteness.
double kernel_entry(KernelKind kind, const PreparedFile& a, std::size_t i, const PreparedFile& b, std::size_t j);

// Every pair must have a kernel; checking row 1 of each file against all rows of the other finds the
// usual mistake (files of different dimension or family) before the long computation.
void check_first_row_and_column(KernelKind kind, const PreparedFile& a, const PreparedFile& b);

// Row-major: each task of compute_gram writes one contiguous matrix row, so threads do not share
// cache lines.
using GramMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// K(i, j) = k(a_i, b_j), one matrix row per task on `threads` threads. Every entry is one
// kernel_entry call that depends on (i, j) alone, so the matrix is the same bit for bit for any
// number of threads; an error names the first bad pair in row order. Against itself (b is a) only
// the upper triangle is evaluated and mirrored, so the matrix is exactly symmetric.
GramMatrix compute_gram(KernelKind kind, const PreparedFile& a, const PreparedFile& b, bool against_self,
                        unsigned threads);

// A symmetric n x n kernel matrix, its upper triangle held once: n (n + 1) / 2 doubles, 4 n^2 bytes,
// what a float matrix takes, with the doubles that svm-train -t 4 reads from a precomputed file.
class SymmetricKernelMatrix {
 public:
  explicit SymmetricKernelMatrix(std::size_t n);
  std::size_t size() const { return n_; }
  // Entry (i, j) for i <= j; (j, i) is the same entry.
  double& upper(std::size_t i, std::size_t j) { return values_[offset(i, j)]; }
  double operator()(std::size_t i, std::size_t j) const { return i <= j ? values_[offset(i, j)] : values_[offset(j, i)]; }
  // The bytes a matrix of n examples takes.
  static double bytes(std::size_t n) { return 4.0 * static_cast<double>(n) * static_cast<double>(n + 1); }

 private:
  // Row i of the upper triangle starts after rows 0..i-1, of n, n-1, ..., n-i+1 entries: i (2n - i + 1) / 2.
  std::size_t offset(std::size_t i, std::size_t j) const { return i * (2 * n_ - i + 1) / 2 + (j - i); }
  std::size_t n_;
  std::vector<double> values_;
};

// K(i, j) = k(a_i, a_j) for i <= j, as compute_gram(kind, a, a, true, threads) computes them (the same
// values bit for bit), held once.
SymmetricKernelMatrix compute_symmetric_gram(KernelKind kind, const PreparedFile& a, unsigned threads);

// log k_T(a_i, a_j) for every T of `lengths` (strictly ascending), the rows prepared at T =
// lengths.back(): one matrix per T, its diagonal the self-kernels, each pair's values from one pass of
// its recursion over time steps (log_kernels_over_lengths; JMLR 2004 section 4.2 for HMMs). Nothing
// when the rows' family does not give every T from one pass (docs/families.md). InputError naming the
// pair when a pair has no kernel or a log kernel is NaN or +infinity.
std::optional<std::vector<SymmetricKernelMatrix>> compute_log_grams_over_lengths(const PreparedFile& a,
                                                                                 const std::vector<int>& lengths,
                                                                                 unsigned threads);

// The kernel matrix of `kind` from a log kernel matrix L: K(i, j) = kernel_value(kind, L(i, j), L(i, i),
// L(j, j)), the rules by which evaluate() turns logs into values. InputError naming the first pair of
// `a` (row order) whose value is not finite.
SymmetricKernelMatrix gram_from_log_gram(KernelKind kind, const SymmetricKernelMatrix& log_gram, const PreparedFile& a);

}  // namespace ppk::cli
