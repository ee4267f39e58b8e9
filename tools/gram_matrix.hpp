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
    check_compatible(left, right);
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

// The bytes of the GramMatrix of n rows with themselves (8 n^2: doubles, the values svm-train -t 4
// reads from a precomputed file; its rows contiguous, as LIBSVM asks for a column at a time).
inline double gram_bytes(std::size_t n) { return 8.0 * static_cast<double>(n) * static_cast<double>(n); }

// log k_T(a_i, a_j) for every T of `lengths` (strictly ascending), the rows prepared at T =
// lengths.back(): one symmetric matrix per T, its diagonal the self-kernels, each pair's values from one pass of
// its recursion over time steps (log_kernels_over_lengths; JMLR 2004 section 4.2 for HMMs). Nothing
// when the rows' family does not give every T from one pass (docs/families.md). InputError naming the
// pair when a pair has no kernel or a log kernel is NaN or +infinity.
std::optional<std::vector<GramMatrix>> compute_log_grams_over_lengths(const PreparedFile& a,
                                                                      const std::vector<int>& lengths, unsigned threads);

// The kernel matrix of `kind` from a log kernel matrix L: K(i, j) = kernel_value(kind, L(i, j), L(i, i),
// L(j, j)), the rules by which evaluate() turns logs into values. InputError naming the first pair of
// `a` (row order) whose value is not finite.
GramMatrix gram_from_log_gram(KernelKind kind, const GramMatrix& log_gram, const PreparedFile& a);

// The kernel matrix of combined rows of `weights` (families/combined.hpp) under `kind`, from their parts'
// normalized (ppk_norm) n x n matrices: K = sum_i w_i N_i, over sum_i w_i = K(a, a) for ppk_norm; the
// parts of weight 0 are left out (and may be nullptr). The combined kernel up to the rounding of its
// log space: ppk select and PPKSVCCV form every weighting of a grid so, no kernel computed for it.
GramMatrix combined_gram(Eigen::Index n, const std::vector<const GramMatrix*>& parts, const std::vector<double>& weights,
                         KernelKind kind);

}  // namespace ppk::cli
