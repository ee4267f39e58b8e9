// The multinomial estimator (estimate_multinomial.hpp): statistics n and the per-coordinate totals
// ("counts": summed counts), a Dirichlet prior, optionally smoothed towards a pooled leveled base.
#include "ppk/estimate/estimate_multinomial.hpp"

#include <string>
#include <utility>

#include "estimate/estimate_detail.hpp"
#include "estimate/smoothed_probabilities.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk {
namespace {

using detail::build_model;
using detail::prior_shift;
using detail::short_number;

class MultinomialEstimator : public Estimator {
 public:
  explicit MultinomialEstimator(const MultinomialFitOptions& options) : options_(options) {
    detail::check_option("alpha", options.alpha, 0, false);
    prior_shift(options.method, options.alpha);
    if (options.base && options.method != Method::posterior)
      throw OptionError(
          "{base} smooths towards the pooled base with the posterior mean; use "
          "{method} posterior (" +
          std::string(method_name(options.method)) + " has no base measure)");
  }
  std::string family() const override { return "multinomial"; }

  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    for (const SparseVector& v : vectors)
      for (const Feature& f : v)
        if (f.value < 0)
          throw EstimationError("count " + short_number(f.value) + " at index " + std::to_string(f.coord + 1) +
                                " is negative; multinomial counts must be >= 0");
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    statistics.sums["counts"] = detail::sum_over_entries(vectors, dim, [](long, double v) { return v; });
    if (!statistics.sums["counts"].allFinite()) throw EstimationError("the total count overflows");
    return statistics;
  }

  // a_d = (c_d + shift) / (N + D shift), N = sum_d c_d.
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    const double shift = prior_shift(options_.method, options_.alpha);
    const Eigen::MatrixXd& counts = detail::sum_of(statistics, "counts");
    const double denominator = counts.sum() + shift * static_cast<double>(statistics.dim);
    if (!(denominator > 0))
      throw OptionError("the example has no counts, so its " + std::string(method_name(options_.method)) +
                        " probabilities are undefined; give {alpha} > 0 with {method} posterior");
    if (options_.base) return fit_leveled(counts, statistics.dim);
    SparseProbabilities a = detail::smoothed(counts, shift, denominator);
    return build_model([&] { return std::make_unique<MultinomialModel>(std::move(a), options_.trials); });
  }

 private:
  // a_d = (c_d + A m_d) / (N + A), A = alpha D: the words with c_d > 0 are listed with their levels,
  // every other word has a_d = s m_d, s = A / (N + A).
  std::unique_ptr<Model> fit_leveled(const Eigen::MatrixXd& counts, long dim) const {
    const LeveledBase& base = *options_.base;
    if (static_cast<long>(base.word_level.size()) != dim)
      throw EstimationError("the pooled base covers " + std::to_string(base.word_level.size()) +
                            " words, but the data have D = " + std::to_string(dim));
    const double strength = options_.alpha * static_cast<double>(dim), denominator = counts.sum() + strength;
    LeveledProbabilities a;
    a.dim = dim;
    a.share = strength / denominator;
    a.levels = base.levels;
    for (Eigen::Index d = 0; d < counts.rows(); ++d) {
      if (counts(d, 0) == 0.0) continue;
      const int level = base.word_level[static_cast<std::size_t>(d)];
      a.index.push_back(d);
      a.value.push_back((counts(d, 0) + strength * base.levels.value[static_cast<std::size_t>(level)]) / denominator);
      a.level.push_back(level);
    }
    return build_model([&] { return std::make_unique<MultinomialModel>(std::move(a), options_.trials); });
  }

  MultinomialFitOptions options_;
};

}  // namespace

std::unique_ptr<Estimator> multinomial_estimator(const MultinomialFitOptions& options) {
  return std::make_unique<MultinomialEstimator>(options);
}

}  // namespace ppk
