// ppk fit FAMILY [options] INPUT [-o OUTPUT]: one model row per example.
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "ppk/data.hpp"
#include "ppk/estimate.hpp"
#include "ppk/row.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kFitUsage = R"(Usage: ppk fit gaussian|bernoulli|multinomial [options] INPUT [-o OUTPUT]

Fits one model per example of INPUT, a LIBSVM data file ('-' = standard input),
and writes one model row per example, in input order, with the example's label.
An example is one line 'label index:value ...', or, when the lines carry qid:
(the SVMlight convention), the run of consecutive lines sharing 'label qid:N'.
)";

constexpr const char* kGaussianHelp = R"(
gaussian: N(mu, Sigma) by maximum likelihood from the example's vectors x_1..x_n:
  mu = mean of the x_i;  S = (1/n) sum (x_i - mu)(x_i - mu)';  Sigma = S + R I
  (full), diag(S) + R I (diag) or (trace(S)/D + R) I (iso). With --var V only mu
  is fitted and Sigma = V I: one vector x gives N(x, V I), whose kernels are RBF
  kernels. Without --ridge or --var, an example needs enough vectors for a
  non-singular ML covariance (2 for iso/diag, D + 1 for full).
)";

constexpr const char* kBernoulliHelp = R"(
bernoulli: independent binary features (a non-zero value counts as 1) of the
  example's n vectors, k_d of which have feature d:
  g_d = (k_d + A) / (n + 2A), the posterior mean under a Beta(A, A) prior
  (A = 1: Laplace's rule; A = 0: maximum likelihood). Rows list only the
  features that occur; the others share the base probability A / (n + 2A).
)";

constexpr const char* kMultinomialHelp = R"(
multinomial: counts c_d >= 0 (summed over the example's vectors), N = sum c_d:
  a_d = (c_d + A) / (N + A D), the posterior mean under a Dirichlet(A) prior
  (A = 1: Laplace; A = 0: maximum likelihood). Rows list only the words that
  occur; the others share the base probability A / (N + A D), so a short
  document over a large vocabulary stays sparse. --trials selects the model:
  one = a single draw (any rho), S = S draws, all = summed over all draw counts
  with decay L (both need rho = 1/2: svm-train -g 0.5).
)";

struct FitFamily {
  const char* name;
  const char* help;
  // Adds the family's options to `options`.
  void (*add_options)(po::options_description& options);
  // Reads the family's options and returns its estimator.
  std::function<std::unique_ptr<Model>(const std::vector<SparseVector>&, long)> (*estimator)(
      const po::variables_map& values);
};

void add_gaussian_options(po::options_description& options) {
  options.add_options()
      ("cov", po::value<std::string>()->default_value("full")->value_name("iso|diag|full"),
       "covariance form: isotropic (sigma^2 I), diagonal, or full")
      ("var", po::value<double>()->value_name("V"),
       "fixed isotropic variance V > 0; only the mean is fitted (no --ridge; --cov iso)")
      ("ridge", po::value<double>()->default_value(0.0)->value_name("R"),
       "R >= 0 added to the covariance diagonal (0: maximum likelihood)");
}

std::function<std::unique_ptr<Model>(const std::vector<SparseVector>&, long)> gaussian_estimator(
    const po::variables_map& values) {
  GaussianFitOptions options;
  const std::string form = values["cov"].as<std::string>();
  if (form == "iso")
    options.covariance = CovarianceForm::isotropic;
  else if (form == "diag")
    options.covariance = CovarianceForm::diagonal;
  else if (form == "full")
    options.covariance = CovarianceForm::full;
  else
    throw UsageError("--cov must be iso, diag or full, got '" + form + "'");
  options.ridge = values["ridge"].as<double>();
  if (!(options.ridge >= 0) || !std::isfinite(options.ridge))
    throw UsageError("--ridge must be a finite number >= 0, got " + format_double(options.ridge));
  if (values.count("var")) {
    const double variance = values["var"].as<double>();
    if (!(variance > 0) || !std::isfinite(variance))
      throw UsageError("--var must be a finite number > 0, got " + format_double(variance));
    if (!values["cov"].defaulted() && options.covariance != CovarianceForm::isotropic)
      throw UsageError("--var fixes an isotropic covariance; it cannot be combined with --cov " +
                       form);
    if (!values["ridge"].defaulted())
      throw UsageError("--var fixes the covariance; it cannot be combined with --ridge");
    options.covariance = CovarianceForm::isotropic;
    options.variance = variance;
  }
  return [options](const std::vector<SparseVector>& vectors, long dim) {
    return std::unique_ptr<Model>(fit_gaussian(vectors, dim, options));
  };
}

void add_alpha_option(po::options_description& options, const char* description) {
  options.add_options()("alpha", po::value<double>()->default_value(1.0)->value_name("A"),
                        description);
}

double alpha_option(const po::variables_map& values) {
  const double alpha = values["alpha"].as<double>();
  if (!(alpha >= 0) || !std::isfinite(alpha))
    throw UsageError("--alpha must be a finite number >= 0, got " + format_double(alpha));
  return alpha;
}

void add_bernoulli_options(po::options_description& options) {
  add_alpha_option(options, "additive smoothing: g_d = (k_d + A) / (n + 2A)");
}

std::function<std::unique_ptr<Model>(const std::vector<SparseVector>&, long)> bernoulli_estimator(
    const po::variables_map& values) {
  const double alpha = alpha_option(values);
  return [alpha](const std::vector<SparseVector>& vectors, long dim) {
    return std::unique_ptr<Model>(fit_bernoulli(vectors, dim, alpha));
  };
}

void add_multinomial_options(po::options_description& options) {
  add_alpha_option(options, "additive smoothing: a_d = (c_d + A) / (N + A D)");
  options.add_options()
      ("trials", po::value<std::string>()->default_value("one")->value_name("one|S|all"),
       "the model's number of draws: one, a whole number S >= 1, or all")
      ("decay", po::value<double>()->value_name("L"),
       "with --trials all (required there): the kernel is 1/(1 - L B), B = sum_d "
       "sqrt(a_d a'_d), 0 < L <= 1; L = 1 makes every self-kernel infinite, so an SVM "
       "needs L < 1");
}

Trials trials_option(const po::variables_map& values) {
  Trials trials;
  const std::string text = values["trials"].as<std::string>();
  if (text == "one") {
    trials.kind = Trials::one_event;
  } else if (text == "all") {
    trials.kind = Trials::all;
  } else {
    std::size_t used = 0;
    long count = 0;
    try {
      count = std::stol(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || used == 0 || count < 1)
      throw UsageError("--trials must be one, all or a whole number >= 1, got '" + text + "'");
    trials.kind = Trials::fixed;
    trials.count = count;
  }
  if (values.count("decay")) {
    if (trials.kind != Trials::all) throw UsageError("--decay applies only to --trials all");
    trials.decay = values["decay"].as<double>();
    if (!(trials.decay > 0 && trials.decay <= 1))
      throw UsageError("--decay must be in (0, 1], got " + format_double(trials.decay));
  } else if (trials.kind == Trials::all) {
    throw UsageError("--trials all needs --decay L: the kernel sums (L B)^s over all s, which "
                     "is 1/(1 - L B); with L = 1 every self-kernel is infinite, so an SVM "
                     "needs 0 < L < 1");
  }
  return trials;
}

std::function<std::unique_ptr<Model>(const std::vector<SparseVector>&, long)>
multinomial_estimator(const po::variables_map& values) {
  MultinomialFitOptions options;
  options.alpha = alpha_option(values);
  options.trials = trials_option(values);
  return [options](const std::vector<SparseVector>& vectors, long dim) {
    return std::unique_ptr<Model>(fit_multinomial(vectors, dim, options));
  };
}

const FitFamily kFamilies[] = {
    {"gaussian", kGaussianHelp, add_gaussian_options, gaussian_estimator},
    {"bernoulli", kBernoulliHelp, add_bernoulli_options, bernoulli_estimator},
    {"multinomial", kMultinomialHelp, add_multinomial_options, multinomial_estimator},
};

po::options_description common_options() {
  po::options_description options("Options");
  options.add_options()
      ("output,o", po::value<std::string>()->default_value("-")->value_name("OUTPUT"),
       "where to write the rows ('-' = standard output); written only if every example fits")
      ("dim", po::value<long>()->value_name("D"),
       "the models' dimension (number of features, vocabulary size); default: the largest "
       "index in INPUT. Give the same D to files fitted separately (train and test)")
      ("help,h", "this text");
  return options;
}

po::options_description family_options(const FitFamily& family) {
  po::options_description options = common_options();
  family.add_options(options);
  return options;
}

void print_fit_help(const FitFamily* only) {
  std::cout << kFitUsage;
  for (const FitFamily& family : kFamilies) {
    if (only != nullptr && only != &family) continue;
    std::cout << family.help << "\n";
    po::options_description options(std::string(family.name) + " options");
    family.add_options(options);
    std::cout << options;
  }
  std::cout << "\n" << common_options();
}

// The models' dimension: --dim, or the largest index in the data.
long model_dimension(const Dataset& data, const po::variables_map& values) {
  if (!values.count("dim")) {
    if (data.max_index == 0 && !data.examples.empty())
      throw InputError(data.source + ": no example has any feature; give --dim D");
    return data.max_index;
  }
  const long dim = values["dim"].as<long>();
  if (dim < 1) throw UsageError("--dim must be at least 1, got " + std::to_string(dim));
  return dim;
}

}  // namespace

int run_fit(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    if (args.empty()) throw UsageError("missing the family: gaussian, bernoulli or multinomial");
    print_fit_help(nullptr);
    return 0;
  }
  const FitFamily* family = nullptr;
  for (const FitFamily& candidate : kFamilies)
    if (args[0] == candidate.name) family = &candidate;
  if (family == nullptr)
    throw UsageError("unknown family '" + args[0] +
                     "'; ppk fit supports gaussian, bernoulli and multinomial");
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (wants_help(rest)) {
    print_fit_help(family);
    return 0;
  }

  po::options_description options = family_options(*family);
  options.add_options()("input", po::value<std::string>(), "INPUT");
  po::positional_options_description positional;
  positional.add("input", 1);
  const po::variables_map values = parse_command_line(rest, options, positional);
  if (!values.count("input"))
    throw UsageError("missing INPUT (a LIBSVM data file, or '-' for standard input)");
  const auto estimate = family->estimator(values);

  InputFile input(values["input"].as<std::string>());
  const Dataset data = read_data(input.stream(), input.name());
  const long dim = model_dimension(data, values);

  std::vector<std::string> lines;
  lines.reserve(data.examples.size());
  for (const Example& example : data.examples) {
    std::unique_ptr<Model> model;
    try {
      model = estimate(example.vectors, dim);
    } catch (const EstimationError& e) {
      throw data.error_at(example, e.what());
    }
    lines.push_back(format_row_line(example.label, encode_row(*model)));
  }
  write_lines(values["output"].as<std::string>(), lines);
  return 0;
}

}  // namespace ppk::cli
