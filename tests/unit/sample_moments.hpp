// The sample mean and covariance of simulated vectors against a Gaussian's, for the tests of models
// whose observations are jointly Gaussian (an LDS's joint, a linear Gaussian DAG's marginal).
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include <Eigen/Dense>

namespace ppk::checks {

// The mean and covariance of `samples` vectors drawn by draw() against `mean` and `cov`: each entry
// within 5 standard errors, the covariance taken about the exact mean (the variance of a product of
// zero-mean Gaussians: S_ii S_jj + S_ij^2).
template <class Draw>
void expect_sample_moments(const Eigen::VectorXd& mean, const Eigen::MatrixXd& cov, long samples, Draw draw) {
  const Eigen::Index size = mean.size();
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(size);
  Eigen::MatrixXd products = Eigen::MatrixXd::Zero(size, size);
  for (long i = 0; i < samples; ++i) {
    const Eigen::VectorXd x = draw();
    sum += x;
    products += (x - mean) * (x - mean).transpose();  // about the exact mean
  }
  const Eigen::VectorXd sample_mean = sum / samples;
  const Eigen::MatrixXd sample_cov = products / samples;
  for (Eigen::Index i = 0; i < size; ++i) {
    EXPECT_NEAR(sample_mean[i], mean[i], 5.0 * std::sqrt(cov(i, i) / samples)) << i;
    for (Eigen::Index j = 0; j < size; ++j)
      EXPECT_NEAR(sample_cov(i, j), cov(i, j), 5.0 * std::sqrt((cov(i, i) * cov(j, j) + cov(i, j) * cov(i, j)) / samples))
          << i << ", " << j;
  }
}

}  // namespace ppk::checks
