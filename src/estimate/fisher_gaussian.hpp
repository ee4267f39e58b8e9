// Internal to libppk: the Fisher score blocks (fisher.hpp) of Gaussian states, an HMM's Gaussian
// emissions (fisher_hmm.cpp) and a mixture's components (fisher_mixture.cpp). A state (component)
// q, N(mu_q, Sigma_q) with P_q = Sigma_q^-1, weighted by gamma_t(q) (the HMM's state posteriors, the
// mixture's responsibilities); with residuals e_t = x_t - mu_q, N_q = sum_t gamma_t(q) and
// S_q = sum_t gamma_t(q) e_t e_t':
//     means, by mu_q itself:  d log p / d mu_q = P_q sum_t gamma_t(q) e_t;
//     covariances:
//       isotropic (Sigma = v I), by log v:        (tr S_q / v - N_q D) / 2;
//       diagonal (Sigma = diag v), by log v_d:    (S_q,dd / v_d - N_q) / 2 for each d;
//       full, by the entries of its upper triangle (fisher.hpp) with P_q, S_q and N_q.
// State q's block: means[q][d] (d = 0..D-1) followed by its covariance block, isotropic
// covariances[q] (log v), diagonal covariances[q][d][d] (log v_d), full covariances[q][i][j] for
// i <= j, row by row of the upper triangle; each only when selected.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "estimate/gaussian_em.hpp"
#include "ppk/core/model.hpp"

namespace ppk::detail {

struct GaussianStateScores {
  // The Gaussians `models` (EstimationError naming the first that is not a Gaussian of the first's
  // form, "`what` 2 ..."), with their means and covariances selected or not.
  GaussianStateScores(const std::vector<const Model*>& models, const std::string& what, bool means, bool covariances);

  // State q's feature names, appended.
  void name_state(long q, std::vector<std::string>& names) const;
  // State q's scores with gamma_t(q) = weights(t) from index j of out; returns the next index.
  Eigen::Index write_state(const Eigen::MatrixXd& x, const Eigen::Ref<const Eigen::VectorXd>& weights, std::size_t q,
                           Eigen::VectorXd& out, Eigen::Index j) const;

  GaussianComponents gaussians;             // their form, mu_q, dense Sigma_q
  std::vector<Eigen::MatrixXd> precisions;  // P_q = Sigma_q^-1
  long dim = 0;                             // D
  bool means = false, covariances = false;
};

}  // namespace ppk::detail
