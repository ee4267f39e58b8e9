// A degenerate-kernel diagnostic. The normalised kernel
//     c(p, p') = k(p, p') / sqrt(k(p, p) k(p', p'))      in [0, 1] by Cauchy-Schwarz
// between different rows tells how alike the kernel finds two models. When nearly every c is
// tiny, the Gram matrix of ppk_norm is nearly the identity (every row unrelated to every other);
// when nearly every c is close to 1, it is nearly constant (every row alike). An SVM learns little
// from either, and the cure is a different rho (-g), T (-d) or fit. The values span hundreds of
// orders of magnitude, so everything here is in log space: log c = log k(p, p') - (log k(p, p) +
// log k(p', p')) / 2, from the log kernels of kernel.hpp.
//
// One implementation for `ppk gram` (its warning and --summary) and the LIBSVM plugin (its
// warning before svm-train trains).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ppk/core/kernel.hpp"
#include "ppk/core/model.hpp"

namespace ppk {

// log c(a, b); -inf when k(a, b) = 0 (e.g. multinomials of disjoint support). Requires
// check_compatible(a.model(), b.model()).
double log_normalized_kernel(const PreparedModel& a, const PreparedModel& b);

// The thresholds of the warning: the Gram matrix is nearly the identity when at least
// kDegenerateFraction of the values c are below kNearZero, and nearly constant when at least that
// fraction is above 1 - kNearZero.
inline constexpr double kNearZero = 1e-6;
inline constexpr double kDegenerateFraction = 0.95;
// How many pairs the warning looks at (a few hundred kernel evaluations: cheap next to training).
inline constexpr std::size_t kDiagnosticPairs = 200;

// log c for pairs of models: a_i against b_j, i != j when `same` (a and b are one list). Every
// pair (i < j when `same`) when there are at most max_pairs, else max_pairs pairs drawn uniformly
// with a fixed seed, so that the same rows always give the same values. Pairs without a kernel
// (check_compatible) are skipped.
std::vector<double> sample_log_normalized_kernels(const std::vector<const PreparedModel*>& a,
                                                  const std::vector<const PreparedModel*>& b, bool same,
                                                  std::size_t max_pairs = kDiagnosticPairs);

// What a set of values log c says: how many are near 0 and near 1.
struct KernelSpread {
  std::size_t pairs = 0;
  std::size_t near_zero = 0;  // c < kNearZero
  std::size_t near_one = 0;   // c > 1 - kNearZero
  double median_log = 0;      // the median of log c (nearest rank), when pairs > 0
};
KernelSpread kernel_spread(const std::vector<double>& log_values);

// The warning, without a program prefix, when the values are nearly all near 0 (the Gram matrix
// is nearly the identity) or near 1 (nearly constant): what was seen, rho and T, what to try.
// Empty when neither (or with fewer than 2 values).
std::string degenerate_kernel_warning(const KernelSpread& spread, const KernelParams& params);

// exp(log_value) as "m.mmmme-249" with `digits` significant digits, for any log_value (below the
// smallest double too); "0" for -inf.
std::string format_exp(double log_value, int digits);

// The percentiles 0 (the minimum), 1, 10, 25, 50, 75, 90, 99 and 100 (the maximum) of log c, each
// the value of rank ceil(percent n / 100) (at least 1) among the n values sorted: an order
// statistic, so exp of a percentile of log c is the same percentile of c. Empty for no values.
struct KernelQuantile {
  int percent;
  double log_value;
};
std::vector<KernelQuantile> kernel_quantiles(std::vector<double> log_values);

}  // namespace ppk
