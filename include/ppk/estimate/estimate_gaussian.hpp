// Gaussian N(mu, Sigma) from the example's n vectors, x-bar their mean, S = sum_i (x_i - x-bar)(x_i - x-bar)'.
//   ml:   mu = x-bar; Sigma = S/n + ridge I (full), diag(S)/n + ridge I (diagonal),
//         (trace(S)/(n D) + ridge) I (isotropic). Without a ridge the ML covariance must be
//         non-singular: a diagonal or isotropic fit needs n >= 2 and no coordinate (resp. not every
//         coordinate) constant; a full fit needs n >= D + 1 and vectors spanning R^D (numerically:
//         smallest eigenvalue > D * machine epsilon * largest).
//   map:  the conjugate prior mu | Sigma ~ N(m0 1, Sigma / k0) with Sigma ~ inverse-Wishart(nu0,
//         nu0 s0 I) (full), or each variance (diagonal) or the one variance (isotropic) ~ scaled
//         inverse-chi^2(nu0, s0). With m = (n x-bar + k0 m0 1)/(n + k0) and
//         B = k0 n / (k0 + n) (x-bar - m0 1)(x-bar - m0 1)', the joint posterior mode is mu = m and
//           full       Sigma = (nu0 s0 I + S + B) / (nu0 + n + D + 2)
//           diagonal   Sigma_dd = (nu0 s0 + S_dd + B_dd) / (nu0 + n + 3)
//           isotropic  sigma^2 = (nu0 s0 + trace(S + B)) / (nu0 + n D + D + 2),  plus the ridge.
// map with `prior_centre` C set (ppk fit gaussian --prior pooled; docs/priors-by-evidence.md): a
//         flat prior on mu and the inverse-Wishart prior of pooled_priors.hpp, Sigma ~
//         IW(nu, (nu - D - 1) C) with nu = prior_count > D + 1 (full), or each variance (diagonal)
//         or the one variance (isotropic) ~ IW_1(nu, (nu - 2) c), nu > 2: E[Sigma] = C. The joint
//         posterior mode is mu = x-bar and
//           full       Sigma = ((nu - D - 1) C + S) / (nu + n + D + 1)
//           diagonal   Sigma_dd = ((nu - 2) C_d + S_dd) / (nu + n + 2)
//           isotropic  sigma^2 = ((nu - 2) c + trace(S)) / (nu + n D + 2),  plus the ridge.
//         C is D x D (full), D x 1 (diagonal: the variances) or 1 x 1 (isotropic).
//         With `pooled_posterior_mean`, Sigma is instead its posterior mean given the scatter (mu
//         integrated out: Sigma | S ~ IW(nu + n - 1, (nu - p - 1) C + S)), mu = x-bar:
//           full       Sigma = ((nu - D - 1) C + S) / (nu + n - D - 2)
//           diagonal   Sigma_dd = ((nu - 2) C_d + S_dd) / (nu + n - 3)
//           isotropic  sigma^2 = ((nu - 2) c + trace(S)) / (nu + (n - 1) D - 2),
//         the average of C with weight nu - p - 1 and of the unbiased S / (n - 1) with weight n - 1
//         (the mode divides by more than the weights' sum, shrinking small examples' covariances).
// With `variance` V set, only the mean is estimated and Sigma = V I (a single vector x gives
// N(x, V I), whose kernels are RBF kernels in x). Then ml: mu = x-bar; map: mu = m under the
// prior mu ~ N(m0 1, V / k0 I); posterior: the predictive N(m, V (1 + 1/(n + k0)) I).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/pooled_priors.hpp"
#include "ppk/families/gaussian.hpp"

namespace ppk {

struct GaussianFitOptions {
  CovarianceForm covariance = CovarianceForm::full;
  std::optional<double> variance;  // > 0; then `covariance` must be isotropic and ridge 0
  double ridge = 0.0;              // >= 0, added to the covariance diagonal
  Method method = Method::ml;
  double prior_mean = 0.0;                      // m0 (every coordinate)
  double prior_strength = 0.0;                  // k0 >= 0: pseudo-observations of the mean (0: a flat prior)
  double prior_variance = 1.0;                  // s0 > 0
  double prior_count = 1.0;                     // nu0 > 0: pseudo-observations of the variance (with prior_centre: nu)
  std::optional<Eigen::MatrixXd> prior_centre;  // C, the centre of the pooled prior (map only)
  bool pooled_posterior_mean = false;           // with prior_centre: the posterior mean, not the mode
};
std::unique_ptr<Estimator> gaussian_estimator(const GaussianFitOptions& options);

// The pooled prior's centre from the examples' statistics (gaussian_estimator(...).statistics()
// in the covariance form of the fit): the pooled within-example covariance
//   C = sum_i S_i / sum_i (n_i - 1)            (full D x D; diagonal: its diagonal, D x 1;
//   c = sum_i trace(S_i) / (D sum_i (n_i - 1))  isotropic, 1 x 1),
// an unbiased estimate of E[Sigma] under the prior above whatever nu is. EstimationError when no
// example has two vectors or the centre is singular (a coordinate constant within every example).
Eigen::MatrixXd gaussian_pooled_centre(const std::vector<Statistics>& examples, CovarianceForm form);
// The evidence of the examples under the prior centred on C, as a function of nu: with the flat
// prior on each mean integrated out, an example of n >= 2 vectors contributes its scatter S with
// m = n - 1 degrees of freedom (full: one D x D group; diagonal: D groups S_dd; isotropic: one
// group trace(S) with m = (n - 1) D); the omitted constant -(D/2) log n per example does not
// depend on nu. Examples of one vector carry no information on their covariance.
InverseWishartEvidence gaussian_prior_evidence(const std::vector<Statistics>& examples, CovarianceForm form,
                                               const Eigen::MatrixXd& centre);

}  // namespace ppk
