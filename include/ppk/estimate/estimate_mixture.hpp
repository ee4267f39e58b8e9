// Mixtures (mixture.hpp) are not exponential families: their estimators keep the example's vectors
// as the n x D statistic "x", and reject pooling (shrinkage) with PoolingUnsupported.
//
// A mixture of K Gaussians by EM (Dempster, Laird and Rubin 1977). With responsibilities
// r_ik = w_k N(x_i | mu_k, Sigma_k) / sum_j w_j N(x_i | mu_j, Sigma_j) and N_k = sum_i r_ik:
//   w_k = N_k / n,  mu_k = sum_i r_ik x_i / N_k,  Sigma_k = (S_k + R I) / N_k  (full),
//   diag(S_k + R I) / N_k (diagonal), (trace(S_k) + R D) / (N_k D) I (isotropic),
// S_k = sum_i r_ik (x_i - mu_k)(x_i - mu_k)'. This is EM for the penalised log-likelihood
//   L = sum_i log sum_k w_k N(x_i | mu_k, Sigma_k) - (R/2) sum_k trace(Sigma_k^-1),
// which therefore never decreases; the ridge R > 0 keeps every covariance non-singular.
// Default R: 1e-6 times the mean per-coordinate variance of the example's vectors (1e-6 if they are
// all equal). Each restart seeds the means k-means++ style (the first a uniformly drawn vector,
// each next one drawn with probability proportional to its squared distance to the nearest
// chosen mean), weights 1/K and every covariance the data's covariance in the chosen form plus
// R/n I; EM stops after `iterations` or when L gains less than tolerance * |L|. The fit with
// the largest L over the restarts is kept. The random stream is std::mt19937_64 seeded by
// (seed, n, D): the same vectors and options always give the same mixture.
//
// With `prior` set (ppk fit mixture --prior pooled; docs/priors-by-evidence.md) every component's
// covariance also has the inverse-Wishart prior of pooled_priors.hpp centred on C (CovariancePrior),
// and the M-step is MAP-EM: with R the ridge,
//   full       Sigma_k = ((nu - D - 1) C + S_k + R I) / (nu + N_k + D + 1)
//   diagonal   Sigma_k,dd = ((nu - 2) C_d + S_k,dd + R) / (nu + N_k + 2)
//   isotropic  sigma_k^2 = ((nu - 2) c + trace(S_k) + R D) / (nu + N_k D + 2),
// the maximisers of the expected complete-data log-likelihood plus the log prior, so EM never
// decreases L + sum_k log IW(Sigma_k) (the normalised inverse-Wishart densities; diagonal: the
// product of the D one-dimensional ones).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/mixture.hpp"

namespace ppk {

struct MixtureFitOptions {
  long components = 2;  // K >= 1; the example needs n >= K vectors
  CovarianceForm covariance = CovarianceForm::full;
  std::optional<double> ridge;  // R > 0; default as above
  long iterations = 200;        // >= 1
  double tolerance = 1e-8;      // >= 0
  long restarts = 3;            // >= 1
  std::uint64_t seed = 1;
  std::optional<CovariancePrior> prior;  // the components' covariance prior (none by default)
};
std::unique_ptr<Estimator> mixture_estimator(const MixtureFitOptions& options);
// Its Fisher scores (fisher.hpp, fisher_mixture.cpp; the estimator's fisher_scores): EstimationError
// unless the components are Gaussians of one form (naming the first that is not); OptionError naming
// {adapt} as check_adapted_parameters.
std::unique_ptr<FisherScores> mixture_fisher_scores(const MixtureModel& pooled, const AdaptedParameters& parameters);
// OptionError naming the option field (components, ridge, ...) unless the options are as above.
void check_mixture_fit_options(const MixtureFitOptions& options);

// The EM fit of the rows of x (n x D), L after 0, 1, 2, ... M-steps of the kept restart (the last for its parameters),
// and the responsibilities r_ik of the fitted mixture (one more E-step with its parameters; n x K).
struct GaussianMixtureFit {
  std::unique_ptr<MixtureModel> model;
  std::vector<double> log_likelihoods;  // the penalised L above (with `prior`: plus the log prior)
  Eigen::MatrixXd responsibilities;
};
GaussianMixtureFit fit_gaussian_mixture(const Eigen::MatrixXd& x, const MixtureFitOptions& options);

// The kernel density estimate: (1/n) sum_i N(x_i, h I), one isotropic component per vector,
// the bandwidth h > 0 its variance.
struct KdeFitOptions {
  double bandwidth = 1.0;
};
std::unique_ptr<Estimator> kde_estimator(const KdeFitOptions& options);

// The bandwidth h = sigma^2 / 2 whose kernel density estimates give the mean-map kernel of the
// Gaussian RBF base kernel k(x, y) = exp(-|x - y|^2 / (2 sigma^2)) (docs/design.md "Mathematics", Mean embeddings;
// an example is a set X = {x_1..x_n}, mu_X = (1/n) sum_i k(x_i, .)). The product of two Gaussians
// integrates to a Gaussian in the difference of their means,
//   integral N(x | a, h I) N(x | b, h I) dx = N(a | b, 2h I) = (4 pi h)^(-D/2) exp(-|a - b|^2 / (4h)),
// so with h = sigma^2 / 2 it is c k(a, b), c = (4 pi h)^(-D/2) = (2 pi sigma^2)^(-D/2), and the
// expected-likelihood kernel (rho = 1, JMLR 2004 section 3.1) between the estimates
// p_X = (1/n) sum_i N(x_i, h I) and p_Y = (1/m) sum_j N(y_j, h I) is, by bilinearity,
//   integral p_X p_Y = c (1/(n m)) sum_ij k(x_i, y_j) = c <mu_X, mu_Y>.
// ppk_norm divides the constant out: <mu_X, mu_Y> / (|mu_X| |mu_Y|). EstimationError unless sigma > 0.
double mean_map_bandwidth(double sigma);

// The pooled mixture and its MAP adaptation (adaptation.hpp). Pooled: the sets' vectors pooled into
// one i.i.d. sample, fitted with the options of the per-set fit.
GaussianMixtureFit fit_pooled_mixture(const std::vector<Eigen::MatrixXd>& sets, const MixtureFitOptions& options);

// The number of components of a pooled mixture chosen by held-out likelihood (`ppk fit mixture
// --pooled --components auto`): every fifth set held out, the pooled mixture of the others fitted for
// each K of `grid` (at most 100 iterations; K larger than the kept vectors skipped), the held-out
// vectors scored by their log-likelihood. OptionError naming {components} with fewer than 5 sets.
std::vector<long> default_component_grid();  // 1, 2, 3, 4, 6, 8, 12, 16, 24, 32
SizeChoice choose_pooled_components(const std::vector<Eigen::MatrixXd>& sets, const MixtureFitOptions& options,
                                    const std::vector<long>& grid);

// The MAP adaptation of `pooled`, whose components are Gaussians over the columns of x, to the rows
// of x (adaptation.hpp); log_likelihoods holds the MAP objective after 0, 1, 2, ... M-steps.
GaussianMixtureFit adapt_mixture(const MixtureModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options);

}  // namespace ppk
