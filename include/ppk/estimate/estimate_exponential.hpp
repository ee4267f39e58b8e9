// Exponential scales b_d (means) from values x_d >= 0, under the conjugate prior on the rate
// 1/b_d ~ Gamma(shape A, rate B):
//   ml:   b_d = sum_i x_id / n                                    (needs a positive sum)
//   map:  b_d = (sum_i x_id + B) / (n + A - 1)                    (the mode of the rate)
// (the posterior predictive is a Lomax distribution, not a supported family).
// map with `prior_scales` bbar set (ppk fit exponential --prior pooled; docs/priors-by-evidence.md):
// the prior centred on the pooled scales, 1/b_d ~ Gamma(A, B_d = (A - 1) bbar_d), A > 1, whose prior
// mean of the scale E[b_d] = bbar_d; the posterior of the rate is Gamma(A + n, B_d + sum_i x_id) and
//   mean (pooled_posterior_mean):  b_d = (sum_i x_id + (A - 1) bbar_d) / (n + A - 1),
//   mode (of the scale's inverse-gamma posterior):  b_d = (sum_i x_id + (A - 1) bbar_d) / (n + A + 1);
// the mean is the average of bbar_d with weight A - 1 pseudo-vectors and of the example's mean
// with weight n.
#pragma once

#include <memory>
#include <optional>

#include <Eigen/Core>

#include "ppk/estimate/estimate.hpp"

namespace ppk {

struct ExponentialFitOptions {
  Method method = Method::ml;
  double prior_shape = 2.0;                     // A > 0
  double prior_rate = 1.0;                      // B >= 0
  std::optional<Eigen::VectorXd> prior_scales;  // bbar_d >= 0 (map only)
  bool pooled_posterior_mean = false;
};
std::unique_ptr<Estimator> exponential_estimator(const ExponentialFitOptions& options);

}  // namespace ppk
