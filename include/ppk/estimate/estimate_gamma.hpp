// Gamma shapes a_d and scales b_d from values x_d > 0 (every coordinate present). Sufficient
// statistics: sum x and sum log x. ml: b = x-bar / a, and a solves
// log a - digamma(a) = log x-bar - mean(log x) (Newton's method from Minka's starting point; the
// solution exists when the values are not all equal). map: the mode in the natural parameters
// under the conjugate prior p(theta) ~ exp(theta . nu0 E[T] - nu0 K(theta)) with E[T] the
// statistics of Gamma(prior_shape, prior_scale): the ML estimate from the data plus nu0
// pseudo-observations with sum x = nu0 A0 B0 and sum log x = nu0 (digamma(A0) + log B0).
// map with `prior_centre` set (ppk fit gamma --prior pooled; docs/priors-by-evidence.md): the
// pseudo-observations have the training file's pooled statistics instead, sum x = nu0 m_d and
// sum log x = nu0 l_d (prior_centre's columns m and l, D x 2), the mode of the posterior under the
// conjugate prior centred on them (pooled_priors.hpp, GammaShapeEvidence).
#pragma once

#include <memory>
#include <optional>

#include <Eigen/Core>

#include "ppk/estimate/estimate.hpp"

namespace ppk {

struct GammaFitOptions {
  Method method = Method::ml;
  double prior_shape = 1.0;                     // A0 > 0
  double prior_scale = 1.0;                     // B0 > 0
  double prior_count = 1.0;                     // nu0 > 0
  std::optional<Eigen::MatrixXd> prior_centre;  // D x 2: pooled mean of x, pooled mean of log x (map only)
};
std::unique_ptr<Estimator> gamma_estimator(const GammaFitOptions& options);

}  // namespace ppk
