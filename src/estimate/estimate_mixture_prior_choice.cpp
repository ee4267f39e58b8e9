// The strength of the mixture's covariance prior chosen on a training file by held-out likelihood
// (choose_mixture_prior, covariance_prior.hpp): every third vector of a set held out and scored by the
// posterior predictive of the mixture fitted to the rest.
#include <vector>

#include <Eigen/Core>

#include "estimate/covariance_prior_choice.hpp"
#include "estimate/gaussian_em.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/estimate/estimate_mixture.hpp"

namespace ppk {

using detail::choice_fit_options;
using detail::choose_on_splits;
using detail::Split;
using detail::used_splits;

CovariancePriorChoice choose_mixture_prior(const std::vector<Eigen::MatrixXd>& sets, const MixtureFitOptions& options,
                                           const Eigen::MatrixXd& centre, const std::vector<double>& counts,
                                           long max_examples, unsigned threads) {
  check_mixture_fit_options(options);
  // Every third vector (the 3rd, 6th, ...) held out.
  const auto split = [&](const Eigen::MatrixXd& x, Split& out) {
    const Eigen::Index held = x.rows() / 3, kept = x.rows() - held;
    if (held < 1 || kept < options.components) return false;
    out.kept.resize(kept, x.cols());
    out.held.resize(held, x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      if (i % 3 == 2)
        out.held.row(i / 3) = x.row(i);
      else
        out.kept.row(i - i / 3) = x.row(i);
    }
    return true;
  };
  // Each held-out vector scored by the posterior predictive of the fitted mixture: sum_k w_k t_k(y), t_k the
  // Student t of component k given the kept vectors weighted by their final responsibilities, w_k = N_k / n.
  // Scoring the plug-in MAP fit instead biases nu upward: the MAP covariance divides by nu + N_k + p + 1,
  // shrinking small components, and the held-out vectors then favour the stronger prior that undoes it.
  return choose_on_splits(used_splits(sets, max_examples, split), counts, threads, [&](const Split& s, double nu) {
    const MixtureFitOptions fit_options = choice_fit_options(options, centre, nu);
    const GaussianMixtureFit fit = fit_gaussian_mixture(s.kept, fit_options);
    const double ridge = options.ridge ? *options.ridge : detail::default_ridge(s.kept);
    const Eigen::RowVectorXd log_weights =
        (fit.responsibilities.colwise().sum() / static_cast<double>(s.kept.rows())).array().log();
    const Eigen::MatrixXd log_joint = detail::predictive_log_densities(s.kept, fit.responsibilities, ridge,
                                                                       *fit_options.prior, options.covariance, s.held)
                                          .rowwise() +
                                      log_weights;
    const Eigen::VectorXd row_max = log_joint.rowwise().maxCoeff();
    return (row_max.array() + (log_joint.colwise() - row_max).array().exp().rowwise().sum().log()).sum();
  });
}

}  // namespace ppk
