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

// The options of a family with a prior fixed or pooled on INPUT (gaussian, poisson, exponential,
// gamma, dirichlet): the library's options as given (`fit`; its method is the context's, and with
// --prior pooled the prior's centre and, when `choose_strength`, its strength are chosen on INPUT or
// read from --pooled-from), --prior pooled, whether the prior's strength (--prior-count,
// --prior-shape) is auto, and the first option of --prior fixed given (null: none), which --prior
// pooled refuses.
template <class FitOptions>
struct PriorFitOptions {
  FitOptions fit;
  bool pooled = false;
  bool choose_strength = false;
  const char* fixed_option = nullptr;
};

// --prior fixed|pooled: true for pooled; UsageError for another value.
bool prior_is_pooled(const po::variables_map& values);
// --prior fixed|pooled and --pooled-estimate: true for pooled (then `posterior_mean` is set);
// UsageError for other values, and for --pooled-estimate without --prior pooled.
bool pooled_prior_option(const po::variables_map& values, bool& posterior_mean);
// UsageError unless `method` is map: --prior pooled is a prior of the map estimator.
void check_pooled_prior_method(Method method);
// The first of `fixed_only`, the options of --prior fixed, given on the command line (null: none).
const char* first_given(const po::variables_map& values, std::initializer_list<const char*> fixed_only);
// The prior's strength --NAME, the prior's `what` (its count, its shape): a number (default
// `fixed_default` with --prior fixed) or auto (nothing), the default of --prior pooled, which only
// --prior pooled takes.
std::optional<double> prior_strength_option(const po::variables_map& values, const char* name, bool pooled,
                                            const char* fixed_default, const char* what);
// --prior-count N0|auto (default 1 with --prior fixed) and, with --prior pooled (options.pooled,
// read already), the first of the options of --prior fixed `fixed_only` given, into `options`.
template <class FitOptions>
void parse_prior_count(const po::variables_map& values, std::initializer_list<const char*> fixed_only,
                       PriorFitOptions<FitOptions>& options) {
  const std::optional<double> count = prior_strength_option(values, "prior-count", options.pooled, "1", "strength");
  options.choose_strength = !count;
  if (count) options.fit.prior_count = *count;
  if (options.pooled) options.fixed_option = first_given(values, fixed_only);
}

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

// The strength `name` of --prior pooled (gaussian, gamma and dirichlet "prior-count", poisson and
// exponential "prior-shape"): `given` as given, or, when `choose_strength` (auto), chosen on INPUT by
// `choose`; read from --pooled-from for a test file.
double pooled_prior_strength(const FitContext& context, const char* name, bool choose_strength, double given,
                             const std::function<Choice()>& choose);

// --prior pooled of a conjugate prior (gamma, dirichlet): UsageError unless the estimator is map and
// no option of --prior fixed (`fixed_option`, null: none) was given.
void check_pooled_conjugate_prior(Method method, const char* fixed_option);

// --prior pooled of mixture, hmm and fhmm (`given`): the centre and nu (chosen by `choose` for
// --prior-count auto).
std::optional<CovariancePrior> covariance_prior(const FitContext& context, const CovariancePriorOptions& given,
                                                CovarianceForm form, const Estimator& reader,
                                                const PriorCountChooser& choose);

// --prior-strength, --prior-state-noise, --prior-observation-noise (lds, slds): the inverse-Wishart
// priors of estimate_lds.hpp; "auto" (the default) chooses them on the training file
// (choose_lds_prior) or reads them from --pooled-from.
void add_lds_prior_options(po::options_description& options);
// The fields of LdsPrior (LdsFitOptions::prior) named by the flags of add_lds_prior_options.
inline const OptionFlags kLdsPriorFlags{{"prior.strength", "--prior-strength"},
                                        {"prior.state_noise", "--prior-state-noise"},
                                        {"prior.observation_noise", "--prior-observation-noise"}};

// The priors of add_lds_prior_options as given: each a number, or auto (nothing), and the first of
// them given (null: none), which only per-example fits take.
struct LdsPriorOptions {
  std::optional<double> strength, state_noise, observation_noise;
  const char* given = nullptr;
};
// UsageError for a value out of range.
LdsPriorOptions parse_lds_prior(const po::variables_map& values);
// The options of ppk fit lds and ppk fit slds (LdsFitOptions, SldsFitOptions): the library's options
// as given (`fit`), whether --state-dim was given (a fit from a pool file reads it there; the others
// need it), and the priors.
template <class FitOptions>
struct LdsFamilyOptions {
  FitOptions fit;
  bool state_dim_given = false;
  LdsPriorOptions prior;
};
// The options lds and slds share (--state-dim, --ridge, the EM options, --length and the priors) into `options`.
template <class FitOptions>
void parse_lds_family_options(const po::variables_map& values, LdsFamilyOptions<FitOptions>& options) {
  FitOptions& fit = options.fit;
  options.state_dim_given = values.count("state-dim") > 0;
  if (options.state_dim_given) fit.state_dim = values["state-dim"].as<long>();
  if (values.count("ridge")) fit.ridge = option(values, "ridge");
  read_em_options(values, fit);
  if (values.count("length")) fit.length = values["length"].as<long>();
  options.prior = parse_lds_prior(values);
}

// The priors `prior` of an lds or slds fit into `options`: given values are recorded, auto ones
// chosen on INPUT (one choose_lds_prior for all of them) or read from --pooled-from.
void read_lds_prior(const FitContext& context, const LdsPriorOptions& prior, LdsFitOptions& options);
// Whether an lds or slds fit is per-example (neither --pooled, --adapt-from nor --fisher-from): only
// per-example fits have these priors to choose (a pooled fit has the data of every sequence, and an
// adapted fit's prior is centred on the pooled model), so a --prior-* given otherwise is a UsageError.
bool per_example_lds_fit(const FitRequest& request, const LdsPriorOptions& prior);

}  // namespace ppk::cli
