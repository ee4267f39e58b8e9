// Internal to libppk: the Gaussian pieces of EM that Gaussian mixtures and Gaussian-emission HMMs
// share (estimate_mixture.cpp, estimate_hmm.cpp). K Gaussians N(mu_k, Sigma_k) with covariances in
// one form; an E-step gives responsibilities r_ik (the posterior of component or hidden state k for
// vector i), and the M-step for the Gaussians is the same in both models:
//   N_k = sum_i r_ik,  mu_k = sum_i r_ik x_i / N_k,  Sigma_k = (S_k + R I) / N_k  (full),
//   diag(S_k + R I) / N_k (diagonal), (trace(S_k) + R D) / (N_k D) I (isotropic),
// S_k = sum_i r_ik (x_i - mu_k)(x_i - mu_k)', which maximises
//   sum_i sum_k r_ik log N(x_i | mu_k, Sigma_k) - (R/2) sum_k trace(Sigma_k^-1):
// EM on an objective carrying that ridge penalty never decreases it. With an inverse-Wishart prior
// on every covariance (CovariancePrior, estimate.hpp) the M-step is the MAP one there, maximising
// the same plus sum_k log IW(Sigma_k).
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/data.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/model.hpp"

namespace ppk::detail {

// The vectors as the rows of an n x D matrix (absent entries 0); EstimationError if not finite.
Eigen::MatrixXd data_matrix(const std::vector<SparseVector>& vectors, long dim);

// Examples of vectors (the rows of each matrix) stacked into one n x D matrix, example s the rows
// [bounds[s], bounds[s + 1]). EstimationError naming the example ("NOUN 3", or "the NOUN" when there
// is one) that is empty, has a value that is not finite or another number of columns, and when
// there are none ("there are no NOUNs to fit").
struct StackedRows {
  Eigen::MatrixXd x;
  std::vector<Eigen::Index> bounds{0};
};
StackedRows stack_rows(const std::vector<Eigen::MatrixXd>& examples, const std::string& noun);

// The default ridge R: 1e-6 times the mean per-coordinate variance of the rows of x (1e-6 if
// they are all equal).
double default_ridge(const Eigen::MatrixXd& x);

struct GaussianComponents {
  CovarianceForm form = CovarianceForm::full;
  std::vector<Eigen::VectorXd> means;        // mu_k
  std::vector<Eigen::MatrixXd> covariances;  // Sigma_k, D x D in `form`
};

// log N(x_i | mu_k, Sigma_k) for every row i of x and every component k (n x K).
// EstimationError if a covariance is not positive definite.
Eigen::MatrixXd log_densities(const Eigen::MatrixXd& x, const GaussianComponents& c);

// The E-step of a mixture with weights w_k: log_rows(i) = log sum_k w_k N(x_i | mu_k, Sigma_k) and the
// responsibilities r_ik = w_k N(x_i | mu_k, Sigma_k) / exp(log_rows(i)) (n x K), by log-sum-exp.
struct MixtureEStep {
  Eigen::MatrixXd responsibilities;
  Eigen::VectorXd log_rows;
};
MixtureEStep mixture_e_step(const Eigen::MatrixXd& x, const Eigen::VectorXd& weights, const GaussianComponents& c);

// (R/2) sum_k trace(Sigma_k^-1), the penalty the ridge R adds to the objective.
double ridge_penalty(const GaussianComponents& c, double ridge);

// sum_k log IW(Sigma_k) under `prior` (0 when null): the normalised densities of estimate.hpp's
// CovariancePrior (diagonal: the product of the D one-dimensional ones).
double covariance_log_prior(const GaussianComponents& c, const CovariancePrior* prior);

// A component's responsibility-weighted statistics: N_k = sum_i r_ik, mu_k = sum_i r_ik x_i / N_k and
// S_k = sum_i r_ik (x_i - mu_k)(x_i - mu_k)' (mean and scatter left empty when N_k = 0); for the
// diagonal and isotropic forms, which use only S_k's diagonal, that diagonal alone (O(n D), not O(n D²)).
struct WeightedMoments {
  double count = 0.0;
  Eigen::VectorXd mean;
  Eigen::MatrixXd scatter;
};
WeightedMoments weighted_moments(const Eigen::MatrixXd& x, const Eigen::VectorXd& responsibilities, CovarianceForm form);

// log p(y_j | x, r_k, nu, C) for every row j of y and component k (m x K): the posterior predictive
// density of a new vector from component k given the vectors x weighted by its responsibilities,
// under a flat prior on mu_k and Sigma_k ~ IW(nu, Psi), Psi = (nu - p - 1) C + R I (the ridge R
// enters the objective as -(R/2) tr Sigma^-1, i.e. as R I added to Psi). The posterior is
// Sigma_k | x ~ IW(nu + N_k - 1, Psi + S_k), mu_k | Sigma_k ~ N(mu-bar_k, Sigma_k / N_k), so
// y - mu-bar_k ~ N(0, (1 + 1/N_k) Sigma_k) and, integrating Sigma_k, y is multivariate Student t:
//   full       dof nu + N_k - D, scale (Psi + S_k)(1 + 1/N_k) / dof;
//   diagonal   per coordinate, dof nu + N_k - 1, scale ((nu - 2) C_d + S_k,dd + R)(1 + 1/N_k) / dof;
//   isotropic  dof nu + (N_k - 1) D, scale ((nu - 2) c + tr S_k + R D)(1 + 1/N_k) / dof times I
// (Gelman et al., Bayesian Data Analysis, section 3.6). A component with N_k = 0 has no proper
// predictive (the mean's prior is flat): -infinity.
Eigen::MatrixXd predictive_log_densities(const Eigen::MatrixXd& x, const Eigen::MatrixXd& responsibilities, double ridge,
                                         const CovariancePrior& prior, CovarianceForm form, const Eigen::MatrixXd& y);

// The M-step's covariance from the scatter S about the new mean and N = N_k: (S + R I) / N in `form`,
// or under `prior` ((nu - p - 1) C + S + R I) / (nu + N + p + 1) (full, p = D; diagonal entrywise with
// p = 1; isotropic ((nu - 2) c + tr S + R D) / (nu + N D + 2)).
Eigen::MatrixXd m_step_covariance(const Eigen::MatrixXd& scatter, double nk, double ridge, const CovariancePrior* prior,
                                  CovarianceForm form);

// The M-step above for responsibilities r (n x K), MAP under `prior` when not null. A component
// with N_k = 0 keeps its mean; its covariance is the prior's mode (with the ridge) under a prior, else
// kept.
void update_gaussians(const Eigen::MatrixXd& x, const Eigen::MatrixXd& responsibilities, double ridge,
                      const CovariancePrior* prior, GaussianComponents& c);

// The MAP adaptation of Gaussians toward `pooled` with strength tau = relevance (adaptation.hpp):
// tau pseudo-observations with mean mu0_k and covariance Sigma0_k per component. Means and
// covariances not adapted keep their current values (the pooled ones).
struct GaussianAdaptation {
  const GaussianComponents* pooled = nullptr;
  double relevance = 0.0;
  bool means = true;
  bool covariances = true;
};
// sum_k of the adapted parameters' log priors, up to constants:
//   means        -(tau/2) (mu_k - mu0_k)' Sigma_k^-1 (mu_k - mu0_k)
//   covariances  -(tau/2) (log|Sigma_k| + tr(Sigma_k^-1 Sigma0_k)).
double adaptation_log_prior(const GaussianComponents& c, const GaussianAdaptation& adaptation);
// The adapted M-step for responsibilities r (n x K), with N_k, xbar_k and S_k as in weighted_moments:
//   mu_k    = (N_k xbar_k + tau mu0_k) / (N_k + tau)                       (means adapted)
//   Sigma_k = (S_k + N_k (xbar_k - mu_k)(xbar_k - mu_k)' + tau Sigma0_k
//              + tau (mu_k - mu0_k)(mu_k - mu0_k)' + R I) / (N_k + tau)    (covariances adapted)
// in the components' form (diagonal: its diagonal; isotropic: trace / D times I), the maximiser of
// the expected complete-data log-likelihood plus adaptation_log_prior minus the ridge penalty.
void adapt_gaussians(const Eigen::MatrixXd& x, const Eigen::MatrixXd& responsibilities, double ridge,
                     const GaussianAdaptation& adaptation, GaussianComponents& c);

// The Gaussians of `models` (every one a GaussianModel over one dimension, in one covariance
// form); EstimationError naming `what` ("the pooled HMM's emission 2") otherwise.
GaussianComponents gaussian_components(const std::vector<const Model*>& models, const std::string& what);

// K starting Gaussians: means seeded k-means++ style (the first a uniformly drawn row of x, each
// next one drawn with probability proportional to its squared distance to the nearest chosen
// mean); every covariance the data's covariance in `form` plus R/n I.
GaussianComponents seed_gaussians(const Eigen::MatrixXd& x, long count, CovarianceForm form, double ridge,
                                  std::mt19937_64& rng);

// Component k as a GaussianModel in the components' form (EstimationError if it is not valid).
std::unique_ptr<Model> gaussian_model(const GaussianComponents& c, std::size_t k);

}  // namespace ppk::detail
