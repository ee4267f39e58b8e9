// ppk fit poisson: independent Poisson counts under a Gamma prior on the rate (gamma_rate_prior.hpp).
#include <memory>

#include "fit_family.hpp"
#include "gamma_rate_prior.hpp"
#include "ppk/estimate/estimate_poisson.hpp"
#include "ppk/estimate/pooled_priors.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kPoissonHelp = R"(
poisson: independent Poisson counts per feature (whole numbers >= 0; absent = 0);
  prior rate_d ~ Gamma(shape A, rate B):
  ml (default): rate_d = sum_i x_id / n;  map: rate_d = max(0, sum_i x_id + A - 1) / (n + B).
  map --prior pooled (docs/priors-by-evidence.md): rate_d ~ Gamma(A, A / r_d),
    r_d the pooled rate of feature d on INPUT; --prior-shape auto (the default
    there) chooses A by maximum negative-binomial evidence. --pooled-estimate
    mean (default): rate_d = (sum_i x_id + A)/(n + A/r_d); mode: max(0, sum_i
    x_id + A - 1)/(n + A/r_d). A and r are saved by --save-pooled and reused
    by --pooled-from.
)";

void add_poisson_options(po::options_description& options) {
  add_gamma_prior_on_rate(options,
                          "map: the rate prior: fixed (Gamma(A, B)) or pooled (Gamma(A, A / r_d), mean r_d the pooled "
                          "rate of feature d on INPUT)");
}

std::unique_ptr<Estimator> make_poisson(const FitContext& context, const PriorFitOptions<PoissonFitOptions>& options) {
  return make_gamma_rate_estimator(context, options, poisson_estimator, &PoissonFitOptions::prior_rates, "prior-rates",
                                   &GammaRateEvidence::add_counts);
}

}  // namespace

FitFamily poisson_family() {
  return {"poisson",
          "independent Poisson counts",
          kPoissonHelp,
          Method::ml,
          nullptr,
          true,
          add_poisson_options,
          typed_options<PriorFitOptions<PoissonFitOptions>, parse_gamma_rate_prior<PoissonFitOptions>, make_poisson,
                        read_libsvm_input>,
          {kGammaRatePriorFlags}};
}

}  // namespace ppk::cli
