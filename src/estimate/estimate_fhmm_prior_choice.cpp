// The strength of the fhmm's covariance prior chosen on a training file by held-out likelihood
// (choose_fhmm_prior, covariance_prior.hpp): each sequence's last third held out and scored by its
// exact log-likelihood under the fit to the rest.
#include <cmath>
#include <vector>

#include <Eigen/Core>

#include "estimate/covariance_prior_choice.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_fhmm.hpp"

namespace ppk {

using detail::choice_fit_options;
using detail::choose_on_splits;
using detail::last_third;
using detail::Split;
using detail::used_splits;

CovariancePriorChoice choose_fhmm_prior(const std::vector<Eigen::MatrixXd>& sequences, const FhmmFitOptions& options,
                                        const Eigen::MatrixXd& centre, const std::vector<double>& counts,
                                        long max_examples, unsigned threads) {
  if (std::pow(static_cast<double>(options.states), static_cast<double>(options.chains)) > 1024)
    throw OptionError(
        "the covariance prior's strength is chosen by the exact held-out likelihood, which needs "
        "{states}^{chains} <= 1024; give {prior.count} a value");
  FhmmFitOptions fit_options = options;
  fit_options.length.reset();
  return choose_on_splits(
      used_splits(sequences, max_examples, last_third), counts, threads, [&](const Split& s, double nu) {
        return fhmm_log_likelihood(*fit_fhmm(s.kept, choice_fit_options(fit_options, centre, nu)).model, s.held);
      });
}

}  // namespace ppk
