// ppk fit gamma: independent gamma values under a conjugate prior, fixed or pooled on the training file.
#include <memory>

#include <Eigen/Core>

#include "conjugate_prior.hpp"
#include "fit_family.hpp"
#include "prior_options.hpp"
#include "ppk/estimate/estimate_gamma.hpp"
#include "ppk/estimate/pooled_priors.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kGammaHelp = R"(
gamma: independent gamma values per feature (> 0, every feature present);
  ml (default): scale = mean / shape, and the shape solves
    log(shape) - digamma(shape) = log(mean x) - mean(log x)
    (needs values that are not all equal).
  map: the mode in the natural parameters under the conjugate prior worth N0
    pseudo-observations typical of Gamma(A0, B0): the ML fit of the data plus
    N0 observations with mean x = A0 B0 and mean log x = digamma(A0) + log B0.
  map --prior pooled (docs/priors-by-evidence.md): the same conjugate prior
    centred on INPUT's pooled statistics: N0 pseudo-observations with mean x =
    m_d and mean log x = l_d, the pooled means of feature d over every vector
    of INPUT. --prior-count auto (the default there) chooses N0 by maximum
    evidence (the exact marginal likelihood; its normaliser is a 1-D integral
    over the shape). m, l and N0 are saved by --save-pooled and reused by
    --pooled-from. With one vector per example the evidence cannot separate
    the examples and N0 runs to 1e8 (every row the pooled gamma); give
    --prior-count (N0 = 1 was best measured on such data).
)";

void add_gamma_options(po::options_description& options) {
  add_conjugate_prior_options(options, "Gamma(A0, B0)", "INPUT's pooled mean of x and of log x per feature",
                              {{"prior-shape", "A0"}, {"prior-scale", "B0"}}, "maximum evidence");
}

// The fields of GammaFitOptions that these flags set.
const OptionFlags kGammaFlags{{"prior_shape", "--prior-shape"},
                              {"prior_scale", "--prior-scale"},
                              {"prior_count", "--prior-count"},
                              {"prior_centre", "--prior pooled"}};

// --prior pooled: the centre (INPUT's pooled mean of x and of log x per feature, saved as
// "prior-centre") and N0, given or chosen by maximum evidence on INPUT (GammaShapeEvidence), or both
// read from --pooled-from.
void choose_gamma_prior(const FitContext& context, LazyExampleStatistics& examples, bool choose_count,
                        GammaFitOptions& options) {
  const Eigen::MatrixXd centre = pooled_statistics_centre(context, examples, {"x", "log_x"});
  options.prior_centre = centre;
  options.prior_count = pooled_prior_strength(context, "prior-count", choose_count, options.prior_count, [&] {
    GammaShapeEvidence evidence;
    StrengthChoice choice;
    try {
      for (const Statistics& example : examples())
        evidence.add(example.count, example.sums.at("x").col(0), example.sums.at("log_x").col(0), centre.col(0),
                     centre.col(1));
      choice = maximise_evidence(evidence);
    } catch (const EstimationError& e) {
      throw InputError(context.input.data().source + ": " + message_of(e));
    }
    return evidence_choice(choice, "the examples' gamma fits are indistinguishable from the pooled one");
  });
}

// --prior fixed|pooled, --prior-count N0|auto, --prior-shape and --prior-scale (those of --prior fixed).
PriorFitOptions<GammaFitOptions> parse_gamma_options(const po::variables_map& values) {
  PriorFitOptions<GammaFitOptions> options;
  options.pooled = prior_is_pooled(values);
  parse_prior_count(values, {"prior-shape", "prior-scale"}, options);
  options.fit.prior_shape = option(values, "prior-shape");
  options.fit.prior_scale = option(values, "prior-scale");
  return options;
}

// The estimator: the conjugate prior fixed, or pooled on INPUT by choose_gamma_prior.
constexpr auto make_gamma = make_conjugate<GammaFitOptions, choose_gamma_prior, gamma_estimator>;

}  // namespace

FitFamily gamma_family() {
  return {"gamma",
          "independent gamma values",
          kGammaHelp,
          Method::ml,
          nullptr,
          true,
          add_gamma_options,
          typed_options<PriorFitOptions<GammaFitOptions>, parse_gamma_options, make_gamma, read_libsvm_input>,
          {kGammaFlags}};
}

}  // namespace ppk::cli
