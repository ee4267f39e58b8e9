// The strength of the mixture's and the Gaussian-emission HMM's covariance prior chosen on a
// training file by held-out likelihood (choose_mixture_prior, choose_hmm_prior; estimate.hpp).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "estimate/estimate_detail.hpp"
#include "estimate/gaussian_em.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/estimate/estimate_fhmm.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/thread_pool.hpp"

namespace ppk {
namespace {

// One example split into the vectors fitted and the vectors scored.
struct Split {
  Eigen::MatrixXd kept, held;
};

// The examples split by `split` (none when it returns false), evenly spaced, at most max_examples
// of them and about kChoiceVectors vectors in all (at least one).
std::vector<Split> used_splits(const std::vector<Eigen::MatrixXd>& examples, long max_examples,
                               const std::function<bool(const Eigen::MatrixXd&, Split&)>& split) {
  constexpr Eigen::Index kChoiceVectors = 3000;
  std::vector<const Eigen::MatrixXd*> usable;
  Split scratch;
  for (const Eigen::MatrixXd& x : examples)
    if (split(x, scratch)) usable.push_back(&x);
  const std::size_t count = std::min(usable.size(), static_cast<std::size_t>(std::max(1L, max_examples)));
  std::vector<Split> used;
  Eigen::Index vectors = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Eigen::MatrixXd& x = *usable[i * usable.size() / count];
    if (!used.empty() && vectors + x.rows() > kChoiceVectors) break;
    used.emplace_back();
    split(x, used.back());
    vectors += x.rows();
  }
  if (used.empty())
    throw OptionError(
        "no example is long enough to choose the covariance prior's strength by held-out "
        "likelihood; give {prior.count} a value");
  return used;
}

// Scores every (count, example) pair by score(split, nu) and picks the count of the largest sum.
CovariancePriorChoice choose_on_splits(const std::vector<Split>& used, const std::vector<double>& counts,
                                       unsigned threads, const std::function<double(const Split&, double)>& score) {
  if (counts.empty()) throw EstimationError("no prior strength to choose from");
  std::vector<double> scores(counts.size() * used.size());
  for_each_range(scores.size(), threads, 1, 0.01, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      try {
        scores[k] = score(used[k % used.size()], counts[k / used.size()]);
      } catch (const WorkingMemoryError&) {
        throw;  // as the final fit would be refused
      } catch (const EstimationError&) {
        scores[k] = -std::numeric_limits<double>::infinity();
      }
    }
  });
  CovariancePriorChoice out;
  out.counts = counts;
  out.examples_used = static_cast<long>(used.size());
  double best = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < counts.size(); ++j) {
    double total = 0;
    for (std::size_t i = 0; i < used.size(); ++i) total += scores[j * used.size() + i];
    out.held_out_log_likelihoods.push_back(total);
    if (j == 0 || total > best) {
      best = total;
      out.count = counts[j];
    }
  }
  return out;
}

// A sequence split into its first two thirds and its last third, held out (a sequence's order
// matters); false for fewer than 3 vectors.
bool last_third(const Eigen::MatrixXd& x, Split& out) {
  if (x.rows() < 3) return false;
  const Eigen::Index held = std::max<Eigen::Index>(1, x.rows() / 3);
  out.kept = x.topRows(x.rows() - held);
  out.held = x.bottomRows(held);
  return true;
}

// Cheaper fits than the final ones, under the prior IW(nu, (nu - p - 1) centre).
template <class Options>
Options choice_fit_options(const Options& options, const Eigen::MatrixXd& centre, double nu) {
  Options out = options;
  out.restarts = 1;
  out.iterations = std::min(options.iterations, 100L);
  out.tolerance = std::max(options.tolerance, 1e-6);
  out.prior = CovariancePrior{nu, centre};
  return out;
}

// log p(x_t) under a Gaussian emission or component, n x 1 per model.
Eigen::VectorXd log_densities(const Model& model, const Eigen::MatrixXd& x) {
  const auto& gaussian = dynamic_cast<const GaussianModel&>(model);
  Eigen::VectorXd out(x.rows());
  for (Eigen::Index t = 0; t < x.rows(); ++t) out(t) = gaussian.log_density(x.row(t).transpose());
  return out;
}

}  // namespace

std::vector<double> default_prior_counts(CovarianceForm form, long dim) {
  const double p = form == CovarianceForm::full ? static_cast<double>(dim) : 1.0;
  std::vector<double> counts;
  for (int j = -3; j <= 10; ++j) counts.push_back(p + 1.0 + std::ldexp(1.0, j));
  return counts;
}

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
