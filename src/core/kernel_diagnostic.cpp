// The degenerate-kernel diagnostic (see kernel_diagnostic.hpp).
#include "ppk/core/kernel_diagnostic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <utility>

#include "ppk/core/model_fields.hpp"

namespace ppk {

double log_normalized_kernel(const PreparedModel& a, const PreparedModel& b) {
  return log_kernel(a, b) - 0.5 * (a.log_self_kernel() + b.log_self_kernel());
}

namespace {

// The pairs (i, j) sample_log_normalized_kernels looks at.
std::vector<std::pair<std::size_t, std::size_t>> sample_pairs(std::size_t rows, std::size_t cols, bool same,
                                                              std::size_t max_pairs) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  const std::size_t all = same ? rows * (rows - (rows > 0 ? 1 : 0)) / 2 : rows * cols;
  if (all == 0) return pairs;
  if (all <= max_pairs) {
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = same ? i + 1 : 0; j < cols; ++j) pairs.emplace_back(i, j);
    return pairs;
  }
  // A fixed seed and std::mt19937_64, whose output the standard fixes: the same rows give the same
  // sample everywhere. The modulo's bias is below rows / 2^64.
  std::mt19937_64 random(0x70706b5f6b65726eULL);
  while (pairs.size() < max_pairs) {
    const std::size_t i = static_cast<std::size_t>(random() % rows);
    const std::size_t j = static_cast<std::size_t>(random() % cols);
    if (!same || i != j) pairs.emplace_back(i, j);
  }
  return pairs;
}

}  // namespace

std::vector<double> sample_log_normalized_kernels(const std::vector<const PreparedModel*>& a,
                                                  const std::vector<const PreparedModel*>& b, bool same,
                                                  std::size_t max_pairs) {
  std::vector<double> values;
  for (const auto& [i, j] : sample_pairs(a.size(), b.size(), same, max_pairs)) {
    try {
      check_compatible(a[i]->model(), b[j]->model());
    } catch (const KernelDomainError&) {
      continue;
    }
    const double value = log_normalized_kernel(*a[i], *b[j]);
    if (!std::isnan(value)) values.push_back(value);  // NaN: an error where the kernel is used
  }
  return values;
}

KernelSpread kernel_spread(const std::vector<double>& log_values) {
  static const double kLogNearZero = std::log(kNearZero);
  static const double kLogNearOne = std::log1p(-kNearZero);
  KernelSpread spread;
  spread.pairs = log_values.size();
  for (double value : log_values) {
    if (value < kLogNearZero) ++spread.near_zero;
    if (value > kLogNearOne) ++spread.near_one;
  }
  if (!log_values.empty()) spread.median_log = kernel_quantiles(log_values)[4].log_value;
  return spread;
}

std::string degenerate_kernel_warning(const KernelSpread& spread, const KernelParams& params) {
  if (spread.pairs < 2) return "";
  const double needed = kDegenerateFraction * static_cast<double>(spread.pairs);
  const bool identity = static_cast<double>(spread.near_zero) >= needed;
  const bool constant = static_cast<double>(spread.near_one) >= needed;
  if (!identity && !constant) return "";
  const std::string seen =
      std::to_string(identity ? spread.near_zero : spread.near_one) + " of " + std::to_string(spread.pairs) +
      " normalised kernel values k(p,p')/sqrt(k(p,p) k(p',p')) between different rows are " +
      (identity ? "below 1e-6" : "above 1 - 1e-6") + " (median " + format_exp(spread.median_log, 2) +
      ") at rho = " + detail::format_number(params.rho) + " (-g) and T = " + std::to_string(params.length) + " (-d" +
      (params.length == 0 ? ", 0: each model's own length" : "") + ")";
  if (identity)
    return "the kernel matrix is nearly the identity: " + seen +
           "; every row looks unrelated to every other, and an SVM learns little from it. Try a smaller rho "
           "(-g 0.1, 0.01, ...), a smaller T (-d) for sequence models, or more regularisation in ppk fit (a "
           "larger ridge or a diagonal covariance for Gaussians, fewer states or components, more smoothing: alpha, "
           "smoothing); the summary of ppk gram shows the spread of the values";
  return "the kernel matrix is nearly constant: " + seen +
         "; every row looks like every other, and an SVM learns little from it. Try a larger rho (-g), a "
         "larger T (-d) for sequence models, or less smoothing in ppk fit (a smaller smoothing, alpha or "
         "prior count); the summary of ppk gram shows the spread of the values";
}

std::string format_exp(double log_value, int digits) {
  if (log_value == -std::numeric_limits<double>::infinity()) return "0";
  const double log10_value = log_value / std::log(10.0);
  double exponent = std::floor(log10_value);
  double mantissa = std::pow(10.0, log10_value - exponent);
  if (mantissa >= 10 - 0.5 * std::pow(10.0, 1 - digits)) {  // rounds to 10 with `digits` digits
    mantissa /= 10;
    exponent += 1;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*ge%+03.0f", digits, mantissa, exponent);
  return buffer;
}

std::vector<KernelQuantile> kernel_quantiles(std::vector<double> log_values) {
  std::vector<KernelQuantile> quantiles;
  if (log_values.empty()) return quantiles;
  std::sort(log_values.begin(), log_values.end());
  const std::size_t n = log_values.size();
  for (int percent : {0, 1, 10, 25, 50, 75, 90, 99, 100}) {
    const std::size_t rank = std::max<std::size_t>(1, (static_cast<std::size_t>(percent) * n + 99) / 100);
    quantiles.push_back({percent, log_values[rank - 1]});
  }
  return quantiles;
}

}  // namespace ppk
