// The held-out choice of the covariance prior's strength (covariance_prior.hpp): its default grid and
// the splitting and scoring that the mixture's, the hmm's and the fhmm's choices share
// (covariance_prior_choice.hpp; the choices themselves are in estimate_mixture_prior_choice.cpp,
// estimate_hmm_prior_choice.cpp and estimate_fhmm_prior_choice.cpp).
#include "estimate/covariance_prior_choice.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/thread_pool.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk {

std::vector<double> default_prior_counts(CovarianceForm form, long dim) {
  const double p = form == CovarianceForm::full ? static_cast<double>(dim) : 1.0;
  std::vector<double> counts;
  for (int j = -3; j <= 10; ++j) counts.push_back(p + 1.0 + std::ldexp(1.0, j));
  return counts;
}

namespace detail {

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

bool last_third(const Eigen::MatrixXd& x, Split& out) {
  if (x.rows() < 3) return false;
  const Eigen::Index held = std::max<Eigen::Index>(1, x.rows() / 3);
  out.kept = x.topRows(x.rows() - held);
  out.held = x.bottomRows(held);
  return true;
}

}  // namespace detail

}  // namespace ppk
