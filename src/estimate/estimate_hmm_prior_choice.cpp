// The strength of the Gaussian-emission HMM's covariance prior chosen on a training file by held-out
// likelihood (choose_hmm_prior, covariance_prior.hpp): each sequence's last third held out and scored
// by the forward recursion under the fit to the rest.
#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include "estimate/covariance_prior_choice.hpp"
#include "estimate/estimate_detail.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"

namespace ppk {
namespace {

using detail::choice_fit_options;
using detail::choose_on_splits;
using detail::last_third;
using detail::Split;
using detail::used_splits;

// log p(x_t) under a Gaussian emission or component, n x 1 per model.
Eigen::VectorXd log_densities(const Model& model, const Eigen::MatrixXd& x) {
  const auto& gaussian = dynamic_cast<const GaussianModel&>(model);
  Eigen::VectorXd out(x.rows());
  for (Eigen::Index t = 0; t < x.rows(); ++t) out(t) = gaussian.log_density(x.row(t).transpose());
  return out;
}

}  // namespace

CovariancePriorChoice choose_hmm_prior(const std::vector<Eigen::MatrixXd>& sequences, const HmmFitOptions& options,
                                       const Eigen::MatrixXd& centre, const std::vector<double>& counts,
                                       long max_examples, unsigned threads) {
  if (options.emissions != HmmEmissions::gaussian)
    throw EstimationError("the covariance prior's strength is chosen for Gaussian emissions only");
  HmmFitOptions fit_options = options;
  fit_options.length.reset();
  // The held-out part scored as a fresh sequence from the fitted start probabilities (the forward
  // recursion) under the plug-in MAP fit. Not the posterior predictive of the mixture: on the digits as
  // pixel-row sequences the predictive chose the weakest nu of the grid and lost 25 points of accuracy
  // to the plug-in choice (docs/priors-by-evidence.md).
  return choose_on_splits(
      used_splits(sequences, max_examples, last_third), counts, threads, [&](const Split& s, double nu) {
        const HmmFit fit = fit_gaussian_hmm(s.kept, choice_fit_options(fit_options, centre, nu));
        const HmmModel& model = *fit.model;
        Eigen::MatrixXd log_emissions(s.held.rows(), static_cast<Eigen::Index>(model.states()));
        for (std::size_t q = 0; q < model.states(); ++q)
          log_emissions.col(static_cast<Eigen::Index>(q)) = log_densities(model.emission(q), s.held);
        return detail::forward_backward(detail::MarkovChain{model.start(), model.transitions()}, log_emissions)
            .log_likelihood;
      });
}

}  // namespace ppk
