// Dirichlet parameters alpha_d from probability vectors (every x_d > 0, sum 1 within 1e-6).
// Sufficient statistics: sum log x. ml: the fixed point digamma(alpha_d) = digamma(sum alpha) +
// mean(log x_d) (Minka 2000), which exists when the vectors are not all equal. map: as for the
// gamma, nu0 pseudo-observations with the statistics of Dirichlet(A0, .., A0):
// sum log x_d = nu0 (digamma(A0) - digamma(D A0)).
// map with `prior_log_means` l set (ppk fit dirichlet --prior pooled; docs/priors-by-evidence.md):
// the pseudo-observations have the training file's pooled statistics, sum log x_d = nu0 l_d.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/estimate.hpp"

namespace ppk {

struct DirichletFitOptions {
  Method method = Method::ml;
  double prior_alpha = 1.0;                        // A0 > 0
  double prior_count = 1.0;                        // nu0 > 0
  std::optional<Eigen::VectorXd> prior_log_means;  // l_d, the pooled mean of log x_d (map only)
};
std::unique_ptr<Estimator> dirichlet_estimator(const DirichletFitOptions& options);

// The strength nu0 of dirichlet --prior pooled, chosen by held-out likelihood: the conjugate
// prior's normaliser is a D-dimensional integral, so its evidence is not computed. Each example's
// vectors are left out in turn; the rest, with nu0 pseudo-observations of mean log x = l, give the
// map alpha, and the left-out vector is scored by its Dirichlet log density. `log_vectors` holds
// each example's log x as an n x D matrix; examples of one vector are skipped.
double dirichlet_held_out_log_likelihood(const std::vector<Eigen::MatrixXd>& log_vectors,
                                         const Eigen::VectorXd& log_means, double count);
// The nu0 of the largest total over the grid 2^k, k = -3..10 (scores in grid order).
// EstimationError when no example has 2 or more vectors.
struct DirichletPriorChoice {
  double count = 0;
  std::vector<std::pair<double, double>> scores;  // (nu0, held-out log likelihood)
};
DirichletPriorChoice choose_dirichlet_prior_count(const std::vector<Eigen::MatrixXd>& log_vectors,
                                                  const Eigen::VectorXd& log_means);

}  // namespace ppk
