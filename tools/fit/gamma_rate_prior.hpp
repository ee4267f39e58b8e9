// The Gamma prior on a rate that ppk fit poisson and ppk fit exponential share: its options and
// the estimator it gives.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <Eigen/Core>

#include "fit_family.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/pooled_priors.hpp"
#include "prior_options.hpp"

namespace ppk::cli {

// Poisson and exponential: a Gamma prior on the rate, fixed (Gamma(A, B)) or pooled (centred on
// INPUT's pooled mean of each feature, `pooled_help`).
inline void add_gamma_prior_on_rate(po::options_description& options, const char* pooled_help) {
  // clang-format off
  options.add_options()
      ("prior", po::value<std::string>()->default_value("fixed")->value_name("fixed|pooled"), pooled_help)
      ("prior-shape", po::value<std::string>()->value_name("A|auto"),
       "map: the Gamma shape A > 0 (default 2; with --prior pooled default auto = maximum evidence on INPUT)")
      ("prior-rate", po::value<double>()->default_value(1.0)->value_name("B"), "map, --prior fixed: prior Gamma rate B >= 0");
  // clang-format on
  add_pooled_estimate_option(options);
}
// The fields of PoissonFitOptions and ExponentialFitOptions named by the flags of
// add_gamma_prior_on_rate (the pooled rates and scales are set by --prior pooled).
inline const OptionFlags kGammaRatePriorFlags{{"prior_shape", "--prior-shape"},
                                              {"prior_rate", "--prior-rate"},
                                              {"prior_rates", "--prior pooled"},
                                              {"prior_scales", "--prior pooled"}};

// The options of add_gamma_prior_on_rate (poisson: PoissonFitOptions; exponential:
// ExponentialFitOptions): --prior fixed|pooled, --prior-shape A|auto (the strength: default 2; auto,
// the default of --prior pooled, needs it), --prior-rate (the option of --prior fixed) and --pooled-estimate.
template <class FitOptions>
PriorFitOptions<FitOptions> parse_gamma_rate_prior(const po::variables_map& values) {
  PriorFitOptions<FitOptions> options;
  options.fit.prior_rate = option(values, "prior-rate");
  options.pooled = pooled_prior_option(values, options.fit.pooled_posterior_mean);
  const std::optional<double> shape = prior_strength_option(values, "prior-shape", options.pooled, "2", "shape");
  options.choose_strength = !shape;
  if (shape) options.fit.prior_shape = *shape;
  if (options.pooled) options.fixed_option = first_given(values, {"prior-rate"});
  return options;
}

// The estimator (`make`) of `options`. For --prior pooled: the pooled mean sum_i s_id / sum_i n_i
// of each feature on INPUT (the Poisson rate r_d, the exponential scale bbar_d; saved and reused as
// the matrix `means_name` into fit.*pooled_means), and the shape A, given or chosen by maximum
// evidence (the examples added to a GammaRateEvidence by `add_example`). The Poisson and exponential
// estimators share it.
template <class FitOptions>
std::unique_ptr<Estimator> make_gamma_rate_estimator(
    const FitContext& context, const PriorFitOptions<FitOptions>& given,
    std::unique_ptr<Estimator> (*make)(const FitOptions&), std::optional<Eigen::VectorXd> FitOptions::*pooled_means,
    const std::string& means_name,
    void (GammaRateEvidence::*add_example)(double, const Eigen::VectorXd&, const Eigen::VectorXd&)) {
  FitOptions options = given.fit;
  options.method = context.method;
  if (!given.pooled) return make(options);
  check_pooled_prior_method(context.method);
  if (given.fixed_option)
    throw UsageError("--prior pooled sets the prior's rates from INPUT's pooled means; drop --prior-rate");
  const Dataset& data = context.input.data();
  const long dim = context.input.dim();
  const std::unique_ptr<Estimator> statistics_of = make(FitOptions{});
  LazyExampleStatistics examples(*statistics_of, data, dim);
  const Eigen::MatrixXd means = context.choices.matrix(means_name, [&] {
    Eigen::VectorXd sums = Eigen::VectorXd::Zero(dim);
    double vectors = 0;
    for (const Statistics& example : examples()) sums += example.sums.at("x").col(0), vectors += example.count;
    return Eigen::MatrixXd(sums / vectors);
  });
  if (means.rows() != dim || means.cols() != 1)
    throw UsageError(*context.request.pooled_from + " holds " + means_name + " of dimension " +
                     std::to_string(means.rows()) + ", but " + data.source + " is fitted over dimension " +
                     std::to_string(dim) + ": give both files the same --dim");
  const Eigen::VectorXd pooled = means.col(0);
  options.*pooled_means = pooled;
  options.prior_shape = pooled_prior_strength(context, "prior-shape", given.choose_strength, options.prior_shape, [&] {
    GammaRateEvidence evidence;
    for (const Statistics& example : examples())
      (evidence.*add_example)(example.count, example.sums.at("x").col(0), pooled);
    StrengthChoice choice;
    try {
      choice = maximise_evidence(evidence);
    } catch (const EstimationError& e) {
      throw InputError(data.source + ": " + message_of(e));
    }
    return evidence_choice(choice, "the examples' rates are indistinguishable from the pooled ones");
  });
  return make(options);
}

}  // namespace ppk::cli
