// ppk fit gaussian: N(mu, Sigma) with a covariance prior, fixed or pooled on the training file.
#include <memory>
#include <optional>
#include <string>

#include "covariance_prior.hpp"
#include "fit_family.hpp"
#include "prior_options.hpp"
#include "ppk/estimate/estimate_gaussian.hpp"
#include "ppk/estimate/pooled_priors.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kGaussianHelp = R"(
gaussian: N(mu, Sigma) from the example's vectors; x-bar their mean, S their
  scatter sum (x_i - x-bar)(x_i - x-bar)'.
  ml (default): mu = x-bar; Sigma = S/n + R I (full), diag(S)/n + R I (diag) or
    (trace(S)/(n D) + R) I (iso). Without --ridge an example needs enough
    vectors for a non-singular covariance (2 for iso/diag, D + 1 for full).
  map: prior mu ~ N(M 1, Sigma/K), Sigma ~ inverse-Wishart (full) or scaled
    inverse-chi^2 (each diagonal variance, or the isotropic one) with N0
    pseudo-observations of variance S0. With m = (n x-bar + K M)/(n + K) and
    B = K n/(K + n) (x-bar - M)(x-bar - M)': mu = m and Sigma =
    (N0 S0 I + S + B)/(N0 + n + D + 2) (full), (N0 S0 + S_dd + B_dd)/(N0 + n + 3)
    (diag), (N0 S0 + trace(S + B))/(N0 + n D + D + 2) (iso).
  map --prior pooled (docs/priors-by-evidence.md): mu flat, Sigma ~
    inverse-Wishart(N0, (N0 - D - 1) C) with mean C, the pooled within-example
    covariance sum_i S_i / sum_i (n_i - 1) of INPUT (diag: per variance; iso:
    the one variance, D -> 1). mu = x-bar and, by --pooled-estimate,
      mean (default): Sigma's posterior mean ((N0 - D - 1) C + S)/(N0 + n - D - 2)
        (full), ((N0 - 2) C_dd + S_dd)/(N0 + n - 3) (diag),
        ((N0 - 2) c + trace S)/(N0 + (n - 1) D - 2) (iso);
      mode: the joint mode ((N0 - D - 1) C + S)/(N0 + n + D + 1) (full),
        ((N0 - 2) C_dd + S_dd)/(N0 + n + 2) (diag), ((N0 - 2) c + trace S)/
        (N0 + n D + 2) (iso), which shrinks small sets' covariances.
    --prior-count auto (the default there) chooses N0 by maximum evidence: the
    marginal likelihood of every example's scatter, Sigma integrated out. C and
    N0 are saved by --save-pooled and reused by --pooled-from.
  --var V fixes Sigma = V I and fits only the mean (one vector x gives N(x, V I),
    whose kernels are RBF kernels): ml mu = x-bar; map mu = m (prior
    mu ~ N(M 1, V/K I)); posterior N(m, V (1 + 1/(n + K)) I).
)";

void add_gaussian_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("cov", po::value<std::string>()->default_value("full")->value_name("iso|diag|full"),
       "covariance form: isotropic (sigma^2 I), diagonal, or full")
      ("var", po::value<double>()->value_name("V"),
       "fixed isotropic variance V > 0; only the mean is fitted (no --ridge; --cov iso)")
      ("ridge", po::value<double>()->default_value(0.0)->value_name("R"),
       "R >= 0 added to the covariance diagonal")
      ("prior-mean", po::value<double>()->default_value(0.0)->value_name("M"), "map/posterior: prior mean M (every coordinate)")
      ("prior-strength", po::value<double>()->default_value(0.0)->value_name("K"),
       "map/posterior: K >= 0 pseudo-observations of the mean (0: flat prior on the mean)")
      ("prior-var", po::value<double>()->default_value(1.0)->value_name("S0"), "map: prior variance S0 > 0")
      ("prior", po::value<std::string>()->default_value("fixed")->value_name("fixed|pooled"),
       "map: the covariance prior: fixed (N0 pseudo-observations of variance S0) or pooled "
       "(inverse-Wishart centred on INPUT's pooled within-example covariance, strength N0)")
      ("prior-count", po::value<std::string>()->value_name("N0|auto"),
       "map: the prior's strength: N0 > 0 pseudo-observations of the variance (--prior fixed, default 1), or the "
       "inverse-Wishart's degrees of freedom (--prior pooled: N0 > D + 1 full, > 2 diag/iso; default auto = "
       "maximum evidence on INPUT)");
  // clang-format on
  add_pooled_estimate_option(options);
}

// The fields of GaussianFitOptions that these flags set.
const OptionFlags kGaussianFlags{{"covariance", "--cov"},
                                 {"variance", "--var"},
                                 {"ridge", "--ridge"},
                                 {"prior_mean", "--prior-mean"},
                                 {"prior_strength", "--prior-strength"},
                                 {"prior_variance", "--prior-var"},
                                 {"prior_centre", "--prior pooled"},
                                 {"prior_count", "--prior-count"}};

// --cov, --var, --ridge, the prior's options (--prior-mean, --prior-var: those of --prior fixed).
PriorFitOptions<GaussianFitOptions> parse_gaussian_options(const po::variables_map& values) {
  PriorFitOptions<GaussianFitOptions> options;
  GaussianFitOptions& fit = options.fit;
  const std::string form = values["cov"].as<std::string>();
  fit.covariance = covariance_form(form);
  fit.ridge = option(values, "ridge");
  if (values.count("var")) {
    if (!values["cov"].defaulted() && fit.covariance != CovarianceForm::isotropic)
      throw UsageError("--var fixes an isotropic covariance; it cannot be combined with --cov " + form);
    if (!values["ridge"].defaulted()) throw UsageError("--var fixes the covariance; it cannot be combined with --ridge");
    fit.covariance = CovarianceForm::isotropic;
    fit.variance = option(values, "var");
  }
  fit.prior_mean = option(values, "prior-mean");
  fit.prior_strength = option(values, "prior-strength");
  fit.prior_variance = option(values, "prior-var");
  options.pooled = pooled_prior_option(values, fit.pooled_posterior_mean);
  parse_prior_count(values, {"prior-mean", "prior-var"}, options);
  return options;
}

// --prior pooled: the centre (the pooled within-example covariance) and nu, chosen on the training
// file (by maximum evidence for --prior-count auto) or read from --pooled-from.
void choose_pooled_prior(const FitContext& context, bool choose_count, GaussianFitOptions& options) {
  const Dataset& data = context.input.data();
  options.prior_centre = pooled_covariance_centre(data, context.input.dim(), options.covariance, context.choices);
  options.prior_count = pooled_prior_strength(context, "prior-count", choose_count, options.prior_count, [&] {
    StrengthChoice choice;
    try {
      choice = maximise_evidence(gaussian_prior_evidence(
          example_statistics(data, context.input.dim(), options.covariance), options.covariance, *options.prior_centre));
    } catch (const EstimationError& e) {
      throw InputError(data.source + ": " + message_of(e));
    }
    return evidence_choice(choice, "the examples' covariances are indistinguishable from the pooled one");
  });
}

std::unique_ptr<Estimator> make_gaussian(const FitContext& context, const PriorFitOptions<GaussianFitOptions>& given) {
  GaussianFitOptions options = given.fit;
  options.method = context.method;
  if (given.pooled) {
    check_pooled_prior_method(context.method);
    if (given.fixed_option != nullptr)
      throw UsageError(std::string("--") + given.fixed_option +
                       " belongs to --prior fixed; --prior pooled centres the "
                       "covariance on INPUT's pooled covariance and leaves the mean flat");
    choose_pooled_prior(context, given.choose_strength, options);
  }
  return gaussian_estimator(options);
}

}  // namespace

FitFamily gaussian_family() {
  return {"gaussian",
          "Gaussian N(mu, Sigma), iso, diag or full",
          kGaussianHelp,
          Method::ml,
          nullptr,
          true,
          add_gaussian_options,
          typed_options<PriorFitOptions<GaussianFitOptions>, parse_gaussian_options, make_gaussian, read_libsvm_input>,
          {kGaussianFlags}};
}

}  // namespace ppk::cli
