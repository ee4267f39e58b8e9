// The inverse-Wishart covariance prior centred on the training file's pooled within-example
// covariance (docs/priors-by-evidence.md): its centre, shared by `ppk fit gaussian --prior pooled`
// and the Gaussian components of `ppk fit mixture|hmm|fhmm --prior pooled`, and the mixture's, HMM's
// and fhmm's --prior / --prior-count options (strength chosen by held-out likelihood).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "cli.hpp"
#include "ppk/core/data.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/families/gaussian.hpp"
#include "training_choices.hpp"

namespace ppk::cli {

// Every example's Gaussian statistics in `form` (gaussian_estimator); errors name the example.
std::vector<Statistics> example_statistics(const Dataset& data, long dim, CovarianceForm form);

// The centre C of the pooled prior: gaussian_pooled_centre of INPUT's examples (the pooled
// within-example covariance in `form`), or the one saved in the --pooled-from file; recorded as the
// matrix "prior-centre". InputError naming INPUT when it cannot be computed; UsageError naming the
// pool file when the saved centre has another shape (another --cov or --dim).
Eigen::MatrixXd pooled_covariance_centre(const Dataset& data, long dim, CovarianceForm form, TrainingChoices& choices);

// --prior none|pooled (default `default_prior`) and --prior-count auto|NU (mixture, fhmm: none; hmm
// with Gaussian emissions: pooled).
void add_covariance_prior_options(po::options_description& options, const char* default_prior);
// The fields of the CovariancePrior `prior` (of MixtureFitOptions, HmmFitOptions, FhmmFitOptions)
// named by the flags of add_covariance_prior_options.
inline const OptionFlags kCovariancePriorFlags{{"prior", "--prior pooled"}, {"prior.count", "--prior-count"}};

// The held-out chooser of nu for the examples' data matrices, the centre and the grid of nu.
using PriorCountChooser = std::function<CovariancePriorChoice(
    const std::vector<Eigen::MatrixXd>& examples, const Eigen::MatrixXd& centre, const std::vector<double>& counts)>;
// --prior none|pooled and --prior-count auto|NU as given: nu, or nothing for auto.
struct CovariancePriorOptions {
  bool pooled = false;
  std::optional<double> count;
};
// UsageError for a malformed value and for --prior-count without --prior pooled.
CovariancePriorOptions parse_covariance_prior(const po::variables_map& values);

// The prior of --prior pooled (nothing for --prior none): the centre, and nu = `given.count` (checked
// against --pooled-from) or, for auto, chosen on INPUT by `choose` over default_prior_counts or read
// from --pooled-from. `reader` gives each example's data matrix (its statistic "x"). UsageError for
// --prior none with a --pooled-from file that holds a prior (both files named).
std::optional<CovariancePrior> covariance_prior_option(const CovariancePriorOptions& given, const Dataset& data, long dim,
                                                       CovarianceForm form, const Estimator& reader,
                                                       TrainingChoices& choices, const PriorCountChooser& choose);

}  // namespace ppk::cli
