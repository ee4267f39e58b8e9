// The priors that several families of `ppk fit` share: strengths chosen by maximum evidence,
// --prior pooled with --pooled-estimate (gaussian, poisson, exponential), conjugate priors centred
// on INPUT's pooled statistics (gamma, dirichlet; poisson and exponential in gamma_rate_prior.hpp),
// the covariance prior of mixture, hmm and fhmm, and the inverse-Wishart priors of lds and slds.
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "covariance_prior.hpp"
#include "fit_family.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/estimate/pooled_priors.hpp"

namespace ppk::cli {

// A strength chosen by maximum evidence, as printed and saved; `dominates` says what a choice at the
// search's upper end means.
Choice evidence_choice(const StrengthChoice& choice, const std::string& dominates);

// The --pooled-estimate option of --prior pooled (gaussian, poisson, exponential).
void add_pooled_estimate_option(po::options_description& options);

// --prior fixed|pooled and --pooled-estimate: true for pooled (then `posterior_mean` is set);
// UsageError for other values, and for --pooled-estimate without --prior pooled.
bool pooled_prior_option(const po::variables_map& values, bool& posterior_mean);
// UsageError unless `method` is map: --prior pooled is a prior of the map estimator.
void check_pooled_prior_method(Method method);
// The first of `fixed_only`, the options of --prior fixed, given on the command line (null: none).
const char* first_given(const po::variables_map& values, std::initializer_list<const char*> fixed_only);

// The statistics of every example of `data` read by `reader`, computed on first use (never when a
// --pooled-from file supplies everything the prior needs); an example that cannot be read is an
// InputError naming it.
class LazyExampleStatistics {
 public:
  LazyExampleStatistics(const Estimator& reader, const Dataset& data, long dim)
      : reader_(reader), data_(data), dim_(dim) {}
  const std::vector<Statistics>& operator()() {
    if (!statistics_) {
      statistics_.emplace();
      for (const Example& example : data_.examples) {
        try {
          statistics_->push_back(reader_.statistics(example.vectors, dim_));
        } catch (const EstimationError& e) {
          throw data_.error_at(example, message_of(e));
        }
      }
    }
    return *statistics_;
  }

 private:
  const Estimator& reader_;
  const Dataset& data_;
  long dim_;
  std::optional<std::vector<Statistics>> statistics_;
};

// The centre of a conjugate prior, "prior-centre": column k the mean over every vector of INPUT of
// the sufficient statistic statistic_names[k] (a D x K matrix), or the one read from --pooled-from,
// whose shape must agree (UsageError naming both files).
Eigen::MatrixXd pooled_statistics_centre(const FitContext& context, LazyExampleStatistics& examples,
                                         const std::vector<std::string>& statistic_names);

// N0 of --prior pooled (gamma, dirichlet): --prior-count N0 as given, or, for --prior-count auto
// (the default), chosen on INPUT by `choose`; read from --pooled-from for a test file.
double pooled_prior_count(const FitContext& context, const std::function<Choice()>& choose);

// --prior fixed|pooled for gamma and dirichlet: true for pooled (which needs --estimator map and
// refuses the options of --prior fixed, `fixed_only`).
bool conjugate_prior_is_pooled(const FitContext& context, std::initializer_list<const char*> fixed_only);

// --prior pooled of mixture, hmm and fhmm: the centre and nu (chosen by `choose` for --prior-count auto).
std::optional<CovariancePrior> covariance_prior(const FitContext& context, CovarianceForm form, const Estimator& reader,
                                                const PriorCountChooser& choose);

// --prior-strength, --prior-state-noise, --prior-observation-noise (lds, slds): the inverse-Wishart
// priors of estimate_lds.hpp; "auto" (the default) chooses them on the training file
// (choose_lds_prior) or reads them from --pooled-from.
void add_lds_prior_options(po::options_description& options);
// The fields of LdsPrior (LdsFitOptions::prior) named by the flags of add_lds_prior_options.
inline const OptionFlags kLdsPriorFlags{{"prior.strength", "--prior-strength"},
                                        {"prior.state_noise", "--prior-state-noise"},
                                        {"prior.observation_noise", "--prior-observation-noise"}};

// The priors of an lds or slds fit: given values are recorded, "auto" ones chosen on INPUT (one
// choose_lds_prior for all of them) or read from --pooled-from.
void read_lds_prior(const FitContext& context, LdsFitOptions& options);
// Whether an lds or slds fit is per-example (neither --pooled, --adapt-from nor --fisher-from): only
// per-example fits have these priors to choose (a pooled fit has the data of every sequence, and an
// adapted fit's prior is centred on the pooled model), so a --prior-* given otherwise is a UsageError.
bool per_example_lds_fit(const FitRequest& request, const po::variables_map& values);

}  // namespace ppk::cli
