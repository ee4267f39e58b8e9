// ppk fit mi LIKELIHOOD [options] INPUT [-o OUTPUT]: one mutual-information row per datum (mi.hpp).
//
// Each line of INPUT is one datum x; its row holds g_x(theta) = P(x | theta) P_med(theta)^(1/2), so
// that svm-train -t ppk -g 1 trains on Q(x1, x2) = integral P(x1 | theta) P(x2 | theta) P_med(theta)
// dtheta and -t ppk_norm -g 1 on the MI kernel (Seeger, NIPS 2001, eqs. 2-3). A likelihood is one
// entry of kLikelihoods: its options, how its mediator is fitted, and how it is read back.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "fit_call.hpp"
#include "fit_family.hpp"
#include "mixture_options.hpp"
#include "ppk/core/data.hpp"
#include "ppk/families/mi.hpp"
#include "ppk/estimate/mi_mixture.hpp"
#include "ppk/core/row.hpp"
#include "ppk/estimate/estimate_mixture.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kFitMiUsage = R"(Usage: ppk fit mi LIKELIHOOD [options] INPUT [-o OUTPUT]
LIKELIHOOD: gaussian, multinomial, mixture

Mutual-information kernels (Seeger, NIPS 2001): with a likelihood P(x | theta)
and a mediator distribution P_med(theta),
  Q(x1, x2) = integral P(x1 | theta) P(x2 | theta) P_med(theta) dtheta,
  K(x1, x2) = Q(x1, x2) / sqrt(Q(x1, x1) Q(x2, x2)).
Each line of INPUT (a LIBSVM data file, one datum per line; no qid groups) becomes
one row of the family mi holding g_x = P(x | theta) P_med(theta)^(1/2), with the
line's label: svm-train -t ppk -g 1 then trains on Q, -t ppk_norm -g 1 on K
(the kernel is defined only at rho = 1).

The mediator is fitted by model-trust scaling (Seeger eq. 5) to the data of
--unlabeled (labels ignored), P_med ~ prior * prod_i P(x_i | theta)^(lambda/n),
from the prior (lambda = 0) to the posterior (lambda = n); without --unlabeled
it is the prior. Train and test rows must come from one mediator: fit it once
with --save-mediator, then make every file's rows with --mediator-from.
)";

constexpr const char* kGaussianHelp = R"(
gaussian: P(x | theta) = N(x | theta, s I), s = --var; the prior on theta is
  N(M 1, A0 I) (--prior-mean, --prior-var) or flat (the default). The mediator
  is N(theta | m, a I) with 1/a = 1/A0 + lambda/s, m = a (M/A0 + lambda x-bar/s),
  x-bar the mean of the unlabeled data; then K = exp(-a |x1-x2|^2 / (2 s (s + 2a))),
  an RBF kernel (a flat prior with s = p/2: beta = 2/(p(2 + lambda))). A flat
  prior needs --unlabeled data and lambda > 0.
)";

constexpr const char* kMultinomialHelp = R"(
multinomial: x a vector of counts (whole numbers >= 0), P(x | theta) the
  multinomial n!/prod_d x_d! prod_d theta_d^x_d (D >= 2), the mediator
  Dirichlet(alpha) with alpha = A + lambda x-bar (A = --prior-alpha, x-bar the
  mean unlabeled count vector). Q(x1, x2) = C(x1) C(x2) B(alpha + x1 + x2) / B(alpha),
  C the multinomial coefficients, B the multivariate Beta function.
)";

using Points = std::vector<Eigen::VectorXd>;

// A likelihood's own options, read once (MiLikelihood::parse): how it fits the mediator.
class MiFitOptions {
 public:
  virtual ~MiFitOptions() = default;
  // The mediator fitted to `unlabeled` (empty: the prior) with model-trust scaling lambda; `classes`
  // is the number of distinct labels of INPUT.
  virtual std::unique_ptr<MiMediator> fit(long dim, const Points& unlabeled, double lambda, long classes) const = 0;
};

struct MiLikelihood {
  const char* name;
  const char* help;
  void (*add_options)(po::options_description& options);
  // The options that describe the mediator's fit (excluded by --mediator-from).
  std::vector<const char*> fit_options;
  // Those options, read once; UsageError naming one that is out of range.
  std::unique_ptr<MiFitOptions> (*parse)(const po::variables_map& values);
  std::unique_ptr<MiMediator> (*from_json)(const nlohmann::json& object);
};

void add_gaussian_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("var", po::value<double>()->value_name("S"), "the likelihood's variance s > 0 (required)")
      ("prior-mean", po::value<double>()->default_value(0.0)->value_name("M"), "the prior mean M (every coordinate)")
      ("prior-var", po::value<double>()->value_name("A0"), "the prior variance A0 > 0 (default: a flat prior)");
  // clang-format on
}

// --var S (nothing when absent: required to fit), --prior-mean and --prior-var.
struct GaussianMiFitOptions final : MiFitOptions {
  std::optional<double> var;
  GaussianMiPrior prior;
  std::unique_ptr<MiMediator> fit(long dim, const Points& unlabeled, double lambda, long /*classes*/) const override {
    if (!var) throw UsageError("ppk fit mi gaussian needs --var S (the likelihood's variance)");
    if (unlabeled.empty() && std::isinf(prior.variance))
      throw UsageError(
          "without --unlabeled the mediator is the prior, and the default flat prior is not a "
          "distribution: give --unlabeled FILE (with --lambda > 0) or --prior-var A0");
    return std::make_unique<GaussianMiMediator>(GaussianMiMediator::fit(dim, *var, prior, unlabeled, lambda));
  }
};

std::unique_ptr<MiFitOptions> parse_gaussian(const po::variables_map& values) {
  auto options = std::make_unique<GaussianMiFitOptions>();
  if (values.count("var")) options->var = option(values, "var");
  GaussianMiPrior& prior = options->prior;
  prior.mean = option(values, "prior-mean");
  if (values.count("prior-var")) {
    prior.variance = option(values, "prior-var");
    if (!(prior.variance > 0.0) || !std::isfinite(prior.variance))
      throw UsageError("--prior-var must be a finite number > 0, got " + format_double(prior.variance));
  }
  if (!std::isfinite(prior.mean)) throw UsageError("--prior-mean must be finite");
  return options;
}

std::unique_ptr<MiMediator> gaussian_from_json(const nlohmann::json& object) {
  return std::make_unique<GaussianMiMediator>(GaussianMiMediator::from_json(object));
}

void add_multinomial_options(po::options_description& options) {
  options.add_options()("prior-alpha", po::value<double>()->default_value(1.0)->value_name("A"),
                        "the Dirichlet(A) prior, A > 0");
}

// --prior-alpha A.
struct MultinomialMiFitOptions final : MiFitOptions {
  double alpha = 1.0;
  std::unique_ptr<MiMediator> fit(long dim, const Points& unlabeled, double lambda, long /*classes*/) const override {
    if (dim < 2) throw UsageError("a multinomial needs dimension D >= 2 (give --dim D)");
    return std::make_unique<MultinomialMiMediator>(MultinomialMiMediator::fit(dim, alpha, unlabeled, lambda));
  }
};

std::unique_ptr<MiFitOptions> parse_multinomial(const po::variables_map& values) {
  auto options = std::make_unique<MultinomialMiFitOptions>();
  options->alpha = option(values, "prior-alpha");
  if (!(options->alpha > 0.0) || !std::isfinite(options->alpha))
    throw UsageError("--prior-alpha must be a finite number > 0, got " + format_double(options->alpha));
  return options;
}

std::unique_ptr<MiMediator> multinomial_from_json(const nlohmann::json& object) {
  return std::make_unique<MultinomialMiMediator>(MultinomialMiMediator::from_json(object));
}

constexpr const char* kMixtureHelp = R"(
mixture: the diagonal mixture MI kernel (Seeger section 2.2, eq. 6 with
  W = diag(E_med[pi_s])): P(x | theta) = sum_s pi_s N(x | mu_s, Sigma_s) and
  Q(x1, x2) = sum_s E_med[pi_s] integral N(x1 | mu_s, Sigma_s) N(x2 | mu_s, Sigma_s)
  P_med(mu_s) dmu_s, small across clusters and large within one. The mediator is
  an approximation: a mixture of K Gaussians fitted to --unlabeled by EM exactly
  as `ppk fit mixture` (--components, --cov, --ridge, --iterations, --tolerance,
  --restarts, --seed); its covariances Sigma_s and responsibilities r_is are point
  estimates held fixed, only the means and the weights are integrated. With
  N_s = sum_i r_is, xbar_s the responsibility-weighted mean, a flat prior on each
  mean and model-trust scaling (lambda > 0 required):
    P_med(mu_s) = N(xbar_s, Sigma_s n / (lambda N_s)),
    E_med[pi_s] = (A + lambda N_s / n) / (K A + lambda)  (Dirichlet(A + lambda N_s / n)),
  A = --prior-alpha. Each datum's row has K blocks, one per component.
  K: one component per class by default (--components classes: the distinct
  labels of INPUT). The diagonal kernel treats components as unrelated, so a
  class spread over several is split: on real data (docs/latent-models.md) 8
  or 16 components lost to as many as classes at every training size, and
  coupling the components (Seeger's non-diagonal W) did not win it back.
)";

// --components classes, the default: measured on real data (docs/latent-models.md, "The MI kernel
// across components"), one component per class beat every larger K, and the remedies tried for
// classes spread over several components did not recover it.
const ComponentsOption kClassComponents{"classes", "K|classes",
                                        "the number of components K >= 1; classes: one per distinct label of INPUT"};

void add_mixture_likelihood_options(po::options_description& options) {
  add_mixture_options(options, kClassComponents);
  options.add_options()("prior-alpha", po::value<double>()->default_value(1.0)->value_name("A"),
                        "the Dirichlet(A) prior on the weights, A > 0");
}

// The mixture's EM options (as ppk fit mixture's, --components classes by default) and --prior-alpha A.
struct MixtureMiFitOptions final : MiFitOptions {
  MixtureOptions mixture;
  double alpha = 1.0;
  std::unique_ptr<MiMediator> fit(long dim, const Points& unlabeled, double lambda, long classes) const override {
    MixtureOptions options = mixture;
    use_class_components(options, classes);
    if (unlabeled.empty())
      throw UsageError(
          "ppk fit mi mixture needs --unlabeled FILE (the data the mixture is fitted to) or --mediator-from FILE");
    try {
      return std::make_unique<MixtureMediator>(MixtureMediator::fit(dim, options.fit, unlabeled, lambda, alpha));
    } catch (const EstimationError& e) {
      throw InputError("--unlabeled: " + message_of(e));
    }
  }
};

std::unique_ptr<MiFitOptions> parse_mixture(const po::variables_map& values) {
  use_option_flags(kMixtureOptionFlags);
  use_option_flags(kEmOptionFlags);
  auto options = std::make_unique<MixtureMiFitOptions>();
  options->mixture = parse_mixture_options(values, false, true);
  options->alpha = option(values, "prior-alpha");
  return options;
}

std::unique_ptr<MiMediator> mixture_from_json(const nlohmann::json& object) {
  return std::make_unique<MixtureMediator>(MixtureMediator::from_json(object));
}

const MiLikelihood kLikelihoods[] = {
    {"gaussian",
     kGaussianHelp,
     add_gaussian_options,
     {"var", "prior-mean", "prior-var"},
     parse_gaussian,
     gaussian_from_json},
    {"multinomial", kMultinomialHelp, add_multinomial_options, {"prior-alpha"}, parse_multinomial, multinomial_from_json},
    {"mixture",
     kMixtureHelp,
     add_mixture_likelihood_options,
     {"components", "cov", "ridge", "iterations", "tolerance", "restarts", "seed", "prior-alpha"},
     parse_mixture,
     mixture_from_json},
};

std::string likelihood_names() {
  std::string names;
  for (const MiLikelihood& likelihood : kLikelihoods) names += std::string(names.empty() ? "" : ", ") + likelihood.name;
  return names;
}

po::options_description common_options() {
  po::options_description options("Options");
  // clang-format off
  options.add_options()
      ("output,o", po::value<std::string>()->default_value("-")->value_name("OUTPUT"),
       "where to write the rows ('-' = standard output); written only if every datum has its row")
      ("unlabeled", po::value<std::string>()->value_name("FILE"), "the data the mediator is fitted to (LIBSVM rows; labels ignored)")
      ("lambda", po::value<double>()->default_value(1.0)->value_name("L"),
       "model-trust scaling L >= 0: 0 the prior, n (the number of unlabeled points) the posterior")
      ("save-mediator", po::value<std::string>()->value_name("FILE"), "write the mediator to FILE (JSON)")
      ("mediator-from", po::value<std::string>()->value_name("FILE"),
       "use the mediator saved in FILE (excludes --unlabeled, --lambda and the likelihood's options)")
      ("dim", po::value<long>()->value_name("D"),
       "the data's dimension (default: the mediator's, or the largest index in INPUT and --unlabeled)")
      ("help,h", "this text");
  // clang-format on
  return options;
}

void print_help(const MiLikelihood* only) { print_help_with_entries(kFitMiUsage, kLikelihoods, only, common_options()); }

bool given(const po::variables_map& values, const char* name) { return values.count(name) && !values[name].defaulted(); }

// Data of one datum per line (no qid groups), its format checked as every fit command checks it.
Dataset read_datum_source(const FitSource& source) {
  check_fit_format(source, FitFormats{true, false, false, false}, "ppk fit mi",
                   source.format && source.format->grouped
                       ? "qid groups are not data for MI rows: each line is one datum x (remove the qid: fields)"
                       : "");
  if (source.examples) {
    Dataset data = *source.examples;
    data.source = source.name;
    return data;
  }
  const std::unique_ptr<std::istream> text = source.open();
  return read_data(*text, source.name);
}

// The example's vector as a dense D-vector; an index beyond D is an error naming the line.
Eigen::VectorXd dense_datum(const Dataset& data, const Example& example, long dim) {
  Eigen::VectorXd x = Eigen::VectorXd::Zero(dim);
  for (const Feature& feature : example.vectors.front()) {
    if (feature.coord >= dim)
      throw data.error_at(example, "index " + std::to_string(feature.coord + 1) + " is beyond the mediator's dimension " +
                                       std::to_string(dim));
    x[feature.coord] = feature.value;
  }
  return x;
}

// The mediator whose JSON is `text` (what --save-mediator writes), named `name` in messages.
std::unique_ptr<MiMediator> parse_mediator(const MiLikelihood& likelihood, std::istream& text, const std::string& name) {
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(name + ": not a JSON mediator: " + e.what());
  }
  if (object.is_object() && object.contains("mediator") && object["mediator"] != likelihood.name)
    throw InputError(name + ": field \"mediator\": a " + object["mediator"].dump() + " mediator, but the likelihood is " +
                     likelihood.name);
  try {
    return likelihood.from_json(object);
  } catch (const ModelError& e) {
    throw InputError(name + ": " + e.what());
  }
}

// `ppk fit mi LIKELIHOOD`'s options, read and checked once (parse_mi_request): no option is looked up
// after it.
struct MiRequest {
  const MiLikelihood* likelihood = nullptr;
  double lambda = 1.0;                       // --lambda L
  std::optional<std::string> unlabeled;      // --unlabeled FILE
  std::optional<std::string> mediator_from;  // --mediator-from FILE
  std::optional<std::string> save_mediator;  // --save-mediator FILE
  std::optional<long> dim;                   // --dim D
  std::unique_ptr<MiFitOptions> fit;         // the likelihood's own
};

std::optional<std::string> path_option(const po::variables_map& values, const char* name) {
  if (!values.count(name)) return std::nullopt;
  return values[name].as<std::string>();
}

MiRequest parse_mi_request(const MiLikelihood& likelihood, const po::variables_map& values) {
  MiRequest request;
  request.likelihood = &likelihood;
  request.lambda = values["lambda"].as<double>();
  if (!(request.lambda >= 0.0) || !std::isfinite(request.lambda))
    throw UsageError("--lambda must be a finite number >= 0, got " + format_double(request.lambda));
  request.unlabeled = path_option(values, "unlabeled");
  request.mediator_from = path_option(values, "mediator-from");
  request.save_mediator = path_option(values, "save-mediator");
  request.dim = dim_option(values);
  request.fit = likelihood.parse(values);
  return request;
}

// The mediator fitted to the data of --unlabeled (`unlabeled_given` when a program holds them).
std::unique_ptr<MiMediator> fit_mediator(const MiRequest& request, const Dataset& input,
                                         const FitSource* unlabeled_given) {
  Dataset unlabeled;
  if (unlabeled_given != nullptr)
    unlabeled = read_datum_source(*unlabeled_given);
  else if (request.unlabeled)
    unlabeled = read_datum_source(read_fit_source(*request.unlabeled));
  const long dim = request.dim.value_or(std::max(input.max_index, unlabeled.max_index));
  if (dim < 1) throw InputError(input.source + ": no datum has any feature; give --dim D");
  Points points;
  for (const Example& example : unlabeled.examples) points.push_back(dense_datum(unlabeled, example, dim));
  std::set<double> labels;
  for (const Example& example : input.examples) labels.insert(example.label);
  try {
    return request.fit->fit(dim, points, request.lambda, static_cast<long>(labels.size()));
  } catch (const MiPointError& e) {
    throw unlabeled.error_at(unlabeled.examples[e.point()], message_of(e));
  } catch (const ModelError& e) {
    throw UsageError(message_of(e));
  }
}

// The likelihood called `name`; UsageError naming the likelihoods otherwise.
const MiLikelihood& find_likelihood(const std::string& name) {
  for (const MiLikelihood& candidate : kLikelihoods)
    if (name == candidate.name) return candidate;
  throw UsageError("unknown likelihood '" + name + "'; ppk fit mi supports " + likelihood_names());
}

// The options of `ppk fit mi LIKELIHOOD`: those every likelihood takes and its own.
po::options_description mi_options_table(const MiLikelihood& likelihood) {
  po::options_description options = common_options();
  likelihood.add_options(options);
  return options;
}

// UsageError for options a reused mediator (--mediator-from, or a program's) excludes.
void check_reused_mediator_options(const MiLikelihood& likelihood, const po::variables_map& values,
                                   const std::string& reused) {
  std::vector<const char*> excluded{"unlabeled", "lambda"};
  excluded.insert(excluded.end(), likelihood.fit_options.begin(), likelihood.fit_options.end());
  for (const char* name : excluded)
    if (given(values, name)) throw UsageError(reused + " reuses a fitted mediator: it excludes --" + name);
}

// The likelihood named by args[0] and the options after it, with INPUT; nullptr after printing the
// help when asked for it.
const MiLikelihood* parse_fit_mi(const std::vector<std::string>& args, po::variables_map& values) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    if (args.empty()) throw UsageError("missing the likelihood: " + likelihood_names());
    print_help(nullptr);
    return nullptr;
  }
  const MiLikelihood& likelihood = find_likelihood(args[0]);
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (wants_help(rest)) {
    print_help(&likelihood);
    return nullptr;
  }
  po::options_description options = mi_options_table(likelihood);
  po::positional_options_description positional;
  options.add_options()("input", po::value<std::string>(), "INPUT");
  positional.add("input", 1);
  values = parse_command_line(rest, options, positional);
  if (!values.count("input")) throw UsageError("missing INPUT (a data file, or '-' for standard input)");
  if (values.count("mediator-from")) check_reused_mediator_options(likelihood, values, "--mediator-from FILE");
  return &likelihood;
}

// The rows of a fit of mi, and its mediator.
struct MiRows {
  std::vector<LabeledRow> rows;
  std::unique_ptr<MiMediator> mediator;
};

// One row per datum of `input`, by `mediator` (null: the one fitted, or read from --mediator-from,
// as the request says; `unlabeled` holds --unlabeled's data when a program gives them).
MiRows fit_mi_rows(const MiRequest& request, const FitSource& input, std::unique_ptr<MiMediator> mediator,
                   const FitSource* unlabeled) {
  const Dataset data = read_datum_source(input);
  if (!mediator && request.mediator_from) {
    InputFile file(*request.mediator_from);
    mediator = parse_mediator(*request.likelihood, file.stream(), file.name());
    if (request.dim && *request.dim != mediator->dim())
      throw InputError(file.name() + ": the mediator's dimension is " + std::to_string(mediator->dim()) +
                       ", but --dim is " + std::to_string(*request.dim));
  } else if (!mediator) {
    mediator = fit_mediator(request, data, unlabeled);
  }
  MiRows fitted;
  for (const Example& example : data.examples) {
    try {
      fitted.rows.push_back(
          LabeledRow{example.label, encode_row(*mediator->row(dense_datum(data, example, mediator->dim())))});
    } catch (const ModelError& e) {
      throw data.error_at(example, message_of(e));
    }
  }
  fitted.mediator = std::move(mediator);
  return fitted;
}

// --save-mediator's file, once every row is made.
void save_mediator(const MiRequest& request, const MiMediator& mediator) {
  if (request.save_mediator) write_lines(*request.save_mediator, {mediator.to_json().dump()});
}

}  // namespace

int run_fit_mi(const std::vector<std::string>& args) {
  po::variables_map values;
  const MiLikelihood* likelihood = parse_fit_mi(args, values);
  if (likelihood == nullptr) return 0;
  const MiRequest request = parse_mi_request(*likelihood, values);
  const FitSource source = read_fit_source(values["input"].as<std::string>());
  OutputFile output(values["output"].as<std::string>());
  const MiRows fitted = fit_mi_rows(request, source, nullptr, nullptr);
  save_mediator(request, *fitted.mediator);
  for (const LabeledRow& row : fitted.rows) output.stream() << format_row_line(row.label, row.row) << '\n';
  output.commit();
  return 0;
}

FittedRows fit_mi_in_memory(const MiCall& call, const FitSource& source) {
  const MiLikelihood& likelihood = find_likelihood(call.likelihood);
  refuse_output_option(call.options);
  const po::variables_map values = parse_option_keywords(call.options, mi_options_table(likelihood));
  std::unique_ptr<MiMediator> mediator;
  if (call.mediator) {
    if (values.count("mediator-from"))
      throw UsageError(
          "--mediator-from reads a mediator file, and the call holds the mediator of a training fit: give "
          "one");
    check_reused_mediator_options(likelihood, values, "the mediator of a training fit");
    std::istringstream text(*call.mediator);
    mediator = parse_mediator(likelihood, text, "the training fit's mediator");
  } else if (values.count("mediator-from")) {
    check_reused_mediator_options(likelihood, values, "--mediator-from FILE");
  }
  if (call.unlabeled && values.count("unlabeled"))
    throw UsageError("--unlabeled names a file, and the call holds the unlabeled data: give one");
  const MiRequest request = parse_mi_request(likelihood, values);
  MiRows fitted = fit_mi_rows(request, source, std::move(mediator), call.unlabeled ? &*call.unlabeled : nullptr);
  save_mediator(request, *fitted.mediator);
  FittedRows rows{std::move(fitted.rows), std::nullopt};
  if (call.keep_mediator) rows.pool = fitted.mediator->to_json().dump();
  return rows;
}

}  // namespace ppk::cli
