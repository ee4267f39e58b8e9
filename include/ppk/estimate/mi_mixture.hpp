// The mediator of Seeger's diagonal mixture MI kernel (NIPS 2001, sections 2.1-2.2, eq. 6 with
// W = diag(E_med[pi_s])):
//   Q(x1, x2) = sum_s E_med[pi_s] integral P(x1 | mu_s) P(x2 | mu_s) P_med(mu_s) dmu_s,
//   K = Q(x1, x2) / sqrt(Q(x1, x1) Q(x2, x2)),
// for the likelihood P(x | mu_s) = N(x | mu_s, Sigma_s) of component s of a Gaussian mixture.
//
// The documented approximation: a mixture of K Gaussians is fitted to the unlabeled vectors by EM
// (fit_gaussian_mixture, estimate.hpp); its covariances Sigma_s and responsibilities r_is are point
// estimates held fixed, and only the component means and the weights are integrated. With
// N_s = sum_i r_is, n = sum_s N_s and xbar_s = sum_i r_is x_i / N_s, the flat prior and model-trust
// scaling (Seeger eq. 5: the likelihood raised to lambda / n, lambda > 0):
//   P_med(mu_s) proportional to prod_i N(x_i | mu_s, Sigma_s)^(r_is lambda / n)
//               = N(mu_s | xbar_s, V_s),  V_s = Sigma_s n / (lambda N_s),
//   P_med(pi) = Dirichlet(alpha0 + lambda N_s / n),
//   E_med[pi_s] = (alpha0 + lambda N_s / n) / (K alpha0 + lambda).
//
// The row of a datum x (Seeger eq. 6, W = diag(E_med[pi_s])) is an mi row (mi.hpp) of K blocks:
// block s is the Gaussian MI block of x for the likelihood N(x | mu_s, Sigma_s) and the mediator
// N(mu_s | xbar_s, V_s) (gaussian_mi_block), its log weight raised by (1/2) log E_med[pi_s]. The
// rho = 1 kernel between the rows of x1 and x2 is then sum_s E_med[pi_s] <g^s_x1, g^s_x2> = Q(x1, x2)
// exactly, and its normalised form (`-t ppk_norm -g 1`) the diagonal mixture MI kernel K.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>

#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/families/mi.hpp"

namespace ppk {

// One component: what EM leaves behind for it.
struct MixtureMediatorComponent {
  double size = 0.0;           // N_s = sum_i r_is > 0
  Eigen::VectorXd mean;        // xbar_s = sum_i r_is x_i / N_s
  Eigen::MatrixXd covariance;  // Sigma_s, the likelihood's covariance (symmetric positive definite)
};

class MixtureMediator : public MiMediator {
 public:
  // Throws ModelError unless there is at least one component, all of one dimension, with finite
  // means, sizes N_s > 0 and positive definite covariances, lambda > 0 and prior_alpha > 0.
  MixtureMediator(std::vector<MixtureMediatorComponent> components, double lambda, double prior_alpha);
  // From the unlabeled vectors x (n x D), responsibilities r (n x K, rows summing to 1) and the
  // components' covariances Sigma_s.
  static MixtureMediator from_responsibilities(const Eigen::MatrixXd& x, const Eigen::MatrixXd& responsibilities,
                                               const std::vector<Eigen::MatrixXd>& covariances, double lambda,
                                               double prior_alpha);

  // EM on the unlabeled points (each of dimension `dim`) with `options`, then the mediator of the
  // fitted mixture's responsibilities and covariances. MiPointError for a point of another
  // dimension, EstimationError from EM, ModelError for lambda or prior_alpha.
  static MixtureMediator fit(long dim, const MixtureFitOptions& options, const std::vector<Eigen::VectorXd>& unlabeled,
                             double lambda, double prior_alpha);

  std::size_t size() const;   // K
  long dim() const override;  // D
  double lambda() const;
  double prior_alpha() const;  // alpha0
  const MixtureMediatorComponent& component(std::size_t s) const;
  // E_med[pi_s] = (alpha0 + lambda N_s / n) / (K alpha0 + lambda).
  double expected_weight(std::size_t s) const;
  // V_s = Sigma_s n / (lambda N_s), the covariance of P_med(mu_s).
  Eigen::MatrixXd mean_covariance(std::size_t s) const;

  // The row of x described above; ModelError unless x has dimension D.
  std::unique_ptr<MiModel> row(const Eigen::VectorXd& x) const override;

  // {"mediator":"mixture","dim":D,"lambda":L,"prior_alpha":A,
  //  "components":[{"size":N_s,"mean":[..],"covariance":[[..],..]},..]}
  nlohmann::json to_json() const override;
  // The object above; ModelError naming the field that is missing or wrong.
  static MixtureMediator from_json(const nlohmann::json& object);

 private:
  std::vector<MixtureMediatorComponent> components_;
  double lambda_, prior_alpha_, count_;
};

}  // namespace ppk
