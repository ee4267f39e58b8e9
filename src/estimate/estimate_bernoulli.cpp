// The Bernoulli estimator (estimate_bernoulli.hpp): statistics n and the per-coordinate totals
// ("ones": vectors with the feature set), a Beta prior.
#include "ppk/estimate/estimate_bernoulli.hpp"

#include <string>
#include <utility>

#include "estimate/estimate_detail.hpp"
#include "estimate/smoothed_probabilities.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/families/bernoulli.hpp"

namespace ppk {
namespace {

using detail::build_model;
using detail::prior_shift;

class BernoulliEstimator : public Estimator {
 public:
  explicit BernoulliEstimator(const BernoulliFitOptions& options) : options_(options) {
    detail::check_option("alpha", options.alpha, 0, false);
    prior_shift(options.method, options.alpha);
  }
  std::string family() const override { return "bernoulli"; }

  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    statistics.sums["ones"] = detail::sum_over_entries(vectors, dim, [](long, double v) { return v != 0 ? 1.0 : 0.0; });
    return statistics;
  }

  // g_d = (k_d + shift) / (n + 2 shift).
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    const double shift = prior_shift(options_.method, options_.alpha);
    SparseProbabilities g = detail::smoothed(detail::sum_of(statistics, "ones"), shift, statistics.count + 2 * shift);
    return build_model([&] { return std::make_unique<BernoulliModel>(std::move(g)); });
  }

 private:
  BernoulliFitOptions options_;
};

}  // namespace

std::unique_ptr<Estimator> bernoulli_estimator(const BernoulliFitOptions& options) {
  return std::make_unique<BernoulliEstimator>(options);
}

}  // namespace ppk
