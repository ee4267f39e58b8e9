// ppk fit mixture: a Gaussian mixture by EM; its EM options are shared with ppk fit mi mixture
// (mixture_options.hpp).
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "fit_family.hpp"
#include "mixture_options.hpp"
#include "parallel.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "prior_options.hpp"

namespace ppk::cli {

const ComponentsOption kPooledComponents{"2", "K|auto",
                                         "the number of components K >= 1; auto (with --pooled): by held-out likelihood"};

void add_mixture_options(po::options_description& options, const ComponentsOption& components) {
  // clang-format off
  options.add_options()
      ("components", po::value<std::string>()->default_value(components.default_value)->value_name(components.value_name),
       components.help)
      ("cov", po::value<std::string>()->default_value("full")->value_name("iso|diag|full"),
       "the components' covariance form")
      ("ridge", po::value<double>()->value_name("R"), "R > 0 (see above); default 1e-6 times the data's variance");
  // clang-format on
  add_em_options(options, 200, "at most N EM iterations per restart");
}

MixtureOptions parse_mixture_options(const po::variables_map& values, bool pooled, bool by_classes) {
  MixtureOptions parsed;
  MixtureFitOptions& options = parsed.fit;
  const std::string components = values["components"].as<std::string>();
  const std::string named = by_classes ? "classes" : "auto";  // the choice other than a number
  if (components != named) {
    const std::optional<long> count = parse_long(components);
    if (!count) throw UsageError("--components must be a whole number or " + named + ", got '" + components + "'");
    options.components = *count;
  } else if (by_classes) {
    parsed.components_by_classes = true;
  } else if (!pooled) {
    throw UsageError("--components auto chooses K for ppk fit mixture --pooled; give a number");
  } else {
    parsed.choose_components = true;
  }
  options.covariance = covariance_form(values["cov"].as<std::string>());
  if (values.count("ridge")) options.ridge = option(values, "ridge");
  read_em_options(values, options);
  try {
    check_mixture_fit_options(options);
  } catch (const EstimationError& e) {
    throw UsageError(message_of(e));
  }
  return parsed;
}

void use_class_components(MixtureOptions& options, long classes) {
  if (!options.components_by_classes) return;
  if (classes < 2)
    throw UsageError("--components classes (the default) takes one component per distinct label of INPUT, which has " +
                     std::to_string(classes) + "; give --components K");
  options.fit.components = classes;
}

namespace {

constexpr const char* kMixtureHelp = R"(
mixture: a mixture of K Gaussians fitted by EM to the example's vectors (needs
  n >= K). Each M-step sets w_k = N_k/n, mu_k the responsibility-weighted mean
  and Sigma_k = (S_k + R I)/N_k in the --cov form: EM for the log-likelihood
  minus (R/2) sum_k trace(Sigma_k^-1), which never decreases. Default R: 1e-6
  times the mean per-coordinate variance of the example. Means are seeded
  k-means++ style from a generator seeded by (--seed, n, D), so fits are
  reproducible; the best of --restarts runs is kept.
  --prior pooled (docs/priors-by-evidence.md): every Sigma_k ~ inverse-Wishart
  (NU, (NU - D - 1) C), E[Sigma_k] = C the pooled within-example covariance of
  the training file (as gaussian --prior pooled), by MAP-EM beside the ridge:
    full  Sigma_k = ((NU - D - 1) C + S_k + R I)/(NU + N_k + D + 1)
    diag  ((NU - 2) C_dd + S_k,dd + R)/(NU + N_k + 2)
    iso   ((NU - 2) c + tr S_k + R D)/(NU + N_k D + 2), c = tr(C)/D;
  EM then never decreases the penalised log-likelihood plus the log prior.
  --prior-count auto (the default with --prior pooled) chooses NU on INPUT by
  held-out likelihood: every third vector of up to 100 sets is held out, the
  rest fitted for each NU = p + 1 + 2^j (j = -3..10; p = D full, 1 diag/iso),
  and the NU whose posterior predictive (a Student t per component, given the
  kept vectors weighted by their responsibilities) scores the held-out vectors
  best is kept. NU and C are printed, saved by --save-pooled and reused by
  --pooled-from (fit a test file with it: nothing is then re-estimated).
  Not the default (--prior none): on digits as point sets the chosen prior
  lost to it (docs/priors-by-evidence.md).
)";

// ppk fit mixture: the EM options and --prior / --prior-count (covariance_prior.hpp).
void add_mixture_fit_options(po::options_description& options) {
  add_mixture_options(options);
  add_covariance_prior_options(options, "none");
}

// The options of ppk fit mixture: the EM fit's and the covariance prior's.
struct MixtureFamilyOptions {
  MixtureOptions mixture;
  CovariancePriorOptions prior;
};

MixtureFamilyOptions parse_mixture_family_options(const po::variables_map& values) {
  return {parse_mixture_options(values, values.count("pooled") > 0), parse_covariance_prior(values)};
}

// --pooled --components auto: K by the held-out likelihood of the pooled mixture (choose_pooled_components).
Choice pooled_component_choice(const FitContext& context, const MixtureFitOptions& options) {
  std::vector<Eigen::MatrixXd> sets;
  for (const Statistics& example :
       example_statistics(*mixture_estimator(options), context.input.data(), context.input.dim()))
    sets.push_back(example.sums.at("x"));
  try {
    return held_out_size(choose_pooled_components(sets, options, default_component_grid()),
                         "every fifth set under the pooled mixture of the others", "K");
  } catch (const OptionError& e) {
    throw UsageError(message_of(e));
  } catch (const EstimationError& e) {
    throw InputError(context.input.data().source + ": choosing the number of components: " + message_of(e));
  }
}

std::unique_ptr<Estimator> make_mixture(const FitContext& context, const MixtureFamilyOptions& given) {
  MixtureFitOptions options = given.mixture.fit;
  if (given.mixture.choose_components)
    options.components =
        static_cast<long>(context.choices.value("components", [&] { return pooled_component_choice(context, options); }));
  if (context.request.pooled_or_adapted()) return mixture_estimator(options);
  const std::unique_ptr<Estimator> reader = mixture_estimator(options);
  options.prior = covariance_prior(
      context, given.prior, options.covariance, *reader,
      [&](const std::vector<Eigen::MatrixXd>& sets, const Eigen::MatrixXd& centre, const std::vector<double>& counts) {
        return choose_mixture_prior(sets, options, centre, counts, 100, context.request.threads);
      });
  return mixture_estimator(options);
}

}  // namespace

FitFamily mixture_family() {
  return {"mixture",
          "Gaussian mixture by EM",
          kMixtureHelp,
          Method::ml,
          "a mixture is fitted by maximum likelihood (EM)",
          false,
          add_mixture_fit_options,
          typed_options<MixtureFamilyOptions, parse_mixture_family_options, make_mixture, read_libsvm_input>,
          {kMixtureOptionFlags, kCovariancePriorFlags, kEmOptionFlags},
          true,
          {"components", "cov", "restarts", "seed"}};
}

}  // namespace ppk::cli
