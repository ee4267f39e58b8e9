// Random matrices for the slds tests.
#pragma once

#include <random>

#include <Eigen/Dense>

namespace ppk {

// Independent standard normal entries.
inline Eigen::MatrixXd random_matrix(std::mt19937& rng, long rows, long cols) {
  std::normal_distribution<double> normal;
  return Eigen::MatrixXd::NullaryExpr(rows, cols, [&] { return normal(rng); });
}

// B B' / dim + floor I: symmetric positive definite.
inline Eigen::MatrixXd random_covariance(std::mt19937& rng, long dim, double floor) {
  const Eigen::MatrixXd b = random_matrix(rng, dim, dim);
  return b * b.transpose() / static_cast<double>(dim) + floor * Eigen::MatrixXd::Identity(dim, dim);
}

// A n x n with spectral norm 0.9: a stable transition (the state covariance stays bounded for any T).
inline Eigen::MatrixXd random_stable_transition(std::mt19937& rng, long n) {
  const Eigen::MatrixXd a = random_matrix(rng, n, n);
  return a * (0.9 / Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues()(0));
}

}  // namespace ppk
