// Poisson rates from counts x_d (whole numbers >= 0; absent = 0), under the conjugate prior
// rate_d ~ Gamma(shape A, rate B):
//   ml:   rate_d = sum_i x_id / n
//   map:  rate_d = max(0, sum_i x_id + A - 1) / (n + B)
// (the posterior predictive is negative binomial, not a supported family).
// map with `prior_rates` r set (ppk fit poisson --prior pooled; docs/priors-by-evidence.md): the
// prior centred on the pooled rates, rate_d ~ Gamma(A, B_d = A / r_d) (mean r_d, shape A), and
//   mode:  rate_d = max(0, sum_i x_id + A - 1) / (n + A / r_d)
//   mean (pooled_posterior_mean):  rate_d = (sum_i x_id + A) / (n + A / r_d),
// the average of r_d with weight A / r_d pseudo-vectors and of the example's rate with weight n;
// a feature with r_d = 0 gets rate 0.
#pragma once

#include <memory>
#include <optional>

#include <Eigen/Core>

#include "ppk/estimate/estimate.hpp"

namespace ppk {

struct PoissonFitOptions {
  Method method = Method::ml;
  double prior_shape = 2.0;                    // A > 0
  double prior_rate = 1.0;                     // B >= 0
  std::optional<Eigen::VectorXd> prior_rates;  // r_d >= 0 (map only)
  bool pooled_posterior_mean = false;
};
std::unique_ptr<Estimator> poisson_estimator(const PoissonFitOptions& options);

}  // namespace ppk
