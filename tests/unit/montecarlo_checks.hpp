// What the Monte Carlo tests share (test_montecarlo*.cpp): montecarlo rows around a model, draws
// through the sampling interface, frequencies of draws against probabilities, and the convergence of
// Monte Carlo estimates to a closed form.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "ppk/core/kernel.hpp"
#include "ppk/families/montecarlo.hpp"
#include "ppk/core/row.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk::checks {

inline std::unique_ptr<Model> clone(const Model& model) { return decode_row(encode_row(model)); }

inline std::unique_ptr<Model> monte_carlo(const Model& model, long samples, BetaRule beta = BetaRule::pooled) {
  return std::make_unique<MonteCarloModel>(clone(model), samples, beta);
}

// N draws from p^rho / Z through the model's sampling interface, with a fixed seed.
inline Eigen::MatrixXd draws_of(const Model& model, double rho, long n, std::uint64_t seed = 7) {
  const SamplableModel* samplable = as_samplable(model);
  EXPECT_NE(samplable, nullptr);
  SampleGenerator generator(seed);
  Eigen::MatrixXd draws(samplable->sample_size(), n);
  samplable->sample_tilted(rho, generator, draws);
  return draws;
}

// |frequency - probability| within 5 binomial standard errors for each outcome.
inline void expect_frequencies(const std::map<std::vector<double>, double>& probabilities, const Eigen::MatrixXd& draws,
                               const std::string& what) {
  std::map<std::vector<double>, double> counts;
  for (Eigen::Index i = 0; i < draws.cols(); ++i)
    ++counts[std::vector<double>(draws.col(i).data(), draws.col(i).data() + draws.rows())];
  const double n = static_cast<double>(draws.cols());
  double total = 0.0;
  for (const auto& [outcome, p] : probabilities) {
    total += p;
    EXPECT_NEAR(counts[outcome] / n, p, 5.0 * std::sqrt(p * (1.0 - p) / n) + 1e-12) << what;
  }
  EXPECT_NEAR(total, 1.0, 1e-12) << what;
  for (const auto& [outcome, count] : counts)
    EXPECT_EQ(probabilities.count(outcome), 1u) << what << ": an impossible draw";
}

using PairMaker = std::function<std::pair<std::unique_ptr<Model>, std::unique_ptr<Model>>(std::mt19937&)>;

// The closed form a Monte Carlo estimate converges to: log k_rho(p, p') of two unprepared models.
using ExactLogKernel = std::function<double(const Model&, const Model&, const KernelParams&)>;

// The family's own kernel.
inline double family_log_kernel(const Model& a, const Model& b, const KernelParams& params) {
  return log_kernel(PreparedModel(clone(a), params), PreparedModel(clone(b), params));
}

// Over `pair_count` random pairs (p, p'), the relative error |k_MC / k - 1| of the Monte Carlo row pair
// against the closed form k (`exact`, by default the family's kernel), for N in {100, 400, 1600, 6400}:
// its mean over the pairs falls like N^-1/2 (fitted slope of log error against log N within
// [-0.7, -0.3]), and at N = 6400 the signed errors average to 0 within 4 standard errors (no bias)
// and stay below 10% on average.
inline void expect_converges(const std::string& what, const PairMaker& make_pair, const KernelParams& params,
                             const ExactLogKernel& exact = family_log_kernel, int pair_count = 40) {
  const long kSampleCounts[] = {100, 400, 1600, 6400};
  std::mt19937 rng(2004);
  std::vector<double> mean_error;
  std::vector<double> signed_errors;
  std::vector<std::pair<std::unique_ptr<Model>, std::unique_ptr<Model>>> pairs;
  std::vector<double> exact_log_kernels;
  for (int k = 0; k < pair_count; ++k) {
    pairs.push_back(make_pair(rng));
    exact_log_kernels.push_back(exact(*pairs.back().first, *pairs.back().second, params));
  }
  for (long n : kSampleCounts) {
    double sum = 0.0;
    for (int k = 0; k < pair_count; ++k) {
      const PreparedModel a(monte_carlo(*pairs[k].first, n), params), b(monte_carlo(*pairs[k].second, n), params);
      ASSERT_NO_THROW(check_compatible(a.model(), b.model()));
      const double error = std::expm1(log_kernel(a, b) - exact_log_kernels[k]);
      ASSERT_TRUE(std::isfinite(error)) << what;
      sum += std::fabs(error);
      if (n == kSampleCounts[3]) signed_errors.push_back(error);
    }
    mean_error.push_back(sum / pair_count);
  }
  // Least-squares slope of log(mean error) against log N.
  double x_mean = 0.0, y_mean = 0.0;
  for (int i = 0; i < 4; ++i) {
    x_mean += std::log(static_cast<double>(kSampleCounts[i])) / 4.0;
    y_mean += std::log(mean_error[i]) / 4.0;
  }
  double sxy = 0.0, sxx = 0.0;
  for (int i = 0; i < 4; ++i) {
    const double dx = std::log(static_cast<double>(kSampleCounts[i])) - x_mean;
    sxy += dx * (std::log(mean_error[i]) - y_mean);
    sxx += dx * dx;
  }
  const double slope = sxy / sxx;
  EXPECT_GE(slope, -0.7) << what << ": mean errors " << mean_error[0] << " " << mean_error[1] << " " << mean_error[2]
                         << " " << mean_error[3];
  EXPECT_LE(slope, -0.3) << what << ": mean errors " << mean_error[0] << " " << mean_error[1] << " " << mean_error[2]
                         << " " << mean_error[3];
  double bias = 0.0, square = 0.0;
  for (double e : signed_errors) bias += e / pair_count;
  for (double e : signed_errors) square += (e - bias) * (e - bias) / (pair_count - 1);
  EXPECT_LE(std::fabs(bias), 4.0 * std::sqrt(square / pair_count)) << what << ": bias " << bias;
  EXPECT_LT(mean_error[3], 0.1) << what;
}

inline double normal(std::mt19937& rng, double sd) { return std::normal_distribution<double>(0.0, sd)(rng); }
inline double uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

template <class Make>
inline PairMaker pairs_of(Make make) {
  return [make](std::mt19937& rng) { return std::make_pair(make(rng), make(rng)); };
}

}  // namespace ppk::checks
