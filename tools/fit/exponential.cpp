// ppk fit exponential: independent exponential values under a Gamma prior on the rate (gamma_rate_prior.hpp).
#include <memory>

#include "fit_family.hpp"
#include "gamma_rate_prior.hpp"
#include "ppk/estimate/estimate_exponential.hpp"
#include "ppk/estimate/pooled_priors.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kExponentialHelp = R"(
exponential: independent exponential values per feature (>= 0; absent = 0),
  scale b_d (the mean); prior on the rate 1/b_d ~ Gamma(shape A, rate B):
  ml (default): b_d = sum_i x_id / n;  map: b_d = (sum_i x_id + B) / (n + A - 1).
  map --prior pooled (docs/priors-by-evidence.md): 1/b_d ~ Gamma(A, (A - 1) bbar_d),
    bbar_d the pooled mean of feature d on INPUT (the prior mean of b_d);
    --prior-shape auto (the default there) chooses A > 1 by maximum Lomax
    evidence. --pooled-estimate mean (default): b_d = (sum_i x_id + (A - 1)
    bbar_d)/(n + A - 1); mode: (sum_i x_id + (A - 1) bbar_d)/(n + A + 1).
    A and bbar are saved by --save-pooled and reused by --pooled-from.
)";

void add_exponential_options(po::options_description& options) {
  add_gamma_prior_on_rate(options,
                          "map: the prior on the rate 1/b_d: fixed (Gamma(A, B)) or pooled (Gamma(A, (A - 1) bbar_d), "
                          "the prior mean of b_d the pooled mean bbar_d of feature d on INPUT)");
}

std::unique_ptr<Estimator> make_exponential(const FitContext& context,
                                            const PriorFitOptions<ExponentialFitOptions>& options) {
  return make_gamma_rate_estimator(context, options, exponential_estimator, &ExponentialFitOptions::prior_scales,
                                   "prior-scales", &GammaRateEvidence::add_waiting_times);
}

}  // namespace

FitFamily exponential_family() {
  return {"exponential",
          "independent exponential values",
          kExponentialHelp,
          Method::ml,
          nullptr,
          true,
          add_exponential_options,
          typed_options<PriorFitOptions<ExponentialFitOptions>, parse_gamma_rate_prior<ExponentialFitOptions>,
                        make_exponential, read_libsvm_input>,
          {kGammaRatePriorFlags}};
}

}  // namespace ppk::cli
