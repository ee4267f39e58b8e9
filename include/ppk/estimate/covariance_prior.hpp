// The inverse-Wishart prior on a Gaussian's covariance, shared by the latent-variable estimators
// (estimate_mixture.hpp, estimate_hmm.hpp, estimate_fhmm.hpp) and centred by `ppk fit` on
// gaussian_pooled_centre (estimate_gaussian.hpp), and its strength chosen by held-out likelihood;
// pooled_priors.hpp for its density.
//
// The prior: Sigma ~ IW(nu, (nu - D - 1) C), nu > D + 1 (full); each variance ~ IW_1(nu, (nu - 2) C_d)
// (diagonal; C the D x 1 variances) or the one variance ~ IW_1(nu, (nu - 2) c) (isotropic; C 1 x 1),
// nu > 2. E[Sigma] = C whatever nu; `ppk fit` centres it on gaussian_pooled_centre.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "ppk/families/gaussian.hpp"

namespace ppk {

struct MixtureFitOptions;  // estimate_mixture.hpp
struct HmmFitOptions;      // estimate_hmm.hpp
struct FhmmFitOptions;     // estimate_fhmm.hpp

struct CovariancePrior {
  double count = 0.0;      // nu, the degrees of freedom
  Eigen::MatrixXd centre;  // C: D x D (full), D x 1 (diagonal) or 1 x 1 (isotropic)
};
// OptionError naming prior.count unless nu > p + 1 and C has the form's shape (positive
// definite, positive variances).
void check_covariance_prior(const CovariancePrior& prior, CovarianceForm form, long dim);

// The strength nu of the covariance prior chosen on a training file by held-out likelihood
// (`ppk fit mixture|hmm --prior pooled --prior-count auto`; docs/priors-by-evidence.md). Each used
// example is split: a set (mixture) holds out every third vector (the 3rd, 6th, ...; a set's order
// carries no information, and its first vectors need not be typical); a sequence (hmm) its last
// third, scored as a fresh sequence from the fitted start probabilities. The fit to the rest, with
// prior IW(nu, (nu - p - 1) C), scores the held-out vectors by their log-likelihood; the chosen nu
// maximises the sum over the used examples. Examples whose kept part is too small to fit (fewer than
// K vectors for a mixture, fewer than 2 for an HMM) or with nothing held out are not used; at most
// max_examples evenly spaced examples and about 3000 vectors in all (at least one example) are.
// Cheaper fits than the final ones: one restart, at most 100 iterations, tolerance >= 1e-6. A fit
// that fails scores -infinity. EstimationError when no example can be used.
struct CovariancePriorChoice {
  double count = 0.0;                            // the chosen nu
  std::vector<double> counts;                    // the grid
  std::vector<double> held_out_log_likelihoods;  // the summed score per grid point
  long examples_used = 0;
};
// The default grid: nu = p + 1 + 2^j, j = -3..10 (p = D full, 1 diagonal or isotropic).
std::vector<double> default_prior_counts(CovarianceForm form, long dim);
CovariancePriorChoice choose_mixture_prior(const std::vector<Eigen::MatrixXd>& sets, const MixtureFitOptions& options,
                                           const Eigen::MatrixXd& centre, const std::vector<double>& counts,
                                           long max_examples = 100, unsigned threads = 1);
CovariancePriorChoice choose_hmm_prior(const std::vector<Eigen::MatrixXd>& sequences, const HmmFitOptions& options,
                                       const Eigen::MatrixXd& centre, const std::vector<double>& counts,
                                       long max_examples = 100, unsigned threads = 1);
// The prior's nu chosen as for choose_hmm_prior: each sequence's last third scored by its exact
// log-likelihood (the product-state forward recursion, from the fitted start probabilities) under the
// fit to the rest with the cheaper options and the prior IW(nu, (nu - D - 1) centre) (full covariance).
// The plug-in fit, not a predictive: the shared Sigma sees all n kept vectors, so the MAP's shrinkage
// n / (nu + n + D + 1) is mild. Needs M^C <= 1024 product states.
CovariancePriorChoice choose_fhmm_prior(const std::vector<Eigen::MatrixXd>& sequences, const FhmmFitOptions& options,
                                        const Eigen::MatrixXd& centre, const std::vector<double>& counts,
                                        long max_examples = 100, unsigned threads = 1);

}  // namespace ppk
