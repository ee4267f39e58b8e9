#include "covariance_prior.hpp"

#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "fit_family.hpp"
#include "ppk/estimate/estimate_gaussian.hpp"
#include "ppk/estimate/covariance_prior.hpp"

namespace ppk::cli {

std::vector<Statistics> example_statistics(const Dataset& data, long dim, CovarianceForm form) {
  GaussianFitOptions options;
  options.covariance = form;
  const std::unique_ptr<Estimator> estimator = gaussian_estimator(options);
  std::vector<Statistics> statistics;
  for (const Example& example : data.examples) {
    try {
      statistics.push_back(estimator->statistics(example.vectors, dim));
    } catch (const EstimationError& e) {
      throw data.error_at(example, message_of(e));
    }
  }
  return statistics;
}

Eigen::MatrixXd pooled_covariance_centre(const Dataset& data, long dim, CovarianceForm form, TrainingChoices& choices) {
  Eigen::MatrixXd centre = choices.matrix("prior-centre", [&] {
    try {
      return gaussian_pooled_centre(example_statistics(data, dim, form), form);
    } catch (const EstimationError& e) {
      throw InputError(data.source + ": " + message_of(e));
    }
  });
  const bool full = form == CovarianceForm::full;
  const Eigen::Index rows = form == CovarianceForm::isotropic ? 1 : dim;
  if (centre.rows() != rows || centre.cols() != (full ? rows : 1))
    throw UsageError(choices.pool_from()->path + " holds a prior centre of " + std::to_string(centre.rows()) + " x " +
                     std::to_string(centre.cols()) + ", but " + data.source + " is fitted with a " +
                     (full ? "full" : "diagonal or isotropic") + " covariance over dimension " + std::to_string(dim) +
                     ": fit both files with the same --cov and --dim");
  return centre;
}

void add_covariance_prior_options(po::options_description& options, const char* default_prior) {
  // clang-format off
  options.add_options()
      ("prior", po::value<std::string>()->default_value(default_prior)->value_name("none|pooled"),
       "the covariances' prior: none (the ridge alone) or pooled (inverse-Wishart centred on INPUT's pooled "
       "within-example covariance, MAP-EM)")
      ("prior-count", po::value<std::string>()->value_name("NU|auto"),
       "--prior pooled: the inverse-Wishart's degrees of freedom NU > p + 1 (p = D full, 1 diag/iso); default "
       "auto = maximum held-out likelihood on INPUT");
  // clang-format on
}

CovariancePriorOptions parse_covariance_prior(const po::variables_map& values) {
  CovariancePriorOptions options;
  options.count = number_or_auto(values, "prior-count", "auto");
  const std::string prior = values["prior"].as<std::string>();
  if (prior != "none" && prior != "pooled") throw UsageError("--prior must be none or pooled, got '" + prior + "'");
  options.pooled = prior == "pooled";
  if (!options.pooled && values.count("prior-count"))
    throw UsageError("--prior-count sets the strength of --prior pooled; add --prior pooled");
  return options;
}

std::optional<CovariancePrior> covariance_prior_option(const CovariancePriorOptions& given, const Dataset& data, long dim,
                                                       CovarianceForm form, const Estimator& reader,
                                                       TrainingChoices& choices, const PriorCountChooser& choose) {
  const std::optional<double>& count = given.count;
  if (!given.pooled) {
    if (choices.saved("prior-count"))
      throw UsageError(data.source + " is fitted with --prior none, but " + choices.pool_from()->path +
                       " holds the covariance prior chosen on the training file " + choices.pool_from()->source +
                       ": fit both files with the same --prior");
    return std::nullopt;
  }
  CovariancePrior out;
  out.centre = pooled_covariance_centre(data, dim, form, choices);
  if (count) {
    out.count = choices.given("prior-count", *count);
  } else {
    out.count = choices.value("prior-count", [&] {
      std::vector<Eigen::MatrixXd> examples;
      for (const Example& example : data.examples) {
        try {
          examples.push_back(reader.statistics(example.vectors, dim).sums.at("x"));
        } catch (const EstimationError&) {  // reported with its line when the example is fitted
        }
      }
      CovariancePriorChoice chosen;
      try {
        chosen = choose(examples, out.centre, default_prior_counts(form, dim));
      } catch (const EstimationError& e) {
        throw InputError(data.source + ": " + message_of(e));
      }
      std::ostringstream how;
      how << "maximum held-out likelihood over " << chosen.examples_used << " examples (grid " << chosen.counts.front()
          << ".." << chosen.counts.back();
      if (chosen.count == chosen.counts.front() || chosen.count == chosen.counts.back()) how << ", best at its end";
      how << ")";
      return Choice{chosen.count, how.str()};
    });
  }
  try {
    check_covariance_prior(out, form, dim);
  } catch (const EstimationError& e) {
    throw UsageError(message_of(e));
  }
  return out;
}

}  // namespace ppk::cli
