// Emission models in plain numbers, shared by the tests of models made of other models (HMMs,
// Bayesian networks): one-event multinomials and 1-D Gaussians, and the 1-D Gaussian kernel written
// out independently of src/families/gaussian.cpp.
#pragma once

#include <cmath>
#include <memory>
#include <vector>

#include <Eigen/Core>

#include "ppk/families/gaussian.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk {

inline std::unique_ptr<Model> one_event_multinomial(const std::vector<double>& p) {
  return std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(p), Trials{});
}

inline std::unique_ptr<Model> gaussian_1d(const std::vector<double>& mean_variance) {
  return GaussianModel::isotropic(Eigen::VectorXd::Constant(1, mean_variance[0]), mean_variance[1]);
}

// The 1-D Gaussian kernel (docs/design.md, JMLR eq. 5 with D = 1): with s+ = 1/(1/v + 1/v'), m+ = m/v + m'/v',
// k = (2 pi)^((1 - 2 rho)/2) rho^(-1/2) s+^(1/2) (v v')^(-rho/2) exp(-rho/2 (m^2/v + m'^2/v' - m+^2 s+)).
inline double gaussian_1d_kernel(const std::vector<double>& p, const std::vector<double>& q, double rho) {
  const double m = p[0], v = p[1], m2 = q[0], v2 = q[1];
  const double s_plus = 1.0 / (1.0 / v + 1.0 / v2), m_plus = m / v + m2 / v2;
  return std::pow(2.0 * M_PI, (1.0 - 2.0 * rho) / 2.0) / std::sqrt(rho) * std::sqrt(s_plus) *
         std::pow(v * v2, -rho / 2.0) * std::exp(-rho / 2.0 * (m * m / v + m2 * m2 / v2 - m_plus * m_plus * s_plus));
}

}  // namespace ppk
