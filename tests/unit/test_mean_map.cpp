// Mean-map kernels between sets of vectors (docs/design.md "Mathematics", Mean embeddings; estimate.hpp,
// mean_map_bandwidth): kernel density estimates of bandwidth h = sigma^2/2 fitted to random sets
// have the rho = 1 kernel (2 pi sigma^2)^(-D/2) (1/(n m)) sum_ij exp(-|x_i - y_j|^2 / (2 sigma^2)),
// the RBF mean-map inner product times a constant, and ppk_norm is the normalised double sum. The
// oracle is the double sum written out below over the sets themselves, not over the fitted models.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "estimate_helpers.hpp"
#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk {
namespace {

using Set = std::vector<std::vector<double>>;

// n points in `dim` dimensions around a random centre, with a random spread per coordinate.
Set random_set(std::size_t n, std::size_t dim, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> spread(0.2, 1.5);
  std::vector<double> centre(dim), scale(dim);
  for (std::size_t d = 0; d < dim; ++d) {
    centre[d] = normal(rng);
    scale[d] = spread(rng);
  }
  Set set(n, std::vector<double>(dim));
  for (auto& x : set)
    for (std::size_t d = 0; d < dim; ++d) x[d] = centre[d] + scale[d] * normal(rng);
  return set;
}

// <mu_X, mu_Y> = (1/(n m)) sum_ij exp(-|x_i - y_j|^2 / (2 sigma^2)).
double mean_map_inner_product(const Set& x, const Set& y, double sigma) {
  double sum = 0.0;
  for (const auto& a : x)
    for (const auto& b : y) {
      double squared_distance = 0.0;
      for (std::size_t d = 0; d < a.size(); ++d) squared_distance += (a[d] - b[d]) * (a[d] - b[d]);
      sum += std::exp(-squared_distance / (2 * sigma * sigma));
    }
  return sum / static_cast<double>(x.size() * y.size());
}

PreparedModel kde_of(const Set& set, double sigma) {
  const auto estimator = kde_estimator(KdeFitOptions{mean_map_bandwidth(sigma)});
  std::vector<SparseVector> vectors;
  for (const auto& x : set) vectors.push_back(sparse(x));
  return PreparedModel(estimate(*estimator, vectors, static_cast<long>(set.front().size())), with_rho(1.0));
}

TEST(MeanMap, KdeKernelIsTheRbfDoubleSumTimesTheConstant) {
  std::mt19937_64 rng(20261123);
  const std::vector<std::size_t> sizes = {1, 2, 5, 9, 14};
  for (std::size_t dim = 1; dim <= 3; ++dim) {
    for (double sigma : {0.6, 1.0, 2.5}) {
      std::vector<Set> sets;
      std::vector<PreparedModel> models;
      for (std::size_t n : sizes) {
        sets.push_back(random_set(n, dim, rng));
        models.push_back(kde_of(sets.back(), sigma));
      }
      const double constant = std::pow(2 * M_PI * sigma * sigma, -static_cast<double>(dim) / 2);
      for (std::size_t i = 0; i < sets.size(); ++i)
        for (std::size_t j = 0; j < sets.size(); ++j) {
          const std::string what = "D = " + std::to_string(dim) + ", sigma = " + std::to_string(sigma) + ", sets of " +
                                   std::to_string(sizes[i]) + " and " + std::to_string(sizes[j]);
          const double inner = mean_map_inner_product(sets[i], sets[j], sigma);
          EXPECT_NEAR(kernel(models[i], models[j]), constant * inner, 1e-12 * constant * inner) << what;
          const double normalized = inner / std::sqrt(mean_map_inner_product(sets[i], sets[i], sigma) *
                                                      mean_map_inner_product(sets[j], sets[j], sigma));
          EXPECT_NEAR(normalized_kernel(models[i], models[j]), normalized, 1e-12 * normalized) << what;
        }
      expect_positive_semidefinite(models, "mean map, D = " + std::to_string(dim) + ", sigma = " + std::to_string(sigma));
    }
  }
}

TEST(MeanMap, BandwidthIsHalfTheSquaredWidth) {
  EXPECT_EQ(mean_map_bandwidth(2.0), 2.0);
  EXPECT_EQ(mean_map_bandwidth(0.5), 0.125);
  for (double sigma : {0.0, -1.0, std::nan("")}) {
    const std::string message = estimation_error([&] { mean_map_bandwidth(sigma); });
    EXPECT_NE(message.find("sigma must be a finite number > 0"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace ppk
