// The priors of prior_options.hpp.
#include "prior_options.hpp"

#include <cmath>
#include <functional>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "parallel.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/estimate/pooled_priors.hpp"

namespace ppk::cli {
namespace {

// "auto" (nothing) or a finite number > 0 (>= 0 when zero_allowed) for --NAME.
std::optional<double> auto_or_number(const po::variables_map& values, const char* name, bool zero_allowed) {
  const std::optional<double> value = number_or_auto(values, name, "auto");
  if (value && (!std::isfinite(*value) || *value < 0 || (!zero_allowed && *value == 0)))
    throw UsageError(std::string("--") + name + " must be auto or a finite number " + (zero_allowed ? ">= 0" : "> 0") +
                     ", got '" + values[name].as<std::string>() + "'");
  return value;
}

}  // namespace

Choice evidence_choice(const StrengthChoice& choice, const std::string& dominates) {
  if (choice.at_upper_bound)
    return Choice{choice.nu, "maximum evidence (still rising at the search's end: " + dominates +
                                 ", so the prior imposes the pooled value)"};
  std::ostringstream how;
  how.precision(3);
  how << "maximum evidence (standard error " << choice.standard_error << ")";
  return Choice{choice.nu, how.str()};
}

void add_pooled_estimate_option(po::options_description& options) {
  options.add_options()("pooled-estimate", po::value<std::string>()->default_value("mean")->value_name("mean|mode"),
                        "--prior pooled: the posterior mean (default; measured better for kernels) or mode");
}

bool prior_is_pooled(const po::variables_map& values) {
  const std::string prior = values["prior"].as<std::string>();
  if (prior != "fixed" && prior != "pooled") throw UsageError("--prior must be fixed or pooled, got '" + prior + "'");
  return prior == "pooled";
}

bool pooled_prior_option(const po::variables_map& values, bool& posterior_mean) {
  if (!prior_is_pooled(values)) {
    if (!values["pooled-estimate"].defaulted()) throw UsageError("--pooled-estimate applies to --prior pooled");
    return false;
  }
  const std::string estimate = values["pooled-estimate"].as<std::string>();
  if (estimate != "mean" && estimate != "mode")
    throw UsageError("--pooled-estimate must be mean or mode, got '" + estimate + "'");
  posterior_mean = estimate == "mean";
  return true;
}

void check_pooled_prior_method(Method method) {
  if (method != Method::map) throw UsageError("--prior pooled is a prior of the map estimator: add --estimator map");
}

const char* first_given(const po::variables_map& values, std::initializer_list<const char*> fixed_only) {
  for (const char* option_name : fixed_only)
    if (!values[option_name].defaulted()) return option_name;
  return nullptr;
}

std::optional<double> prior_strength_option(const po::variables_map& values, const char* name, bool pooled,
                                            const char* fixed_default, const char* what) {
  const std::optional<double> strength = number_or_auto(values, name, pooled ? "auto" : fixed_default);
  if (!strength && !pooled)
    throw UsageError(std::string("--") + name + " auto chooses the " + what + " of --prior pooled; add --prior pooled");
  return strength;
}

Eigen::MatrixXd pooled_statistics_centre(const FitContext& context, LazyExampleStatistics& examples,
                                         const std::vector<std::string>& statistic_names) {
  const long dim = context.input.dim();
  const auto columns = static_cast<Eigen::Index>(statistic_names.size());
  const Eigen::MatrixXd centre = context.choices.matrix("prior-centre", [&] {
    Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(dim, columns);
    double vectors = 0;
    for (const Statistics& example : examples()) {
      for (Eigen::Index k = 0; k < columns; ++k)
        sums.col(k) += example.sums.at(statistic_names[static_cast<std::size_t>(k)]).col(0);
      vectors += example.count;
    }
    return Eigen::MatrixXd(sums / vectors);
  });
  if (centre.rows() != dim || centre.cols() != columns)
    throw UsageError(*context.request.pooled_from + " holds a prior-centre of " + std::to_string(centre.rows()) + " x " +
                     std::to_string(centre.cols()) + ", but " + context.input.data().source + " needs " +
                     std::to_string(dim) + " x " + std::to_string(columns) +
                     ": fit both files with the same family and --dim");
  return centre;
}

double pooled_prior_strength(const FitContext& context, const char* name, bool choose_strength, double given,
                             const std::function<Choice()>& choose) {
  if (!choose_strength) return context.choices.given(name, given);
  return context.choices.value(name, choose);
}

void check_pooled_conjugate_prior(Method method, const char* fixed_option) {
  check_pooled_prior_method(method);
  if (fixed_option)
    throw UsageError(std::string("--") + fixed_option +
                     " belongs to --prior fixed; --prior pooled centres the "
                     "prior on INPUT's pooled statistics");
}

std::optional<CovariancePrior> covariance_prior(const FitContext& context, const CovariancePriorOptions& given,
                                                CovarianceForm form, const Estimator& reader,
                                                const PriorCountChooser& choose) {
  return covariance_prior_option(given, context.input.data(), context.input.dim(), form, reader, context.choices, choose);
}

void add_lds_prior_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("prior-strength", po::value<std::string>()->default_value("auto")->value_name("auto|NU"),
       "pseudo-observations NU >= 0 of the priors on cov0, Q, R (0: none); auto: by held-out likelihood")
      ("prior-state-noise", po::value<std::string>()->default_value("auto")->value_name("auto|PSI"),
       "Q's prior centre PSI I (unit state scale); auto: pooled over ML fits")
      ("prior-observation-noise", po::value<std::string>()->default_value("auto")->value_name("auto|PHI"),
       "R's prior centre PHI diag(variances); auto: pooled over ML fits");
  // clang-format on
}

LdsPriorOptions parse_lds_prior(const po::variables_map& values) {
  LdsPriorOptions prior;
  prior.given = first_given(values, {"prior-strength", "prior-state-noise", "prior-observation-noise"});
  prior.strength = auto_or_number(values, "prior-strength", true);
  prior.state_noise = auto_or_number(values, "prior-state-noise", false);
  prior.observation_noise = auto_or_number(values, "prior-observation-noise", false);
  return prior;
}

bool per_example_lds_fit(const FitRequest& request, const LdsPriorOptions& prior) {
  const bool per_example = request.mode == FitMode::per_example;
  if (!per_example && prior.given != nullptr)
    throw UsageError(std::string("--") + prior.given +
                     " applies to per-example fits: a pooled fit has the data of every sequence, and an adapted "
                     "fit's prior is centred on the pooled model (--relevance)");
  return per_example;
}

void read_lds_prior(const FitContext& context, const LdsPriorOptions& prior, LdsFitOptions& options) {
  const std::optional<double>&strength = prior.strength, &state = prior.state_noise,
        &observation = prior.observation_noise;
  std::optional<LdsPriorChoice> chosen;
  const auto choose = [&]() -> const LdsPriorChoice& {
    if (!chosen) {
      std::vector<Eigen::MatrixXd> sequences;
      const std::unique_ptr<Estimator> reader = lds_estimator(options);
      for (const Example& example : context.input.data().examples) {
        try {
          sequences.push_back(reader->statistics(example.vectors, context.input.dim()).sums.at("x"));
        } catch (const EstimationError&) {  // reported with its line when the example is fitted
        }
      }
      chosen = choose_lds_prior(sequences, options, strength ? std::vector<double>{*strength} : default_prior_strengths(),
                                30, context.request.threads);
    }
    return *chosen;
  };
  const std::string pooled = "the geometric mean over maximum-likelihood fits";
  options.prior.strength =
      strength ? context.choices.given("prior-strength", *strength) : context.choices.value("prior-strength", [&] {
        return Choice{choose().prior.strength, "maximum held-out likelihood of the last third of each sequence"};
      });
  if (options.prior.strength == 0.0) return;  // no prior: its centres do not matter
  options.prior.state_noise =
      state ? context.choices.given("prior-state-noise", *state) : context.choices.value("prior-state-noise", [&] {
        return Choice{choose().prior.state_noise, pooled};
      });
  options.prior.observation_noise = observation ? context.choices.given("prior-observation-noise", *observation)
                                                : context.choices.value("prior-observation-noise", [&] {
                                                    return Choice{choose().prior.observation_noise, pooled};
                                                  });
}

}  // namespace ppk::cli
