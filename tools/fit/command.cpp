// ppk fit FAMILY [options] INPUT [-o OUTPUT]: one model row per example. The command: its usage,
// the options every family shares (--estimator, --shrink, --save-pooled, --pooled-from, --threads),
// the pool files and the fit of every example. Each family is a file of its own (families.cpp).
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fit_family.hpp"
#include "parallel.hpp"
#include "ppk/core/data.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/core/row.hpp"
#include "training_choices.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kFitInput = R"(
Fits one model per example of INPUT, a LIBSVM data file ('-' = standard input),
and writes one model row per example, in input order, with the example's label.
An example is one line 'label index:value ...', or, when the lines carry qid:
(the SVMlight convention), the run of consecutive lines sharing 'label qid:N'.
The sequence families (hmm, fhmm, lds, slds) need qid groups: one sequence per
group. hmm also reads symbol sequences: FASTA or 'LABEL SEQUENCE' lines.
INPUT's format is detected from its first line that is neither blank nor a '#'
comment: a FASTA header '>...', a LIBSVM row (a label, alone or with qid:N or
index:value fields) or a 'LABEL SEQUENCE' line (a label and anything else). A
file in a format the family does not read is refused, naming the file, the
line and what to use instead.
)";

constexpr const char* kEstimatorHelp = R"(
Estimators (--estimator): ml = maximum likelihood; map = the posterior mode
under the family's conjugate prior (--prior-* options); posterior = the
posterior predictive, where it stays in the family (bernoulli, multinomial,
gaussian with --var).
)";

constexpr const char* kPoolHelp = R"(
Training and test files: whatever a fit decides on its training file (values
chosen by the data, such as --alpha auto, and statistics pooled over its
examples) is saved by --save-pooled POOL and reused, unchanged, for a test file
fitted with --pooled-from POOL: nothing is re-estimated on test data.
)";

constexpr const char* kShrinkHelp = R"(
Shrinkage (--shrink L, COLT 2003): each example's estimate maximises
  log p(example | theta) + L * sum over the training examples j of log p(x_j | theta),
i.e. its statistics plus L times those pooled over the training set. Fit the
training file with --shrink L --save-pooled POOL, and the test file with
--shrink L --pooled-from POOL, so that both use the same pool.
)";

// `ppk fit mi`, a command of its own (mi.cpp) listed among the families.
constexpr const char* kMiName = "mi";
constexpr const char* kMiSummary = "mutual-information kernel rows: 'ppk fit mi --help'";

// "gaussian, bernoulli, ..., slds or mi" (last_join "or") or "... and mi".
std::string family_names(const char* last_join) {
  std::vector<std::string> names;
  for (const FitFamily& family : fit_families()) names.emplace_back(family.name);
  names.emplace_back(kMiName);
  return join_list(names, last_join);
}

// The families that have a property: "a, b and c".
std::string families_where(bool (*has)(const FitFamily&)) {
  std::vector<std::string> names;
  for (const FitFamily& family : fit_families())
    if (has(family)) names.emplace_back(family.name);
  return join_list(names, "and");
}

bool offers_estimator(const FitFamily& family) { return family.no_estimator == nullptr; }
bool offers_pooling(const FitFamily& family) { return family.pools; }
bool defaults_to_posterior(const FitFamily& family) {
  return offers_estimator(family) && family.default_method == Method::posterior;
}

// --estimator, for `family` (null: for every family that offers it).
void add_estimator_option(po::options_description& options, const FitFamily* family) {
  const std::string defaults = family != nullptr
                                   ? std::string("default ") + method_name(family->default_method)
                                   : "offered by " + families_where(offers_estimator) + "; default posterior for " +
                                         families_where(defaults_to_posterior) + ", ml otherwise";
  options.add_options()("estimator", po::value<std::string>()->value_name("ml|map|posterior"),
                        ("the estimate (" + defaults + ")").c_str());
}

// --shrink (COLT 2003), for `family` (null: for every family that offers it).
void add_shrink_option(po::options_description& options, const FitFamily* family) {
  const std::string which = family != nullptr ? " (COLT 2003)" : " (COLT 2003; " + families_where(offers_pooling) + ")";
  options.add_options()("shrink", po::value<double>()->value_name("L"),
                        ("shrink toward the pooled training data with weight L > 0" + which).c_str());
}

// --save-pooled and --pooled-from: every family.
void add_pool_file_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("save-pooled", po::value<std::string>()->value_name("POOL"),
       "write what was decided on INPUT (the training file: chosen values, pooled statistics) to POOL")
      ("pooled-from", po::value<std::string>()->value_name("POOL"),
       "fit INPUT (a test file) with what was decided on the training file and saved in POOL");
  // clang-format on
}

// The options of `family` besides its own (null: of every family). The one source of its --help
// and of what its command line accepts.
po::options_description common_options(const FitFamily* family) {
  po::options_description options("Options");
  // clang-format off
  options.add_options()
      ("output,o", po::value<std::string>()->default_value("-")->value_name("OUTPUT"),
       "where to write the rows ('-' = standard output); written only if every example fits")
      ("dim", po::value<long>()->value_name("D"),
       "the models' dimension (number of features, vocabulary size); default: the largest "
       "index in INPUT. Give the same D to files fitted separately (train and test)");
  // clang-format on
  if (family == nullptr || offers_estimator(*family)) add_estimator_option(options, family);
  if (family == nullptr || offers_pooling(*family)) add_shrink_option(options, family);
  add_pool_file_options(options);
  add_threads_option(options, "fit N examples at a time");
  options.add_options()("help,h", "this text");
  return options;
}
// The fields of common_options: the estimators' method, the dimension D and the shrinkage weight
// lambda of estimate().
const OptionFlags kCommonOptionFlags{{"method", "--estimator"}, {"dim", "--dim"}, {"lambda", "--shrink"}};

// A UsageError for an option that other families take and `family` does not (absent from its --help
// and its command line): why it does not apply.
void reject_options_of_other_families(const FitFamily& family, const std::vector<std::string>& args) {
  po::options_description estimator, pooling;
  add_estimator_option(estimator, nullptr);
  add_shrink_option(pooling, nullptr);
  for (const std::string& word : args) {
    if (word.rfind("--", 0) != 0) continue;
    const std::string name = word.substr(2, word.find('=') - 2);
    const std::string option = "--" + name + " is not offered for ppk fit " + family.name + ": ";
    if (!offers_estimator(family) && estimator.find_nothrow(name, false) != nullptr)
      throw UsageError(option + family.no_estimator);
    if (!offers_pooling(family) && pooling.find_nothrow(name, false) != nullptr)
      throw UsageError(option + "the " + family.name +
                       " fit is not an exponential family: it has no sufficient "
                       "statistics to pool, so --shrink is not supported");
  }
}

// Usage, the input formats, and what --estimator and --shrink do where `only` (null: any family) offers them.
std::string fit_usage(const FitFamily* only) {
  std::string usage;
  if (only != nullptr) {
    usage = std::string("Usage: ppk fit ") + only->name + " [options] INPUT [-o OUTPUT]\n";
  } else {
    usage = "Usage: ppk fit FAMILY [options] INPUT [-o OUTPUT]\nFAMILY:\n";
    const auto line = [&usage](const std::string& name, const std::string& summary) {
      usage += "  " + name + std::string(name.size() < 12 ? 12 - name.size() : 1, ' ') + summary + "\n";
    };
    for (const FitFamily& family : fit_families()) line(family.name, family.summary);
    line(kMiName, kMiSummary);
  }
  usage += kFitInput;
  if (only == nullptr || offers_estimator(*only)) usage += kEstimatorHelp;
  usage += kPoolHelp;
  if (only == nullptr || offers_pooling(*only)) usage += kShrinkHelp;
  return usage;
}

void print_fit_help(const FitFamily* only) {
  print_help_with_entries(fit_usage(only), fit_families(), only, common_options(only));
}

// The statistics pooled over every example of `data` (the training set); PoolingUnsupported when
// the estimator, with its options, has none.
Statistics pool_examples(const Estimator& estimator, const Dataset& data, long dim) {
  std::optional<Statistics> pooled;
  for (const Example& example : data.examples) {
    try {
      const Statistics own = estimator.statistics(example.vectors, dim);
      pooled = pooled ? estimator.pool(*pooled, own, 1.0) : own;
    } catch (const PoolingUnsupported&) {
      throw;
    } catch (const EstimationError& e) {
      throw data.error_at(example, message_of(e));
    }
  }
  if (!pooled) throw InputError(data.source + ": no examples to pool");
  return *pooled;
}

}  // namespace

std::string fit_family_names() { return family_names("and"); }

int run_fit(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    if (args.empty()) throw UsageError("missing the family: " + family_names("or"));
    print_fit_help(nullptr);
    return 0;
  }
  if (args[0] == kMiName) return run_fit_mi(std::vector<std::string>(args.begin() + 1, args.end()));
  const FitFamily* family = nullptr;
  for (const FitFamily& candidate : fit_families())
    if (args[0] == candidate.name) family = &candidate;
  if (family == nullptr) throw UsageError("unknown family '" + args[0] + "'; ppk fit supports " + family_names("and"));
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (wants_help(rest)) {
    print_fit_help(family);
    return 0;
  }

  reject_options_of_other_families(*family, rest);
  use_option_flags(kCommonOptionFlags);
  for (const OptionFlags& flags : family->option_flags) use_option_flags(flags);
  po::options_description options = common_options(family);
  family->add_options(options);
  options.add_options()("input", po::value<std::string>(), "INPUT");
  po::positional_options_description positional;
  positional.add("input", 1);
  const po::variables_map values = parse_command_line(rest, options, positional);
  if (!values.count("input")) throw UsageError("missing INPUT (a data file, or '-' for standard input)");

  double lambda = 0;
  if (values.count("shrink")) {
    lambda = values["shrink"].as<double>();
    if (!(lambda > 0) || !std::isfinite(lambda))
      throw UsageError("--shrink must be a finite number > 0, got " + format_double(lambda));
  }
  if (values.count("pooled-from") && values.count("save-pooled"))
    throw UsageError("--pooled-from and --save-pooled exclude each other: save the pool when fitting the training file");
  const unsigned threads = threads_option(values);
  const std::string command = std::string("ppk fit ") + family->name;

  // INPUT is read first: how hmm reads it depends on its format, and choices are made on its examples.
  const FitSource source = read_fit_source(values["input"].as<std::string>());
  const FitInput fit_input = family->read_input(source, values, command);
  const Dataset& data = fit_input.data;
  const long dim = fit_input.dim;

  std::optional<PoolFile> pool_from;
  if (values.count("pooled-from")) {
    pool_from = read_pool_file(values["pooled-from"].as<std::string>());
    if (pool_from->family != family->name || pool_from->dim != dim)
      throw InputError(pool_from->path + " was written by ppk fit " + pool_from->family + " over dimension " +
                       std::to_string(pool_from->dim) + " from " + pool_from->source + ", but " + source.name +
                       " is fitted by " + command + " over dimension " + std::to_string(dim) +
                       " (give both files the same family and --dim)");
    if (lambda > 0 && !pool_from->statistics)
      throw UsageError(pool_from->path + " holds no pooled statistics: fit the training file " + pool_from->source +
                       " with --shrink L --save-pooled " + pool_from->path);
  }
  TrainingChoices choices(command, source.name, pool_from ? &*pool_from : nullptr);
  std::unique_ptr<Estimator> estimator;
  try {
    const Method method =
        values.count("estimator") ? parse_method(values["estimator"].as<std::string>()) : family->default_method;
    estimator = family->make_estimator(FitContext{values, method, source, fit_input, choices, command});
  } catch (const EstimationError& e) {
    throw UsageError(message_of(e));
  }

  // The pooled statistics: the training file's (--pooled-from), or INPUT's when it is the training file.
  std::optional<Statistics> pooled;
  if (pool_from && pool_from->statistics) {
    pooled = pool_from->statistics;
    if (pooled->family != estimator->family())
      throw InputError(pool_from->path + ": the pooled statistics are of a " + pooled->family + ", but " + command +
                       " with these options fits a " + estimator->family() + " (fit " + source.name +
                       " with the options used for " + pool_from->source + ")");
  } else if (!pool_from && (lambda > 0 || (values.count("save-pooled") && offers_pooling(*family)))) {
    try {
      pooled = pool_examples(*estimator, data, dim);
    } catch (const PoolingUnsupported& e) {
      if (lambda > 0) throw UsageError(message_of(e));  // --save-pooled alone saves the chosen values
    }
  }

  const std::vector<Row> rows = fit_rows(*estimator, data, dim, pooled ? &*pooled : nullptr, lambda, threads);
  std::vector<std::string> lines(data.examples.size());
  for (std::size_t i = 0; i < lines.size(); ++i) lines[i] = format_row_line(data.examples[i].label, rows[i]);
  if (values.count("save-pooled"))
    write_pool_file(values["save-pooled"].as<std::string>(),
                    PoolFile{"", source.name, family->name, dim, choices.chosen(), choices.matrices(), pooled,
                             choices.base(), choices.smoothing()});
  for (const auto& [path, side_lines] : fit_input.side_outputs) write_lines(path, side_lines);
  write_lines(values["output"].as<std::string>(), lines);
  return 0;
}

}  // namespace ppk::cli
