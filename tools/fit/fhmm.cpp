// ppk fit fhmm: a factorial HMM by EM.
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "fit_family.hpp"
#include "parallel.hpp"
#include "prior_options.hpp"
#include "ppk/estimate/estimate_fhmm.hpp"
#include "ppk/estimate/covariance_prior.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kFhmmHelp = R"(
fhmm: a factorial HMM (C chains of M states; x_t ~ N(sum_c W_c[:, k_t^c], Sigma))
  fitted to each sequence of real vectors x_0..x_{n-1}, one qid group of LIBSVM
  rows per sequence, by EM. --e-step exact: the scaled forward-backward
  recursions over the M^C product states (at most 1024). --e-step mean-field:
  the structured variational approximation of Ghahramani & Jordan (1997): one
  HMM per chain whose emissions see the other chains' expected means, updated in
  turn by forward-backward; EM then maximises a lower bound on the
  log-likelihood (exact when C = 1), at most 1000 states C M in all. Default:
  exact when M^C <= 1024, mean-field above. M-step with A = --smoothing
  pseudo-counts: pi_c and A_c from the chains' posterior marginals (+ A),
  W = (sum_t x_t E[s_t]') (sum_t E[s_t s_t'])^+ (s_t the stacked one-hot states
  of the chains), Sigma = (expected residual scatter + R I)/n: the MAP under
  Dirichlet(1 + A) priors and the ridge penalty -(R/2) tr Sigma^-1, so the
  penalised log-likelihood (or its bound) never decreases. Starts are random,
  seeded by (--seed, the sequence); the best of --restarts runs is kept.
  --prior pooled: Sigma ~ inverse-Wishart(NU, (NU - D - 1) C), C the training
  file's pooled within-sequence covariance (as for hmm), by MAP-EM:
  Sigma = ((NU - D - 1) C + residual scatter + R I)/(NU + n + D + 1);
  --prior-count auto chooses NU by the exact held-out likelihood of each
  sequence's last third under the plug-in fit to the rest (needs M^C <= 1024),
  printed, saved by --save-pooled, reused by --pooled-from. Not the default
  (--prior none: the ridge alone): not measured on real data.
  The row stores T = n - 1 or --length T (at most 10^6). The kernel between
  factorial HMMs is a mean-field lower bound (docs/families.md).
)";

void add_fhmm_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("chains", po::value<long>()->default_value(2)->value_name("C"), "the number of chains C >= 1")
      ("states", po::value<long>()->default_value(2)->value_name("M"), "states per chain M >= 1")
      ("e-step", po::value<std::string>()->value_name("E"),
       "exact (M^C <= 1024) or mean-field (structured variational; C M <= 1000); default: exact when M^C <= 1024")
      ("smoothing", po::value<double>()->default_value(0.1, "0.1")->value_name("A"),
       "pseudo-count A >= 0 added to every start and transition count")
      ("ridge", po::value<double>()->value_name("R"), "R > 0; default 1e-6 times the data's variance")
      ("length", po::value<long>()->value_name("T"), "the stored length T >= 0 of every row (default: n - 1)");
  // clang-format on
  add_covariance_prior_options(options, "none");
  add_em_options(options, 400, "at most N EM iterations per restart");
}

// The fields of FhmmFitOptions that these flags set.
const OptionFlags kFhmmFlags{{"chains", "--chains"},       {"states", "--states"}, {"e_step", "--e-step"},
                             {"smoothing", "--smoothing"}, {"ridge", "--ridge"},   {"length", "--length"}};

// The options of ppk fit fhmm: the library's options (their prior chosen on INPUT) and the covariance prior's.
struct FhmmOptions {
  FhmmFitOptions fit;
  CovariancePriorOptions prior;
};

FhmmOptions parse_fhmm_options(const po::variables_map& values) {
  FhmmOptions options;
  FhmmFitOptions& fit = options.fit;
  fit.chains = values["chains"].as<long>();
  fit.states = values["states"].as<long>();
  if (values.count("e-step")) {
    const std::string e_step = values["e-step"].as<std::string>();
    if (e_step != "exact" && e_step != "mean-field")
      throw UsageError("--e-step must be exact or mean-field, got '" + e_step + "'");
    fit.e_step = e_step == "exact" ? FhmmEStep::exact : FhmmEStep::mean_field;
  }
  fit.smoothing = option(values, "smoothing");
  if (values.count("ridge")) fit.ridge = option(values, "ridge");
  read_em_options(values, fit);
  if (values.count("length")) fit.length = values["length"].as<long>();
  options.prior = parse_covariance_prior(values);
  return options;
}

std::unique_ptr<Estimator> make_fhmm(const FitContext& context, const FhmmOptions& given) {
  FhmmFitOptions options = given.fit;
  const std::unique_ptr<Estimator> reader = fhmm_estimator(options);
  options.prior =
      covariance_prior(context, given.prior, CovarianceForm::full, *reader,
                       [&](const std::vector<Eigen::MatrixXd>& sequences, const Eigen::MatrixXd& centre,
                           const std::vector<double>& counts) {
                         return choose_fhmm_prior(sequences, options, centre, counts, 100, context.request.threads);
                       });
  return fhmm_estimator(options);
}

}  // namespace

FitFamily fhmm_family() {
  return {"fhmm",
          "factorial HMM by EM",
          kFhmmHelp,
          Method::ml,
          "a factorial HMM is fitted by EM (--smoothing sets its Dirichlet prior)",
          false,
          add_fhmm_options,
          typed_options<FhmmOptions, parse_fhmm_options, make_fhmm, read_sequence_input>,
          {kFhmmFlags, kCovariancePriorFlags, kEmOptionFlags}};
}

}  // namespace ppk::cli
